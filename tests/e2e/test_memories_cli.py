"""``acai-desktop memories ...`` as a real process on a temp data dir."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acai_desktop.core.memory.front_door import open_memory
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import Actor
from tests.support.aio import run
from tests.support.memory import shared_embedder
from tests.support.readonly import read_only


def acai(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


def acai_json(*args: str) -> dict:
    return json.loads(acai(*args, "--json").stdout)


def test_every_action_with_json_output(tmp_path):
    data = str(tmp_path / "profile")
    added = acai_json("--data-dir", data, "memories", "add", "I prefer Python for backend work")
    assert added["id"] == 1 and added["kind"] == "note" and added["status"] == "active"
    assert added["origin"] == "user" and added["sources"] == []
    for field in ("content", "category", "confidence", "importance", "pinned"):
        assert field in added

    # Options after the action as well as before it.
    chatter = acai_json(
        "memories", "add", "ok thanks", "--data-dir", data, "--kind", "fact", "--category", "Misc"
    )
    assert chatter["status"] == "active"  # an explicit add is never filtered by the policy
    assert (chatter["kind"], chatter["category"]) == ("fact", "Misc")
    pinned = acai_json("memories", "--data-dir", data, "add", "My name is John", "--pin")
    assert pinned["pinned"] is True

    listed = acai_json("memories", "list", "--data-dir", data)["memories"]
    assert [m["id"] for m in listed] == [3, 2, 1]  # pinned first, then newest
    assert acai_json("memories", "list", "--data-dir", data, "--pinned")["memories"][0]["id"] == 3
    assert [
        m["id"]
        for m in acai_json("memories", "list", "--data-dir", data, "--kind", "fact")["memories"]
    ] == [2]
    assert [
        m["id"]
        for m in acai_json("memories", "list", "--data-dir", data, "--category", "misc")["memories"]
    ] == [2]

    edited = acai_json("memories", "edit", "1", "I prefer Go for backend work", "--data-dir", data)
    assert edited["content"] == "I prefer Go for backend work" and edited["user_edited"]

    assert acai_json("memories", "unpin", "3", "--data-dir", data)["pinned"] is False
    assert acai_json("memories", "pin", "3", "--data-dir", data)["pinned"] is True
    assert acai_json("memories", "forget", "2", "--data-dir", data)["status"] == "forgotten"
    assert [m["id"] for m in acai_json("memories", "list", "--data-dir", data)["memories"]] == [
        3,
        1,
    ]
    everything = acai_json("memories", "list", "--all", "--data-dir", data)["memories"]
    assert {m["id"]: m["status"] for m in everything}[2] == "forgotten"
    only = acai_json("memories", "list", "--status", "forgotten", "--data-dir", data)
    assert [m["id"] for m in only["memories"]] == [2]
    assert acai_json("memories", "restore", "2", "--data-dir", data)["status"] == "active"

    shown = acai_json("memories", "show", "1", "--data-dir", data)
    assert shown["id"] == 1 and shown["content"] == "I prefer Go for backend work"
    assert [(h["actor"], h["action"]) for h in shown["history"]] == [
        ("user", "created"),
        ("user", "edited"),
    ]
    assert shown["history"][1]["before"]["content"] == "I prefer Python for backend work"

    # Search is the assistant's own hybrid retrieval: every active memory may come back,
    # ranked, with its score and the reasons it was chosen.
    found = acai_json("memories", "search", "backend", "--data-dir", data)["memories"]
    assert found[0]["id"] == 1 and found[0]["rank"] == 1
    assert "lexical" in found[0]["reasons"] and found[0]["score"] > found[1]["score"]
    assert acai_json("memories", "forget", "1", "--data-dir", data)["status"] == "forgotten"
    found = acai_json("memories", "search", "backend", "-k", "5", "--data-dir", data)
    assert 1 not in [m["id"] for m in found["memories"]]


def test_human_output_is_a_readable_table_and_card(tmp_path):
    data = str(tmp_path)
    assert (
        "Memory 1 (active, note)"
        in acai("memories", "add", "I like tea", "--data-dir", data).stdout
    )
    acai("memories", "add", "My cat is called Tom", "--pin", "--data-dir", data)
    table = acai("memories", "list", "--data-dir", data).stdout.splitlines()
    assert table[0].split() == ["ID", "STATUS", "KIND", "IMP", "CATEGORY", "CONTENT"]
    assert "[pinned] My cat is called Tom" in table[1]
    assert table[2].split()[:2] == ["1", "active"] and table[2].endswith("I like tea")
    hits = acai("memories", "search", "tea", "--data-dir", data).stdout.splitlines()
    assert hits[1].split()[:2] == ["1", "active"] and "lexical" in hits[1]
    nothing = acai("memories", "list", "--status", "forgotten", "--data-dir", data).stdout
    assert nothing.strip() == "No memories."


def test_export_and_import_round_trip_without_duplicates(tmp_path):
    source, target = str(tmp_path / "a"), str(tmp_path / "b")
    exported = tmp_path / "memories.json"
    acai("memories", "add", "I live in Lyon", "--category", "Location", "--data-dir", source)
    acai("memories", "add", "My cat is called Tom", "--pin", "--data-dir", source)
    acai("memories", "edit", "1", "I live in Lyon, France", "--data-dir", source)
    assert acai_json("memories", "export", str(exported), "--data-dir", source)["exported"] == 2

    first = acai_json("memories", "import", str(exported), "--data-dir", target)
    assert (first["imported"], first["skipped"]) == (2, 0)
    second = acai_json("memories", "import", str(exported), "--data-dir", target)
    assert (second["imported"], second["skipped"]) == (0, 2)

    def comparable(data_dir):
        memories = acai_json("memories", "list", "--all", "--data-dir", data_dir)["memories"]
        return sorted(
            (
                m["content"],
                m["category"],
                m["pinned"],
                m["status"],
                m["user_edited"],
                m["created_at"],
            )
            for m in memories
        )

    assert comparable(target) == comparable(source)
    history = acai_json("memories", "show", "1", "--data-dir", target)["history"]
    assert [h["action"] for h in history] == ["created", "edited", "imported"]


def test_errors_are_clear_exit_2_and_change_nothing(tmp_path):
    data = str(tmp_path / "profile")
    acai("memories", "add", "I like tea", "--data-dir", data)

    def fails(*args: str) -> str:
        result = acai(*args, "--data-dir", data, check=False)
        assert result.returncode == 2, (result.stdout, result.stderr)
        assert result.stdout == ""
        assert "Traceback" not in result.stderr
        return result.stderr

    assert "No memory with id 99." in fails("memories", "show", "99")
    assert "No memory with id 99." in fails("memories", "forget", "99")
    assert "'abc' is not a memory id" in fails("memories", "pin", "abc")
    assert "is empty" in fails("memories", "add", "   ")
    assert "U+0001 (SOH) at position 2" in fails("memories", "add", "a\x01b")
    # (A 1 MB text is refused by the service tests; one argument is capped at 128 kB.)
    assert "at most 20,000" in fails("memories", "add", "x" * 100_000)
    assert "not forgotten" in fails("memories", "restore", "1")

    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "format": "acai-desktop-memories",
                "version": 1,
                "memories": [
                    {"uid": "a", "content": "fine"},
                    {"uid": "b", "content": "broken", "confidence": "very"},
                ],
            }
        ),
        encoding="utf-8",
    )
    assert "memories[1].confidence" in fails("memories", "import", str(bad))
    bad.write_text('{"format": "acai-desktop-memories",\n "version": 1,,}', encoding="utf-8")
    assert "line 2, column 15" in fails("memories", "import", str(bad))

    remaining = acai_json("memories", "list", "--all", "--data-dir", data)["memories"]
    assert [m["content"] for m in remaining] == ["I like tea"]


def pinned_memory_with_a_conflict(data_dir: str, old: str, new: str) -> tuple[int, int]:
    """A pinned memory and a processor's contradiction of it, stored as a conflict, in
    the profile at ``data_dir`` (the way the critical-info processor makes one)."""

    async def make() -> tuple[int, int]:
        async with open_memory(Profile.at(data_dir), embedder=shared_embedder()) as service:
            pinned = await service.remember(old)
            await service.pin(pinned.id)
            conflict = await service.propose_change(
                pinned.id, new, actor=Actor.CRITICAL_INFO_PROCESSOR
            )
            return pinned.id, conflict.id

    return run(make())


def test_resolve_a_conflict_keeping_the_new_fact_or_the_old_memory(tmp_path):
    data = str(tmp_path / "profile")
    old_id, conflict_id = pinned_memory_with_a_conflict(
        data, "I live in Berlin", "I live in Lisbon"
    )
    shown = acai_json("memories", "show", str(conflict_id), "--data-dir", data)
    assert (shown["status"], shown["conflicts_with"]) == ("conflict", old_id)
    assert (
        f"contradicts memory {old_id}"
        in acai("memories", "show", str(conflict_id), "--data-dir", data).stdout
    )

    accepted = acai_json(
        "memories", "resolve", str(conflict_id), "--keep", "new", "--data-dir", data
    )
    assert accepted["id"] == conflict_id
    assert (accepted["status"], accepted["pinned"], accepted["user_edited"]) == (
        "active",
        True,
        True,
    )
    old = acai_json("memories", "show", str(old_id), "--data-dir", data)
    assert (old["status"], old["superseded_by"], old["pinned"]) == (
        "superseded",
        conflict_id,
        False,
    )
    assert [h["action"] for h in old["history"]][-1] == "superseded"
    hits = acai_json("memories", "search", "Lisbon Berlin", "--data-dir", data)["memories"]
    assert [m["id"] for m in hits] == [conflict_id]

    # Keeping the old one: the conflict is forgotten, the pinned memory untouched.
    other = str(tmp_path / "other")
    old_id, conflict_id = pinned_memory_with_a_conflict(other, "My cat is Tom", "My cat is Max")
    card = acai("memories", "resolve", str(conflict_id), "--keep", "old", "--data-dir", other)
    assert f"Memory {conflict_id} (forgotten, fact)" in card.stdout
    listed = acai_json("memories", "list", "--data-dir", other)["memories"]
    assert [(m["id"], m["status"], m["pinned"]) for m in listed] == [(old_id, "active", True)]

    # Refusals: not a conflict any more, a wrong choice, no id.
    result = acai(
        "memories", "resolve", str(conflict_id), "--keep", "new", "--data-dir", other, check=False
    )
    assert result.returncode == 2 and "is forgotten, not a conflict" in result.stderr
    result = acai(
        "memories", "resolve", str(old_id), "--keep", "both", "--data-dir", other, check=False
    )
    assert result.returncode == 2 and "invalid choice: 'both'" in result.stderr
    result = acai("memories", "resolve", str(old_id), "--data-dir", other, check=False)
    assert result.returncode == 2 and "--keep" in result.stderr


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_corrupt_database_file_is_reported_and_left_alone(tmp_path):
    (tmp_path / "acai.sqlite3").write_bytes(b"definitely not sqlite " * 300)
    before = digest(tmp_path / "acai.sqlite3")
    result = acai("memories", "list", "--data-dir", str(tmp_path), check=False)
    assert result.returncode == 2
    assert "is damaged or is not an ACAI Desktop database" in result.stderr
    assert "Traceback" not in result.stderr
    assert digest(tmp_path / "acai.sqlite3") == before


@pytest.mark.parametrize("directory_too", [False, True], ids=["file", "file-and-directory"])
def test_a_read_only_database_is_reported_and_left_alone(tmp_path, directory_too):
    data = tmp_path / "profile"
    acai("memories", "add", "I like tea", "--data-dir", str(data))
    database = data / "acai.sqlite3"
    before = digest(database)
    with read_only(database, directory=directory_too):
        added = acai("memories", "add", "I like coffee", "--data-dir", str(data), check=False)
        assert added.returncode == 2 and "Traceback" not in added.stderr
        assert "read-only" in added.stderr
        if not directory_too:
            listed = acai_json("memories", "list", "--data-dir", str(data))["memories"]
            assert [m["content"] for m in listed] == ["I like tea"]
        assert digest(database) == before


def test_list_shows_a_page_by_default_and_says_how_many_more(tmp_path):
    data = str(tmp_path / "profile")

    async def seed() -> None:
        from acai_desktop.core.memory.service import MemoryDraft

        profile = Profile.at(data).ensure()
        async with open_memory(profile, embedder=shared_embedder()) as service:
            await service.remember_many(
                [MemoryDraft(f"The user noted thing {n}") for n in range(130)], explicit=True
            )

    run(seed())
    listed = acai_json("memories", "list", "--data-dir", data)
    assert len(listed["memories"]) == 100
    assert (listed["total"], listed["more"], listed["offset"]) == (130, 30, 0)
    rest = acai_json("memories", "list", "--offset", "100", "--data-dir", data)
    assert len(rest["memories"]) == 30 and rest["more"] == 0
    first_ids = {m["id"] for m in listed["memories"]}
    assert first_ids.isdisjoint(m["id"] for m in rest["memories"])
    everything = acai_json("memories", "list", "--no-limit", "--data-dir", data)
    assert len(everything["memories"]) == 130 and everything["more"] == 0
    few = acai_json("memories", "list", "--limit", "5", "--kind", "fact", "--data-dir", data)
    assert len(few["memories"]) == 5 and few["total"] == 130 and few["more"] == 125

    table = acai("memories", "list", "--limit", "3", "--data-dir", data).stdout.splitlines()
    assert len(table) == 1 + 3 + 1
    assert table[-1].startswith("Showing 1–3 of 130; 127 more")
    assert "--no-limit" in table[-1]
    refused = acai("memories", "list", "--limit", "0", "--data-dir", data, check=False)
    assert refused.returncode == 2 and "--limit" in refused.stderr


def test_suggestions_are_listed_accepted_and_dismissed(tmp_path, fake_openai):
    """With "Ask before remembering" on, a chat turn leaves suggestions, not memories;
    the CLI accepts one (a memory sourced to the message) and dismisses the other."""
    from acai_lab.scripted_model import fake_model
    from tests.support.assistant import configure_profile

    fake_openai.responder = fake_model
    data = tmp_path / "profile"
    configure_profile(data, fake_openai, ask_before_remembering=True)
    said = acai(
        "chat", "--data-dir", str(data), "--wait-jobs", "My name is Ada and I live in Paris."
    )
    assert "Waiting for your yes" in said.stdout and "The user lives in Paris" in said.stdout
    assert acai_json("memories", "--data-dir", str(data), "list")["memories"] == []

    pending = acai_json("memories", "--data-dir", str(data), "suggestions")["suggestions"]
    assert {s["content"] for s in pending} == {"The user's name is Ada", "The user lives in Paris"}
    name = next(s for s in pending if "Ada" in s["content"])
    place = next(s for s in pending if "Paris" in s["content"])

    memory = acai_json("memories", "--data-dir", str(data), "accept", str(name["id"]))
    assert memory["content"] == "The user's name is Ada"
    assert memory["sources"] == [name["message_id"]]
    dismissed = acai("memories", "--data-dir", str(data), "dismiss", str(place["id"]))
    assert "won't be proposed again" in dismissed.stdout
    again = acai("memories", "--data-dir", str(data), "dismiss", str(place["id"]), check=False)
    assert again.returncode == 2 and "already dismissed" in again.stderr

    assert acai("memories", "--data-dir", str(data), "suggestions").stdout.startswith(
        "No suggestions waiting."
    )
    listed = acai_json("memories", "--data-dir", str(data), "list")["memories"]
    assert [m["content"] for m in listed] == ["The user's name is Ada"]


def test_review_confirm_and_outdated_from_the_command_line(tmp_path):
    """issue 43, item 1: the facts past their lifetime, and the user's answers."""
    import sqlite3

    data = str(tmp_path / "profile")
    added = [
        acai_json(
            "--data-dir", data, "memories", "add", text, "--kind", "fact", "--category", category
        )["id"]
        for text, category in [
            ("The user works as a nurse", "Professional"),
            ("The user lives in Porto", "Location"),
            ("The user's name is Marta", "Personal"),
        ]
    ]
    with sqlite3.connect(Path(data) / "acai.sqlite3") as db:  # learned two years ago
        db.execute("UPDATE memories SET created_at = '2024-11-02T08:00:00+00:00'")
    due = acai_json("--data-dir", data, "memories", "review")["due"]
    assert [item["id"] for item in due] == added[:2]
    assert due[0]["said_at"].startswith("2024-11-02")
    human = acai("--data-dir", data, "memories", "review").stdout
    assert "#1 The user works as a nurse  (as of 2024-11-02)" in human
    confirmed = acai_json("--data-dir", data, "memories", "confirm", str(added[0]))
    assert confirmed["as_of"] > "2026"
    gone = acai_json("--data-dir", data, "memories", "outdated", str(added[1]))
    assert gone["status"] == "superseded"
    assert acai_json("--data-dir", data, "memories", "review")["due"] == []
    refused = acai("--data-dir", data, "memories", "confirm", str(added[1]), check=False)
    assert refused.returncode != 0 and "only a current memory can be confirmed" in refused.stderr
