"""``memories import --format chatgpt-memories|claude-memory`` and ``memories export
--format text|markdown`` as a real process on temp data dirs (issue 43, item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.test_memories_cli import acai, acai_json

LISTS = Path(__file__).parents[1] / "fixtures" / "memory_lists"


def _import(
    data: str, list_format: str, file: str, *, given: str | None = None, check: bool = True
) -> subprocess.CompletedProcess:
    """``memories import --format list_format file``, ``given`` on standard input."""
    result = subprocess.run(
        [sys.executable, "-m", "acai_desktop", "--data-dir", data, "memories", "import",
         "--format", list_format, file],
        input=given, capture_output=True, text=True, encoding="utf-8", timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    if check:
        assert result.returncode == 0, result.stderr
    return result


def test_a_chatgpt_list_from_a_file_then_again_from_standard_input(tmp_path):
    data = str(tmp_path / "profile")
    saved = (LISTS / "chatgpt_saved_memories.txt").read_text(encoding="utf-8")
    windows = tmp_path / "saved memories.txt"  # as Notepad saves it
    windows.write_bytes(b"\xef\xbb\xbf" + saved.replace("\n", "\r\n").encode())

    first = acai_json(
        "--data-dir", data, "memories", "import", "--format", "chatgpt-memories", str(windows)
    )
    assert {key: first[key] for key in ("read", "kept", "merged", "suggested", "refused")} == {
        "read": 10, "kept": 7, "merged": 0, "suggested": 0, "refused": 3,
    }  # fmt: skip
    assert first["format"] == "chatgpt-memories" and first["file"] == str(windows)
    assert first["lines"][0] == {
        "line": 3,
        "text": "User's name is Marta Kowalski.",
        "category": None,
        "outcome": "kept",
        "reason": "",
        "memory_id": 1,
        "suggestion_id": None,
    }
    listed = acai_json("--data-dir", data, "memories", "list")["memories"]
    assert "The user's name is Marta Kowalski." in {memory["content"] for memory in listed}

    again = _import(data, "chatgpt-memories", "-", given=saved)
    assert again.returncode == 0
    lines = again.stdout.splitlines()
    assert lines[0] == (
        "Read 10 memories from ChatGPT's saved memories: 0 kept, 7 merged, 0 suggested, 3 refused."
    )
    assert "  line 3: User's name is Marta Kowalski. — imported before (memory 1)" in lines
    assert "  line 12: What is the capital of Poland? — question: a question is not a fact" in lines
    assert len(acai_json("--data-dir", data, "memories", "list")["memories"]) == 7


def test_a_block_exported_for_claude_reads_back_into_a_fresh_profile(tmp_path):
    source, fresh = str(tmp_path / "source"), str(tmp_path / "fresh")
    for text, category in (
        ("The user lives in Gdańsk, Poland.", "Location"),
        ("The user has a cat named Pierogi.", "Personal"),
        ("The user's address is\nUl. Długa 5", "Location"),
    ):
        acai(
            "--data-dir", source, "memories", "add", text, "--kind", "fact", "--category", category
        )
    secret = acai_json(
        "--data-dir", source, "memories", "add", "The user's PIN is 4921.", "--kind", "fact"
    )
    acai("--data-dir", source, "memories", "keep-local", str(secret["id"]))

    block = tmp_path / "for claude.txt"
    exported = acai_json("--data-dir", source, "memories", "export", "--format", "text", str(block))
    assert exported == {
        "exported": 3, "file": str(block), "format": "text", "local_only_left_out": 1,
    }  # fmt: skip
    assert block.read_text(encoding="utf-8") == (
        "Location:\n"
        "- The user lives in Gdańsk, Poland.\n"
        "- The user's address is Ul. Długa 5\n"
        "\n"
        "Personal:\n"
        "- The user has a cat named Pierogi.\n"
    )
    markdown = acai("--data-dir", source, "memories", "export", "--format", "markdown", "-")
    assert markdown.stdout.startswith("# Memories from ACAI Desktop\n\n## Location\n\n- The user")
    assert markdown.stderr.strip() == (
        "Exported 3 memories to - as Markdown; 1 local-only memory left out."
    )
    assert "4921" not in block.read_text(encoding="utf-8") + markdown.stdout

    report = _import(fresh, "claude-memory", str(block)).stdout
    assert report.startswith("Read 3 memories from Claude's memory: 3 kept, 0 merged")
    imported = acai_json("--data-dir", fresh, "memories", "list")["memories"]
    assert sorted((m["content"], m["category"]) for m in imported) == [
        ("The user has a cat named Pierogi.", "Personal"),
        ("The user lives in Gdańsk, Poland.", "Location"),
        ("The user's address is Ul. Długa 5", "Location"),
    ]
    json_export = acai_json("--data-dir", source, "memories", "export", str(tmp_path / "all.json"))
    assert json_export == {"exported": 4, "file": str(tmp_path / "all.json")}  # a backup: all


def test_errors_exit_2_and_change_nothing(tmp_path):
    data = str(tmp_path / "profile")
    missing = _import(data, "claude-memory", str(tmp_path / "missing.txt"), check=False)
    assert missing.returncode == 2 and "No such file" in missing.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("Saved memories\n\n")
    nothing = _import(data, "chatgpt-memories", str(empty), check=False)
    assert nothing.returncode == 2
    assert nothing.stderr.strip().endswith(
        "no lines of ChatGPT's saved memories; nothing was changed."
    )
    unknown = _import(data, "gemini", str(empty), check=False)
    assert unknown.returncode == 2 and "invalid choice: 'gemini'" in unknown.stderr
    nowhere = acai(
        "--data-dir", data, "memories", "export", "--format", "text",
        str(tmp_path / "no" / "such" / "dir.txt"), check=False,
    )  # fmt: skip
    assert nowhere.returncode == 2 and "Cannot write to" in nowhere.stderr
    assert acai_json("--data-dir", data, "memories", "list")["memories"] == []
