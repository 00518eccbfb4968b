"""Turn after turn, the prompt a model server receives starts with the last turn's prompt:
a server that keeps what it read (llama.cpp's prompt cache, a provider's prompt caching)
then reads only the new messages, not the whole prompt again."""

from __future__ import annotations

import itertools

from acai_desktop.core.memory.prompt_history import CUT_TO_SHARE, history_room
from acai_desktop.core.memory.prompt_lines import MEMORY_BLOCK_PREAMBLE, MEMORY_BLOCK_START
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER, asked_text
from acai_desktop.core.turns.answer_filter import strip_delimiters
from acai_lab.scripted_openai import Reply
from tests.core.test_history_cut_steps import common_prefix
from tests.support.aio import run
from tests.support.assistant import running_assistant

FACTS = (
    "The user's sister Ana lives in Lisbon",
    "The user works night shifts as a nurse",
    "The user is learning the cello",
    "The user is allergic to peanuts",
    "The user prefers tea to coffee",
    "The user's favourite author is Ursula K. Le Guin",
)
QUESTIONS = (
    "Where does my sister Ana live?",
    "What do I do on night shifts?",
    "Which instrument am I learning, the cello?",
    "What am I allergic to, peanuts?",
    "Do I prefer tea or coffee?",
    "Who is my favourite author?",
)
TURNS = 14
BUDGET = 1500
#: Every answer is this long (about 90 tokens), so the history overflows a few times.
ANSWER = "Here is a fairly long answer that goes on about many things. " * 8


def chat_prompts(tmp_path, fake_openai) -> list[list[dict]]:
    fake_openai.responder = lambda request: Reply(text=ANSWER)

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, context_budget_tokens=BUDGET
        ) as assistant:
            for fact in FACTS:
                await assistant.memories.remember(fact, explicit=True)
            conversation = await assistant.conversations.create()
            for turn in range(TURNS):
                question = QUESTIONS[turn % len(QUESTIONS)]
                result = await assistant.orchestrator.send(conversation.id, question)
                assert result.status == MessageStatus.COMPLETE

    run(scenario())
    return [
        request.json["messages"]
        for request in fake_openai.chat_requests()
        if request.json["model"] == "fake-chat"
    ]


def test_each_prompt_starts_with_the_whole_previous_prompt_and_its_answer_except_at_a_few_cuts(
    tmp_path, fake_openai
):
    """The previous question goes back as it was sent, its data too (messages stored
    "as sent", m015): a prompt that resent it without its data changed right after the
    last-but-one answer, and the server read the previous answer again (issue 22)."""
    prompts = chat_prompts(tmp_path, fake_openai)
    assert len(prompts) == TURNS
    cuts = 0
    for before, after in itertools.pairwise(prompts):
        shared = common_prefix(before, after)
        # The whole prompt of the turn before (its question with its data) starts the
        # next prompt, then that turn's answer...
        if shared == len(before):
            assert after[shared] == {"role": "assistant", "content": ANSWER}
            continue
        # ...but at a cut, where the oldest messages left: only the system message stays.
        cuts += 1
        assert shared == 1 and after[1] != before[1]
    room = history_room(prompts[0][0]["content"], BUDGET)
    # A turn now costs its question as sent (with its data) and its answer.
    turn_tokens = estimate_message_tokens(ANSWER) + max(
        estimate_message_tokens(prompt[-1]["content"]) for prompt in prompts
    )
    assert 1 <= cuts <= TURNS * turn_tokens // int(room * (1 - CUT_TO_SHARE)) + 1


def test_the_memories_found_for_a_question_come_after_the_history(tmp_path, fake_openai):
    prompts = chat_prompts(tmp_path, fake_openai)
    with_memories = 0
    for turn, prompt in enumerate(prompts):
        # The system message is the same in every turn: no memory in it.
        assert prompt[0] == prompts[0][0]
        assert f'"{USER_MESSAGE_HEADER}"' in prompt[0]["content"]  # it says where words start
        assert MEMORY_BLOCK_PREAMBLE not in prompt[0]["content"]
        # Past turns' data is in the history as those turns sent it (checked below);
        # nothing found for this question is.
        last = prompt[-1]
        assert last["role"] == "user"
        assert asked_text(last["content"]) == QUESTIONS[turn % len(QUESTIONS)]
        if MEMORY_BLOCK_START in last["content"]:
            with_memories += 1
            # The block is quoted data, closed before the user's own words.
            data, _, asked = last["content"].partition(f"\n\n{USER_MESSAGE_HEADER}\n")
            assert data.startswith(MEMORY_BLOCK_START) and data.endswith("</memories>")
            assert strip_delimiters(asked) == asked
        # Each question in the history is word for word what an earlier prompt sent.
        sent_before = [p[-1]["content"] for p in prompts[:turn]]
        assert all(m["content"] in sent_before for m in prompt[1:-1] if m["role"] == "user")
    assert with_memories >= TURNS // 2
