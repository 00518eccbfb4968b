"""The local-model bundle end to end: the frozen app starts its own llama.cpp server
(itself again, with the hidden --serve-local-model flag: a bundle has no Python to run
``-m``) on the SmolLM2 model it carries, and answers one turn."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.sqlite_rows import rows

pytestmark = [pytest.mark.e2e, pytest.mark.local_model]


# Loading the model and one answer on a busy CPU: the program gets 600 s, the test 660 s,
# so a hung program fails with its own output before pytest-timeout stops the test.
@pytest.mark.timeout(660)
def test_frozen_app_serves_the_bundled_model_and_answers(local_bundle, tmp_path):
    data = tmp_path / "profile"
    program = local_bundle / "acai-desktop"
    done = subprocess.run(
        [str(program), "--data-dir", str(data), "chat", "--provider", "local", "--new",
         "--json", "Say hello in one short sentence."],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    reply = json.loads(done.stdout)
    assert reply["status"] == "complete" and reply["answer"].strip(), reply
    assert rows(data / "acai.sqlite3", "SELECT role, status FROM messages ORDER BY id") == [
        ("user", "complete"),
        ("assistant", "complete"),
    ]
    # The server was the bundle itself, and it did not outlive the command.
    leftovers = subprocess.run(
        ["pgrep", "-f", f"{program} --serve-local-model"], capture_output=True, text=True
    )
    assert leftovers.stdout.strip() == "", "the bundled model server outlived the command"
