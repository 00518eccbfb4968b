"""``acai-desktop conversations list | export`` as a real process on a temp profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import Store
from tests.support.aio import run
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def acai(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def profile_with_a_chat(data_dir):
    async def build():
        store = await Store.open(Profile.at(data_dir).ensure().database_path)
        try:
            conversations = ConversationRepository(store)
            chat = await conversations.create("Trip to Kyoto")
            await conversations.add_message(
                chat.id, "user", "Plan my trip. Use ```python fences``` <b>please</b>"
            )
            await conversations.add_message(chat.id, "assistant", "# Day 1\n\n- **Fushimi Inari**")
            stopped = await conversations.add_message(chat.id, "assistant", "Day 2: Ara")
            await conversations.update_message(stopped.id, status="stopped")
            await conversations.create("Temporary", temporary=True)
            await conversations.set_pinned(chat.id, True)
            return chat.id
        finally:
            await store.close()

    return run(build())


def test_list_and_export_as_markdown_and_json(tmp_path):
    data = tmp_path / "profile"
    chat_id = profile_with_a_chat(data)

    listed = json.loads(acai("conversations", "--data-dir", str(data), "list", "--json").stdout)
    titles = {c["title"]: (c["temporary"], c["pinned"]) for c in listed["conversations"]}
    assert titles == {"Trip to Kyoto": (False, True), "Temporary": (True, False)}
    # Pinned first, though the temporary chat is newer.
    assert [c["title"] for c in listed["conversations"]] == ["Trip to Kyoto", "Temporary"]
    human = acai("conversations", "--data-dir", str(data), "list").stdout
    assert "Trip to Kyoto (pinned)" in human and "(temporary)" in human

    markdown_file = tmp_path / "trip.md"
    result = acai("conversations", "--data-dir", str(data), "export", str(chat_id),
                  str(markdown_file))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Exported 3 messages" in result.stdout
    markdown = markdown_file.read_text(encoding="utf-8")
    assert markdown.startswith("# Trip to Kyoto\n")
    # The user's words stay as written, inside a fence longer than their own backticks.
    assert "````text\nPlan my trip. Use ```python fences``` <b>please</b>\n````" in markdown
    assert "# Day 1\n\n- **Fushimi Inari**" in markdown
    assert "(stopped before the end)" in markdown

    exported = json.loads(
        acai(
            "conversations", "--data-dir", str(data), "export", str(chat_id), "-", "--format=json"
        ).stdout
    )
    assert exported["format"] == "acai-desktop-conversation" and exported["version"] == 2
    assert exported["conversation"]["pinned"] is True
    assert [(m["author"], m["status"]) for m in exported["messages"]] == [
        ("You", "complete"), ("Assistant", "complete"), ("Assistant", "stopped")
    ]  # fmt: skip
    assert exported["messages"][0]["content"].endswith("<b>please</b>")


def test_unknown_conversation_and_unwritable_target_fail_clearly(tmp_path):
    data = tmp_path / "profile"
    chat_id = profile_with_a_chat(data)
    missing = acai("conversations", "--data-dir", str(data), "export", "999", "-")
    assert missing.returncode == 2 and "999" in missing.stderr
    nowhere = tmp_path / "no" / "such" / "dir" / "out.md"
    failed = acai("conversations", "--data-dir", str(data), "export", str(chat_id), str(nowhere))
    assert failed.returncode == 2 and "Cannot write" in failed.stderr
    assert not nowhere.parent.exists()
