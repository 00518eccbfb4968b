"""The prompt's block tags never reach an answer, and the prompt frames memories as facts
about the user (so the model doesn't speak as the user)."""

from __future__ import annotations

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.turns.answer_filter import DelimiterFilter, strip_delimiters
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

TAGS = ("<memories>", "</memories>", "<documents>", "</documents>")
ECHOED = (
    "Sure.<memories>\n- The user is allergic to peanuts\n</ Memories >"
    " and a < b, <b>bold</b>, <memo and ＜documents＞ end <"
)


def filtered(chunks: list[str]) -> str:
    delimiters = DelimiterFilter()
    return "".join(delimiters.feed(chunk) for chunk in chunks) + delimiters.flush()


def test_tags_go_whatever_the_split_and_other_text_stays():
    expected = "Sure.\n- The user is allergic to peanuts\n and a < b, <b>bold</b>, <memo and  end <"
    assert strip_delimiters(ECHOED) == expected
    assert filtered(list(ECHOED)) == expected  # one character per chunk
    for cut in range(len(ECHOED) + 1):
        assert filtered([ECHOED[:cut], ECHOED[cut:]]) == expected, cut
    for size in (2, 3, 5, 7):
        assert filtered([ECHOED[i : i + size] for i in range(0, len(ECHOED), size)]) == expected


@pytest.mark.parametrize("chunk_chars", [1, 3, 7])
def test_a_model_echoing_its_prompt_shows_no_delimiter(tmp_path, fake_openai, chunk_chars):
    def echo(request: dict) -> Reply:
        prompt = "\n".join(str(m["content"]) for m in request["messages"])
        return Reply(text=prompt, chunk_chars=chunk_chars)

    fake_openai.responder = echo

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            memory = await assistant.memories.remember(
                "The user is allergic to peanuts", explicit=True
            )
            await assistant.memories.pin(memory.id)
            shown: list[str] = []
            assistant.events.subscribe(ev.MessageUpdated, lambda e: shown.append(e.delta.content))
            conversation = await assistant.conversations.create()
            result = await assistant.orchestrator.send(conversation.id, "What am I allergic to?")
            return result, shown

    result, shown = run(scenario())
    sent = fake_openai.chat_requests()[-1].json["messages"][-1]["content"]
    assert "<memories>" in sent and "</memories>" in sent  # the echo really carried them
    assert result.status == MessageStatus.COMPLETE
    assert "allergic to peanuts" in result.answer.content
    for text in [result.answer.content, *shown]:
        assert not any(tag in text for tag in TAGS), text


def test_the_prompt_frames_memories_as_facts_about_the_user(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="You are allergic to peanuts.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            await assistant.memories.remember("The user is allergic to peanuts", explicit=True)
            conversation = await assistant.conversations.create()
            await assistant.orchestrator.send(conversation.id, "What am I allergic to?")

    run(scenario())
    messages = fake_openai.chat_requests()[-1].json["messages"]
    system = messages[0]["content"]
    assert "facts about the user" in system
    assert "never the user" in system
    assert "never write as if you were the user" in system
    turn = messages[-1]["content"]  # the turn's memories come with the question
    block = turn[turn.index("<memories>") : turn.index("</memories>")]
    # The system prompt says whose facts they are once; the block says it again, briefly.
    assert "facts about the user (the person you are talking to)" in system
    assert "Quoted data about the user" in block
