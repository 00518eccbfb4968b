"""``acai-desktop memories why`` as a real process (issue 43, item 2): an answer asked by
``chat`` through the scripted server, then why it used a memory or didn't, as JSON and
as text, by id or by pasted words, and the exit codes of a wrong id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from acai_lab.scripted_openai import Reply
from tests.support.timeouts import PROGRAM_TIMEOUT_S

QUESTION = "How long does the warranty on my dishwasher last?"


def acai(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def ok_json(data: Path, *args: str) -> dict:
    done = acai(data, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_why_an_answer_used_a_memory_or_not(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="Until March 2027, I believe.")
    data = tmp_path / "profile"
    used = ok_json(data, "memories", "add", "My dishwasher warranty lasts until March 2027.")
    forgotten = ok_json(data, "memories", "add", "The dishwasher warranty covers the pump.")
    below = ok_json(data, "memories", "add", "I keep my receipts in the blue folder.")
    ok_json(data, "memories", "forget", str(forgotten["id"]))
    server = ["--provider", "custom", "--base-url", fake_openai.base_url, "--model", "fake-model"]
    asked = ok_json(data, "chat", *server, QUESTION)
    answer = str(asked["answer_id"])
    assert [m["id"] for m in asked["memories_used"]] == [used["id"]]

    why = ok_json(data, "memories", "why", "--answer", answer, "--memory", str(used["id"]))
    assert (why["reason"], why["rank"], why["item"]["id"]) == ("used", 1, used["id"])
    assert why["question"] == QUESTION and why["fixes"] == []

    why = ok_json(data, "memories", "why", "--answer", answer, "--memory", str(forgotten["id"]))
    assert why["reason"] == "forgotten" and (why["rank"], why["score"], why["floor"]) == (
        None,
        None,
        None,
    )
    assert [(f["action"], f["memory_id"]) for f in why["fixes"]] == [("restore", forgotten["id"])]

    # Pasted words: the memory holding them, below the relevance floor.
    why = ok_json(data, "memories", "why", "--answer", answer, "--text", "the blue folder")
    assert why["item"]["id"] == below["id"] and why["pasted"] == "the blue folder"
    assert why["reason"] == "below_floor" and why["evidence"] < why["floor"] == 1.0
    assert isinstance(why["rank"], int) and isinstance(why["score"], float)

    # As text: the reason in plain words, and the fix as the command that makes it.
    text = acai(data, "memories", "why", "--answer", answer, "--memory", str(forgotten["id"]))
    assert text.returncode == 0, text.stderr
    assert "forgotten: You forgot it" in text.stdout
    assert f"acai-desktop memories restore {forgotten['id']}" in text.stdout
    # Nothing changed: it is still forgotten.
    shown = ok_json(data, "memories", "show", str(forgotten["id"]))
    assert shown["status"] == "forgotten"

    # A question is not an answer; a memory that doesn't exist; no item at all.
    for wrong in (
        ["--answer", str(int(answer) - 1), "--memory", str(used["id"])],
        ["--answer", answer, "--memory", "999"],
        ["--answer", "999", "--memory", str(used["id"])],
        ["--answer", answer],
    ):
        done = acai(data, "memories", "why", *wrong)
        assert done.returncode == 2, (wrong, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
    assert "is not an answer" in acai(data, "memories", "why", "--answer", str(int(answer) - 1),
                                      "--memory", str(used["id"])).stderr  # fmt: skip
