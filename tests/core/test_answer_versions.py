"""Regenerate keeps every version, and rebuilds the prompt as of the question: real
store, real retrieval, the real SDK against the scripted server (whose recorded requests
are the prompts the model received)."""

from __future__ import annotations

import json

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.export import export_text
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.memories import MemoryKind
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

QUESTION = "Which island should I travel to for the holidays?"


def _prompt_text(request) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.json["messages"])


def test_regenerate_keeps_the_old_version_and_its_prompt_is_as_of_the_question(
    tmp_path, fake_openai
):
    fake_openai.script(
        Reply(text="First answer: Madeira."),
        Reply(text="Pack light."),
        Reply(text="Second answer: Crete."),
        Reply(text="A fresh chat's answer."),
    )

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            memories = assistant.memories
            edited_later = await memories.remember(
                "The user loves the island of Lisbonia for holidays.",
                kind=MemoryKind.NOTE,
                explicit=True,
            )
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, QUESTION)
            # Learned after the question: a pinned note, a note sharing its words, an edit.
            pinned = await memories.remember(
                "Quokka passport number noted.", kind=MemoryKind.NOTE, explicit=True
            )
            await memories.pin(pinned.id)
            await memories.remember(
                "The user wants to travel to the island of Zanzibar for the holidays.",
                kind=MemoryKind.NOTE,
                explicit=True,
            )
            await memories.edit(
                edited_later.id, "The user loves the island of Porto Santo for holidays."
            )
            await assistant.orchestrator.send(conversation.id, "And what should I pack?")
            news: list = []
            assistant.events.subscribe(ev.TranscriptChanged, news.append)
            regenerated = await assistant.orchestrator.retry(first.answer.id)
            shown = await assistant.conversations.messages(conversation.id)
            everything = await assistant.conversations.messages(
                conversation.id, include_hidden=True
            )
            # The same question in a new chat sees all of it (so the test can fail).
            control = await assistant.conversations.create()
            await assistant.orchestrator.send(control.id, QUESTION)
            return first, regenerated, shown, everything, news

    first, regenerated, shown, everything, news = run(scenario())
    chats = [r for r in fake_openai.chat_requests() if r.json.get("stream")]
    regenerated_prompt, control_prompt = _prompt_text(chats[2]), _prompt_text(chats[3])
    for later in ("Quokka", "Zanzibar", "Porto Santo", "what should I pack", "Pack light"):
        assert later in control_prompt or later in ("what should I pack", "Pack light")
        assert later not in regenerated_prompt, later
    assert "Lisbonia" not in regenerated_prompt  # changed later: left out, not today's text
    assert QUESTION in regenerated_prompt

    # Both versions are kept; the new one is shown in the old one's place, and what
    # followed the old one stays with it, hidden.
    assert regenerated.status == MessageStatus.COMPLETE
    assert regenerated.answer.id != first.answer.id
    assert [m.content for m in shown] == [QUESTION, "Second answer: Crete."]
    assert shown[1].versions == (first.answer.id, regenerated.answer.id)
    assert shown[1].version_number == 2
    assert [m.content for m in everything] == [
        QUESTION,
        "First answer: Madeira.",
        "And what should I pack?",
        "Pack light.",
        "Second answer: Crete.",
    ]
    assert [m.hidden for m in everything] == [False, True, True, True, False]
    assert [m.content for m in news[-1].messages] == [QUESTION, ""]  # the new, streaming one


