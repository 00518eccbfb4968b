"""What each turn adds to a prompt the server has already read (issue 22, time to first
token over ten messages).

A server that keeps what it read (the built-in server's prompt cache) reads only what a
turn adds after the previous prompt and its answer. When the turn brings no data, that
is the user's words alone: the rule for a message without data is said once, in the
system prompt (the prompt's stable start), not in every turn. A note in each turn was
39 of the built-in model's tokens read again at every message, when the first message
read 18 in all."""

from __future__ import annotations

import itertools

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.resources import resource_text
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

QUESTIONS = (
    "Hi! I'm Sam.",
    "What could I cook for dinner tonight?",
    "Any tips for sleeping after a night shift?",
)
ANSWER = "Here is what I think."
NOTHING_REMEMBERED_RULE = "nothing relevant was remembered for it"


def chat_prompts(tmp_path, fake_openai) -> list[list[dict]]:
    fake_openai.responder = lambda request: Reply(text=ANSWER)

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            for question in QUESTIONS:
                result = await assistant.orchestrator.send(conversation.id, question)
                assert result.status == MessageStatus.COMPLETE

    run(scenario())
    return [
        request.json["messages"]
        for request in fake_openai.chat_requests()
        if request.json["model"] == "fake-chat"
    ]


def test_a_turn_with_nothing_remembered_adds_only_the_users_words(tmp_path, fake_openai):
    prompts = chat_prompts(tmp_path, fake_openai)
    assert len(prompts) == len(QUESTIONS)
    assert prompts[0][1:] == [{"role": "user", "content": QUESTIONS[0]}]
    for (before, after), question in zip(itertools.pairwise(prompts), QUESTIONS[1:], strict=True):
        assert after == [
            *before,
            {"role": "assistant", "content": ANSWER},
            {"role": "user", "content": question},
        ]


def test_the_system_prompt_says_once_what_a_message_without_data_means(tmp_path, fake_openai):
    prompts = chat_prompts(tmp_path, fake_openai)
    system = prompts[0][0]
    assert system["role"] == "system"
    assert NOTHING_REMEMBERED_RULE in system["content"]
    assert "don't invent" in system["content"]
    assert NOTHING_REMEMBERED_RULE in resource_text("prompts", "system.txt")
    # Said once: no turn repeats it.
    assert all(NOTHING_REMEMBERED_RULE not in m["content"] for p in prompts for m in p[1:])
