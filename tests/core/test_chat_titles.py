"""A new chat is named from its first exchange by one call on the triage model, after
the answer; the first words stay when no usable title comes; the user's name wins."""

from __future__ import annotations

import asyncio
import threading

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.title_job import (
    TITLE_JOB,
    TitleProcessor,
    clean_model_title,
    grounded_title,
)
from acai_desktop.core.conversations.titles import first_words_title, title_from_words
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.scripted_model import TITLE_PROMPT_MARK, fake_model
from acai_lab.scripted_openai import Reply
from tests.core.conftest import TEST_MODELS
from tests.support.aio import run
from tests.support.assistant import running_assistant

QUESTION = "Could you help me plan a three day walking trip around the lakes of Cumbria in May?"


def is_title_call(request: dict) -> bool:
    system = request["messages"][0]["content"] if request.get("messages") else ""
    return TITLE_PROMPT_MARK in system


def title_calls(server) -> list:
    return [r for r in server.chat_requests() if is_title_call(r.json)]


def test_the_first_exchange_names_the_chat_after_the_answer(tmp_path, fake_openai):
    def model(request: dict) -> Reply:
        if is_title_call(request):
            return Reply(text='Title: "Lake District walking trip".')
        return fake_model(request)

    fake_openai.responder = model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            changed: list = []
            assistant.events.subscribe(ev.ConversationChanged, lambda e: changed.append(e))
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, QUESTION)
            jobs = await assistant.runner.wait_for(first.job_ids, timeout=30)
            second = await assistant.orchestrator.send(conversation.id, "And in June?")
            await assistant.runner.wait_for(second.job_ids, timeout=30)
            return first, jobs, changed, await assistant.conversations.get(conversation.id)

    first, jobs, changed, conversation = run(scenario())
    assert first.status == MessageStatus.COMPLETE
    assert [j.status for j in jobs if j.kind == TITLE_JOB] == [JobStatus.DONE]
    assert conversation.title == "Lake District walking trip"
    assert not conversation.title_auto
    # Each turn announces the chat (the first with its first words); the title job
    # announces its title once, between them.
    stand_in = title_from_words(QUESTION)
    assert [e.conversation.title for e in changed] == [
        stand_in,
        "Lake District walking trip",
        "Lake District walking trip",
    ]
    # One call, on the triage model, after the answer: it reads the finished answer.
    calls = title_calls(fake_openai)
    assert len(calls) == 1
    assert calls[0].json["model"] == TEST_MODELS.triage
    requests = fake_openai.chat_requests()
    answer_call = next(r for r in requests if r.json["model"] == TEST_MODELS.chat)
    assert requests.index(calls[0]) > requests.index(answer_call)
    assert first.answer.content in calls[0].json["messages"][1]["content"]


def test_without_a_usable_title_the_first_words_stay(tmp_path, fake_openai):
    replies = iter(
        [
            Reply(status=400, error_message="the server refused"),
            Reply(text="```json\n{}\n```"),
            Reply(text="Sure! Here is a long sentence that answers the question " * 3),
        ]
    )

    def model(request: dict) -> Reply:
        return next(replies) if is_title_call(request) else fake_model(request)

    fake_openai.responder = model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            titles, statuses = [], []
            for _ in range(3):
                conversation = await assistant.conversations.create()
                turn = await assistant.orchestrator.send(conversation.id, QUESTION)
                jobs = await assistant.runner.wait_for(turn.job_ids, timeout=30)
                statuses += [j.status for j in jobs if j.kind == TITLE_JOB]
                titles.append((await assistant.conversations.get(conversation.id)).title)
            return titles, statuses

    titles, statuses = run(scenario())
    assert len(title_calls(fake_openai)) >= 3
    # Nothing to retry: the job ends done, and the title is the message's first words.
    assert statuses == [JobStatus.DONE] * 3
    assert titles == ["Could you help me plan a three day walking trip around the…"] * 3
    assert all(len(title) <= 60 for title in titles)


def test_a_rename_during_the_title_call_wins(tmp_path, fake_openai):
    title_asked = threading.Event()
    renamed = threading.Event()

    def model(request: dict) -> Reply:
        if is_title_call(request):
            title_asked.set()
            renamed.wait(timeout=30)  # the user renames while the model thinks
            return Reply(text="Lake trip")
        return fake_model(request)

    fake_openai.responder = model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            changed: list = []
            assistant.events.subscribe(ev.ConversationChanged, lambda e: changed.append(e))
            conversation = await assistant.conversations.create()
            turn = await assistant.orchestrator.send(conversation.id, QUESTION)
            await asyncio.to_thread(title_asked.wait, 30)
            await assistant.conversations.rename(conversation.id, "My holiday")
            renamed.set()
            jobs = await assistant.runner.wait_for(turn.job_ids, timeout=30)
            return jobs, changed, await assistant.conversations.get(conversation.id)

    jobs, changed, conversation = run(scenario())
    assert all(j.status == JobStatus.DONE for j in jobs)
    assert conversation.title == "My holiday"
    # The turn's news (first words), the rename's; none from the title job.
    assert [e.conversation.title for e in changed] == [title_from_words(QUESTION), "My holiday"]