def test_showing_an_older_version_brings_back_what_followed_it(tmp_path, fake_openai):
    fake_openai.script(Reply(text="One."), Reply(text="Two."), Reply(text="Three."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, "Q1")
            await assistant.orchestrator.send(conversation.id, "Q2")
            await assistant.orchestrator.retry(first.answer.id)
            news: list = []
            assistant.events.subscribe(ev.TranscriptChanged, news.append)
            await assistant.conversations.show_version(first.answer.id)
            back = await assistant.conversations.messages(conversation.id)
            found = await assistant.conversations.search("Two")
            return back, news, found

    back, news, found = run(scenario())
    assert [m.content for m in back] == ["Q1", "One.", "Q2", "Two."]
    assert back[1].version_number == 1 and len(back[1].versions) == 2
    assert [m.content for m in news[0].messages] == ["Q1", "One.", "Q2", "Two."]
    assert any(hit.message_id == back[3].id for hit in found)


def test_a_hidden_version_is_not_recalled_nor_found(tmp_path, fake_openai):
    fake_openai.script(Reply(text="Xylophone answer."), Reply(text="Plain answer."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, "Tell me something")
            before = await assistant.conversations.search("Xylophone")
            await assistant.orchestrator.retry(first.answer.id)
            after = await assistant.conversations.search("Xylophone")
            recalled = await assistant.retriever.search("Xylophone", k=5)
            return first, before, after, recalled

    first, before, after, recalled = run(scenario())
    assert any(hit.message_id == first.answer.id for hit in before)
    assert not any(hit.message_id == first.answer.id for hit in after)
    assert not any(
        getattr(r, "message", None) and r.message.id == first.answer.id for r in recalled
    )


def test_the_export_carries_every_version(tmp_path, fake_openai):
    fake_openai.script(Reply(text="Old answer."), Reply(text="New answer."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, "Question?")
            await assistant.orchestrator.retry(first.answer.id)
            conversation = await assistant.conversations.get(conversation.id)
            return conversation, await assistant.conversations.messages(
                conversation.id, include_hidden=True
            )

    conversation, messages = run(scenario())
    exported = json.loads(export_text(conversation, messages, "json"))
    rows = [(m["content"], m["shown"]) for m in exported["messages"]]
    assert rows == [("Question?", True), ("Old answer.", False), ("New answer.", True)]
    question_id = exported["messages"][0]["id"]
    assert [m["parent_id"] for m in exported["messages"]] == [None, question_id, question_id]
    markdown = export_text(conversation, messages, "md")
    shown_part, other_part = markdown.split("# Other versions and branches")
    assert "New answer." in shown_part and "Old answer." not in shown_part
    assert "Old answer." in other_part and "after “Question?”" in other_part


def test_editing_a_message_branches_and_the_new_prompt_sees_only_its_own_path(
    tmp_path, fake_openai
):
    fake_openai.script(
        Reply(text="Oslo is lovely."),
        Reply(text="Noted the code word."),
        Reply(text="Third answer."),
        Reply(text="Branch answer."),
    )

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            orchestrator = assistant.orchestrator
            conversation = await assistant.conversations.create()
            await orchestrator.send(conversation.id, "I live in Oslo.")
            second = await orchestrator.send(conversation.id, "The code word is Aardvark.")
            await orchestrator.send(conversation.id, "Anything about Aardvark code words?")
            edited = await orchestrator.edit(second.user_message.id, "What is the code word?")
            branch = await assistant.conversations.messages(conversation.id)
            await assistant.conversations.show_version(second.user_message.id)
            old = await assistant.conversations.messages(conversation.id)
            return second, edited, branch, old

    second, edited, branch, old = run(scenario())
    prompt = _prompt_text([r for r in fake_openai.chat_requests() if r.json.get("stream")][3])
    assert "I live in Oslo." in prompt and "Oslo is lovely." in prompt
    assert "What is the code word?" in prompt
    for other_branch in ("Aardvark", "Noted the code word", "Third answer"):
        assert other_branch not in prompt, other_branch
    assert [m.content for m in branch] == [
        "I live in Oslo.",
        "Oslo is lovely.",
        "What is the code word?",
        "Branch answer.",
    ]
    assert branch[2].versions == (second.user_message.id, edited.user_message.id)
    assert branch[2].version_number == 2
    assert [m.content for m in old] == [
        "I live in Oslo.",
        "Oslo is lovely.",
        "The code word is Aardvark.",
        "Noted the code word.",
        "Anything about Aardvark code words?",
        "Third answer.",
    ]


def test_editing_the_first_message_branches_from_the_start(tmp_path, fake_openai):
    fake_openai.script(Reply(text="A."), Reply(text="B."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, "Hello")
            await assistant.orchestrator.edit(first.user_message.id, "Hi there")
            return await assistant.conversations.messages(conversation.id)

    shown = run(scenario())
    assert [m.content for m in shown] == ["Hi there", "B."]
    assert shown[0].parent_id is None and len(shown[0].versions) == 2


def test_a_bad_edit_is_refused_before_anything_is_written(tmp_path, fake_openai):
    fake_openai.script(Reply(text="Answer."))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            turn = await assistant.orchestrator.send(conversation.id, "Question")
            refusals = []
            for message_id, text in [(turn.user_message.id, "  "), (turn.answer.id, "Hi")]:
                try:
                    await assistant.orchestrator.edit(message_id, text)
                except InvalidInputError as error:
                    refusals.append(str(error))
            everything = await assistant.conversations.messages(
                conversation.id, include_hidden=True
            )
            return refusals, everything

    refusals, everything = run(scenario())
    assert refusals == ["The message is empty.", refusals[1]] and "not yours" in refusals[1]
    assert [m.content for m in everything] == ["Question", "Answer."]
