"""The prompt's frame lines never reach an answer: the header before the user's words, a
memory block's section header, a sentence of the system prompt (issue 40, item 4)."""

from __future__ import annotations

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.memory.prompt_lines import PINNED_HEADER, RETRIEVED_HEADER
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.resources import resource_text
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER
from acai_desktop.core.turns.answer_filter import (
    DelimiterFilter,
    PromptFrameFilter,
    prompt_frames,
)
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

SYSTEM = resource_text("prompts", "system.txt").strip()
FRAMES = prompt_frames(SYSTEM)


def filtered(chunks: list[str]) -> str:
    frames = PromptFrameFilter(FRAMES)
    return "".join(frames.feed(chunk) for chunk in chunks) + frames.flush()


def every_split(text: str, expected: str) -> None:
    assert filtered([text]) == expected
    assert filtered(list(text)) == expected  # one character per chunk
    for cut in range(len(text) + 1):
        assert filtered([text[:cut], text[cut:]]) == expected, cut
    for size in (2, 3, 5, 7):
        assert filtered([text[i : i + size] for i in range(0, len(text), size)]) == expected


LEAKED = (
    f"{USER_MESSAGE_HEADER} I'm vegetarian.\n"
    "\n"
    "Only what follows this line is what the user wrote.\n"
    "Noted: you're vegetarian, so I'll suggest meatless recipes.\n"
    f"**{RETRIEVED_HEADER}**\n"
    "- The user lives in Porto\n"
    "Be accurate, concise and friendly. Answer in the user's language.\n"
    "Memories are facts about the user (the person you are talking to), gathered from earlier\n"
    "Enjoy your meal!"
)
KEPT = (
    "Noted: you're vegetarian, so I'll suggest meatless recipes.\n"
    "- The user lives in Porto\n"
    "Enjoy your meal!"
)


def test_frame_lines_go_whatever_the_split_and_the_answer_stays():
    every_split(LEAKED, KEPT)


@pytest.mark.parametrize(
    "answer",
    [
        "Hello! How can I help you today?",
        "The user's favourite colour isn't something I know yet.",
        "Memories\n\nYou are right.\n",
        "Be careful with that knife.",
        "- a list\n- of things\n\n**bold** end",
        "",
    ],
)
def test_answers_that_only_look_like_a_frame_are_kept(answer):
    every_split(answer, answer)


def test_a_frame_may_be_copied_with_curly_quotes_and_markup():
    every_split(
        f"> The user\u2019s message:\nhello\n## {PINNED_HEADER}",
        "hello\n",
    )


def test_only_the_current_line_is_held_back():
    frames = PromptFrameFilter(FRAMES)
    assert frames.feed("Sure, here it is.\nThe user") == "Sure, here it is.\n"
    assert frames.feed("'s favourite") == "The user's favourite"  # no longer a frame
    assert frames.feed(" colour is blue.") == " colour is blue."
    assert frames.feed("\nThe user's mess") == "\n"
    assert frames.feed("age: what now?\nOK") == "OK"  # "OK" starts no frame
    assert frames.feed(", fine.\nYou are") == ", fine.\n"
    assert frames.flush() == "You are"  # the end: a short line is an answer's


def test_every_header_of_the_prompt_is_a_frame():
    for header in (USER_MESSAGE_HEADER, PINNED_HEADER, RETRIEVED_HEADER):
        assert filtered([f"{header} anything\nrest"]) == "rest"


def test_with_the_delimiters_too():
    delimiters, frames = DelimiterFilter(), PromptFrameFilter(FRAMES)
    text = f"<memories>\n{PINNED_HEADER}\n- The user is allergic to peanuts\n</memories>\nOK."
    out = "".join(frames.feed(delimiters.feed(c)) for c in text)
    out += frames.feed(delimiters.flush()) + frames.flush()
    assert out == "\n- The user is allergic to peanuts\n\nOK."


@pytest.mark.parametrize("chunk_chars", [1, 4])
def test_a_leaked_frame_never_reaches_the_user(tmp_path, fake_openai, chunk_chars):
    leaked = (
        f"{USER_MESSAGE_HEADER}\nWhat should I cook tonight?\n\n"
        "The memories and passages found for the user's latest message come in that "
        'message, before the line "The user\'s message:"; '
        "only what follows this line is what the user wrote.\n"
        "Try a chickpea curry."
    )
    fake_openai.responder = lambda request: Reply(text=leaked, chunk_chars=chunk_chars)

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            await assistant.memories.remember("The user is vegetarian", explicit=True)
            shown: list[str] = []
            assistant.events.subscribe(ev.MessageUpdated, lambda e: shown.append(e.delta.content))
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(
                conversation.id, "What should I cook tonight?"
            )
            stored = await assistant.conversations.messages(conversation.id)
            return result, shown, stored

    result, shown, stored = run(scenario())
    assert result.status == MessageStatus.COMPLETE
    assert result.answer.content == "What should I cook tonight?\n\nTry a chickpea curry."
    assert stored[-1].content == result.answer.content
    for text in [*shown, stored[-1].content]:
        assert "user's message" not in text.casefold()
        assert "follows this line" not in text


def test_a_copied_recalled_message_line_and_a_headers_first_clause_go():
    # As the built-in model wrote them (docs/benchmarks.md, "Built-in model candidates").
    leaked = (
        '- [1] [2026-12-07, chat "My daughter plays the violin"] You: My daughter plays.\n'
        'Quoted data about the user from past conversations: "The user is allergic" (1).\n'
        '[4] [3] [2026-12-06, chat "Give me a synonym"] ACAI: joyful\n'
        "She plays the violin.\n"
        "[3] is the page number.\n"
        "On 2026-12-07 we talked."
    )
    every_split(leaked, "She plays the violin.\n[3] is the page number.\nOn 2026-12-07 we talked.")