def test_a_named_chat_is_never_titled_by_the_model(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            # A chat named before its first message (as imported chats come, named).
            conversation = await assistant.conversations.create(title="Imported: trip ideas")
            turn = await assistant.orchestrator.send(conversation.id, QUESTION)
            jobs = await assistant.runner.wait_for(turn.job_ids, timeout=30)
            return jobs, await assistant.conversations.get(conversation.id)

    jobs, conversation = run(scenario())
    assert TITLE_JOB not in [j.kind for j in jobs]
    assert conversation.title == "Imported: trip ideas"
    assert title_calls(fake_openai) == []


def test_a_model_title_is_one_short_line_of_plain_text():
    assert clean_model_title("**Trip   planning**\nmore text") == "Trip planning"
    assert clean_model_title('Title: "Budget review".') == "Budget review"
    assert "<" not in clean_model_title("<b>Budget</b> review")
    assert clean_model_title("\x1b[31mRed\x00 alert") == "31mRed alert"
    assert clean_model_title("") is None
    assert clean_model_title("```\n") is None
    assert clean_model_title('```json\n{"title": "Budget review"}\n```') == "Budget review"
    assert clean_model_title('{"answer": 42}') is None
    assert clean_model_title("word " * 20) is None
    long = clean_model_title("Supercalifragilistic " * 3 + "expialidocious words")
    assert long is not None and len(long) <= 60 and "\n" not in long


def test_first_words_title_keeps_the_users_first_words():
    assert first_words_title("I'm vegetarian. Any dinner ideas?") == "I'm vegetarian"
    assert first_words_title(QUESTION) == "Could you help me plan…"
    assert first_words_title("What is the capital of France?") == "What is the capital of France?"
    assert first_words_title("  hello \n there  ") == "hello there"
    long = first_words_title("Pneumonoultramicroscopicsilicovolcanoconiosis" * 3)
    assert len(long) <= 60
    assert first_words_title("") == ""


def test_a_title_must_name_something_of_the_first_exchange():
    question = "I'm vegetarian. Any dinner ideas?"
    assert not grounded_title("I'm sorry for your loss. I hope you're well", question)
    assert not grounded_title("The user lives in Porto", question, "Try a lentil stew.")
    assert grounded_title("Vegetarian dinner ideas", question)
    assert grounded_title("Lentil stew recipe", question, "Try a lentil stew.")
    assert grounded_title("Lake District walks", QUESTION, "The lakes are lovely in May.")


def test_the_built_in_model_titles_with_the_first_words_and_no_call(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    first = "I'm vegetarian and I live in Porto, so what could I cook for friends tonight?"

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            titles = TitleProcessor(
                assistant.orchestrator.answers.client,
                assistant.orchestrator.turns.conversations,
                assistant.events,
                first_words_only=True,
            )
            conversation = await assistant.conversations.create()
            turn = await assistant.orchestrator.send(conversation.id, first)
            retitled = await titles.title_from_first_exchange(turn.user_message.id)
            return retitled, await assistant.conversations.get(conversation.id)

    retitled, conversation = run(scenario())
    assert retitled is not None
    assert conversation.title == "I'm vegetarian and I live…"  # not "…live in…"
    assert not conversation.title_auto
    assert title_calls(fake_openai) == []


def test_a_title_that_names_nothing_said_is_refused(tmp_path, fake_openai):
    def model(request: dict) -> Reply:
        if is_title_call(request):
            return Reply(text="I'm sorry for your loss. I hope you're well")
        return fake_model(request)

    fake_openai.responder = model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            conversation = await assistant.conversations.create()
            turn = await assistant.orchestrator.send(conversation.id, QUESTION)
            jobs = await assistant.runner.wait_for(turn.job_ids, timeout=30)
            return jobs, await assistant.conversations.get(conversation.id)

    jobs, conversation = run(scenario())
    assert len(title_calls(fake_openai)) == 1
    assert [j.status for j in jobs if j.kind == TITLE_JOB] == [JobStatus.DONE]
    assert conversation.title == title_from_words(QUESTION)  # the first words stay
