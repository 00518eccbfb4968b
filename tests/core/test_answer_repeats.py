"""An answer that copies an earlier answer to another message is asked once more without
that exchange in the prompt; what the model writes then stands (issue 40, item 4)."""

from __future__ import annotations

from acai_desktop.core import events as ev
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.turns.answer_repeats import copied_answer, without_exchange
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

FIRST = "Noted, you're vegetarian. I'll keep meat out of my suggestions."
SECOND = "How about a chickpea curry with rice tonight?"


def test_a_copy_is_an_earlier_answer_again_for_another_message():
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "I'm vegetarian."},
        {"role": "assistant", "content": FIRST},
        {"role": "user", "content": "What should I cook?"},
    ]
    assert copied_answer(messages, f"  {FIRST.upper()} ") == 2
    assert copied_answer(messages, SECOND) is None
    assert copied_answer(messages, "Sure.") is None  # short answers may repeat
    again = [*messages[:3], {"role": "user", "content": "I'm vegetarian."}]
    assert copied_answer(again, FIRST) is None  # the same question: no copy
    assert without_exchange(messages, 2) == [messages[0], messages[3]]


def _turns(tmp_path, fake_openai, replies, texts, copies_checked=True):
    queue = iter(replies)
    fake_openai.responder = lambda request: Reply(text=next(queue))

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            # As with the built-in model (assistant.py sets it for that model alone).
            assistant.orchestrator.asks_again_on_copy = copies_checked
            shown: list[str] = []
            assistant.events.subscribe(ev.MessageUpdated, lambda e: shown.append(e.delta.content))
            conversation = await assistant.conversations.create()
            results = [await assistant.orchestrator.send(conversation.id, t) for t in texts]
            return results, shown

    return run(scenario())


def test_a_copied_answer_is_asked_again_without_the_exchange(tmp_path, fake_openai):
    results, shown = _turns(
        tmp_path, fake_openai, [FIRST, FIRST, SECOND], ["I'm vegetarian.", "What should I cook?"]
    )
    assert [r.answer.content for r in results] == [FIRST, SECOND]
    assert results[1].status == MessageStatus.COMPLETE
    requests = [r.json["messages"] for r in fake_openai.chat_requests()]
    assert len(requests) == 3
    assert any(m["content"] == FIRST for m in requests[1])  # the copy's source
    assert all(m["content"] != FIRST for m in requests[2])  # asked without it
    assert shown[-1] == SECOND
    assert "" in shown[shown.index(FIRST) + 1 :]  # the copy's text was taken back


def test_what_the_model_writes_without_the_exchange_stands(tmp_path, fake_openai):
    results, _ = _turns(
        tmp_path, fake_openai, [FIRST, FIRST, FIRST], ["I'm vegetarian.", "What should I cook?"]
    )
    assert [r.answer.content for r in results] == [FIRST, FIRST]
    assert len(fake_openai.chat_requests()) == 3  # asked again once, not in a loop


def test_the_same_question_may_get_the_same_answer(tmp_path, fake_openai):
    results, _ = _turns(
        tmp_path, fake_openai, [FIRST, FIRST], ["I'm vegetarian.", "I'm vegetarian."]
    )
    assert [r.answer.content for r in results] == [FIRST, FIRST]
    assert len(fake_openai.chat_requests()) == 2


def test_other_models_answers_are_not_checked(tmp_path, fake_openai):
    results, _ = _turns(
        tmp_path,
        fake_openai,
        [FIRST, FIRST],
        ["I'm vegetarian.", "What should I cook?"],
        copies_checked=False,
    )
    assert [r.answer.content for r in results] == [FIRST, FIRST]
    assert len(fake_openai.chat_requests()) == 2
