"""A user message is kept as its prompt sent it (m015; on that prompt's answer since issue
41), and the history of later turns sends it so: each prompt then starts with the
previous prompt whole, then its answer (issue 22: the server's prompt cache reads only the
new turn). The user's own words
stay what the transcript, the export and the versions show."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from acai_desktop.core.conversations.export import export_text
from acai_desktop.core.memory.context_builder import build_context
from acai_desktop.core.memory.prompt_history import left_out_of_prompt
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER
from acai_desktop.core.store.database import Store
from acai_lab.scripted_openai import Reply
from tests.core.test_context_builder import message
from tests.core.test_migrations import build_database_at
from tests.support.aio import run
from tests.support.assistant import running_assistant

SENT = "<memories>\nsome data\n</memories>\n\n" + USER_MESSAGE_HEADER + "\nWhere do I live?"


def test_the_history_sends_a_user_message_as_it_was_sent_and_an_older_one_as_its_words():
    history = [
        message(1, "user", "Hello there"),  # from before m015: no sent text
        message(2, "assistant", "Hi!"),
        message(3, "user", "Where do I live?", sent_content=SENT),
        message(4, "assistant", "In Lisbon."),
    ]
    context = build_context(
        system_prompt="You are ACAI.",
        user_message="And my sister?",
        budget_tokens=4000,
        recent_messages=history,
    )
    assert [m["content"] for m in context.messages[1:-1]] == [
        "Hello there",
        "Hi!",
        SENT,
        "In Lisbon.",
    ]


def test_what_the_prompt_left_out_is_counted_as_sent():
    """The summary folds what the prompt left out: both count a message as it is sent,
    so a question sent with much data leaves the prompt as early as the prompt says."""
    data = "<memories>\n" + "a remembered line about the user\n" * 60 + "</memories>\n\n"
    heavy = [
        message(n, "user", f"question {n}", sent_content=f"{data}{USER_MESSAGE_HEADER}\nq {n}")
        if n % 2
        else message(n, "assistant", f"answer {n}")
        for n in range(1, 9)
    ]
    light = [message(m.id, m.role, m.content) for m in heavy]  # the same words, no data kept
    room = 4 * estimate_message_tokens(heavy[0].sent_content)
    assert left_out_of_prompt(light, room) == []
    assert len(left_out_of_prompt(heavy, room)) >= 2


def test_a_turn_keeps_its_question_as_sent_and_the_transcript_keeps_the_words(
    tmp_path, fake_openai
):
    fake_openai.responder = lambda request: Reply(text="Lisbon, as you told me.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            # Pinned: always in the prompt, so the question is sent with data.
            lisbon = await assistant.memories.remember("The user lives in Lisbon", explicit=True)
            await assistant.memories.pin(lisbon.id)
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "Where do I live?")
            result = await assistant.orchestrator.send(conversation.id, "And my sister?")
            assert result.status == MessageStatus.COMPLETE
            messages = await assistant.conversations.messages(conversation.id)
            shown = await assistant.conversations.get(conversation.id)
            exported = export_text(shown, messages, "md") + export_text(shown, messages, "json")
            return messages, exported

    messages, exported = run(scenario())
    prompts = [
        r.json["messages"] for r in fake_openai.chat_requests() if r.json["model"] == "fake-chat"
    ]
    first, second = prompts
    question, answer = messages[:2]
    assert question.content == "Where do I live?"
    assert answer.sent_content == first[-1]["content"]
    assert answer.sent_content.endswith(f"{USER_MESSAGE_HEADER}\nWhere do I live?")
    assert second[: len(first)] == first
    assert second[len(first)] == {"role": "assistant", "content": "Lisbon, as you told me."}
    # What the user reads is their words, never the data sent with them.
    assert "Where do I live?" in exported and USER_MESSAGE_HEADER not in exported


def test_a_database_from_before_m015_gets_an_empty_sent_text(tmp_path):
    path = tmp_path / "acai.sqlite3"
    build_database_at(path, "m014_chat_attachments")

    async def scenario():
        store = await Store.open(path)
        await store.close()

    run(scenario())
    rows = sqlite3.connect(path).execute("SELECT content, sent_content FROM messages").fetchall()
    assert rows == [("I prefer Python for backend development.", None)]


def count_user_row_writes(database: Path) -> None:
    """Triggers on the profile's own database that log every write of what a user's row
    says, by any connection (the store's included). The message tree's bookkeeping
    (parent, shown path) and a summary's folding are left out: they are not the turn's."""
    with sqlite3.connect(database) as db:
        db.executescript(
            """
            CREATE TABLE user_row_writes (message_id INTEGER, write TEXT);
            CREATE TRIGGER user_row_inserted AFTER INSERT ON messages WHEN NEW.role = 'user'
            BEGIN INSERT INTO user_row_writes VALUES (NEW.id, 'insert'); END;
            CREATE TRIGGER user_row_updated AFTER UPDATE OF content, status, model, tokens,
                error, plan, instructions, usage, sent_content ON messages
                WHEN NEW.role = 'user'
            BEGIN INSERT INTO user_row_writes VALUES (NEW.id, 'update'); END;
            """
        )


def user_row_writes(database: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT message_id, write FROM user_row_writes ORDER BY rowid").fetchall()


def test_the_users_row_is_written_once_a_turn_and_its_answer_keeps_how_it_was_sent(
    tmp_path, fake_openai
):
    """Issue 41: what the user said is written once, when it is sent. How the prompt
    carried it (and the turn's plan) belongs to the answer that prompt produced: a
    regenerated answer has its own, and the user's row is never rewritten."""
    fake_openai.responder = lambda request: Reply(text="Lisbon, as you told me.")
    database = Profile.at(tmp_path).database_path

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            lisbon = await assistant.memories.remember("The user lives in Lisbon", explicit=True)
            await assistant.memories.pin(lisbon.id)
            conversation = await assistant.conversations.create()
            count_user_row_writes(database)
            first = await assistant.orchestrator.send(conversation.id, "Where do I live?")
            again = await assistant.orchestrator.retry(first.answer.id)
            await assistant.orchestrator.send(conversation.id, "And my sister?")
            return first, again, await assistant.conversations.messages(conversation.id)

    first, again, shown = run(scenario())
    question = first.user_message
    later = [m for m in shown if m.role == "user" and m.id != question.id]
    assert user_row_writes(database) == [(question.id, "insert"), (later[0].id, "insert")]
    prompts = [
        r.json["messages"] for r in fake_openai.chat_requests() if r.json["model"] == "fake-chat"
    ]
    # Each answer keeps the question as its own prompt sent it, and the plan it was made by.
    assert first.answer.sent_content == prompts[0][-1]["content"]
    assert again.answer.sent_content == prompts[1][-1]["content"]
    assert again.answer.sent_content.endswith(f"{USER_MESSAGE_HEADER}\nWhere do I live?")
    assert again.answer.plan["task_type"] == first.plan.task_type
    # The next prompt repeats the shown answer's prompt word for word, then that answer.
    assert prompts[2][: len(prompts[1])] == prompts[1]
