"""Issue 39, G13 and G14: what the command line prints carries no terminal escape
sequences from a model's answer (``chat``, ``conversations export ID -``), and
``memories export -`` writes to standard output, as ``conversations export`` does."""

from __future__ import annotations

import json

from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.e2e.test_bad_input_cli import acai, scripted
from tests.support.sqlite_rows import rows

HOSTILE = "Hi \x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\r\x9b2Jdone.\n\tindented"
CONTROL = ("\x1b", "\x07", "\r", "\x9b")


def test_a_hostile_answer_reaches_the_terminal_as_plain_text(tmp_path, fake_openai):
    fake_openai.responder = lambda body: (
        Reply(text=HOSTILE) if body.get("stream") else fake_model(body)
    )
    data = tmp_path / "profile"
    chat = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Say hi")
    assert chat.returncode == 0, chat.stderr
    exported = acai("conversations", "export", "1", "-", "--data-dir", str(data))
    assert exported.returncode == 0, exported.stderr
    for output in (chat.stdout, exported.stdout):
        assert not any(c in output for c in CONTROL), repr(output)
        assert "Hi redr" not in output and "Hi reddone.\n\tindented" in output
    # The answer itself is kept as the model wrote it: only the terminal is spared.
    assert rows(data / "acai.sqlite3", "select content from messages where role='assistant'") == [
        (HOSTILE,)
    ]


def test_memories_export_dash_writes_to_standard_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a file named "-" was written
    data = tmp_path / "profile"
    added = acai("memories", "add", "The user likes tea", "--data-dir", str(data))
    assert added.returncode == 0, added.stderr
    exported = acai("memories", "export", "-", "--data-dir", str(data))
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    assert [m["content"] for m in document["memories"]] == ["The user likes tea"]
    assert "Exported 1 memories to -." in exported.stderr
    assert not (tmp_path / "-").exists()
