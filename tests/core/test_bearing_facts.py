"""Lasting facts that bear on a kind of request reach its prompt without sharing a word
with it: "I'm vegetarian" for "What should I cook tonight?" (core.rules.bearings)."""

import pytest

from acai_desktop.core.memory.prompt_lines import BEARING_HEADER
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.rules.bearings import bearings_of, bears_on
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

FACTS = [
    "The user is vegetarian.",
    "The user's sister is vegan.",
    "The user likes jazz.",
    "The user lives in Porto.",
]


def _last_chat_prompt(server) -> str:
    streamed = [r for r in server.chat_requests() if r.json.get("stream")]
    return "\n".join(str(m["content"]) for m in streamed[-1].json["messages"])


def _ask(tmp_path, server, questions):
    """Each question in a new chat of a profile that holds FACTS; for each, the answer's
    sources (content, reasons) and the prompt the model read."""
    server.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, server) as assistant:
            ids = {}
            for fact in FACTS:
                ids[(await assistant.memories.remember(fact)).id] = fact
            seen = []
            for question in questions:
                conversation = await assistant.conversations.create()
                result = await assistant.orchestrator.send(conversation.id, question)
                assert result.status == MessageStatus.COMPLETE
                used = [(ids.get(u.memory_id), list(u.reasons)) for u in result.memories_used]
                seen.append((used, _last_chat_prompt(server)))
            return seen

    return run(scenario())


def test_a_diet_reaches_a_food_request_and_stays_out_of_others(tmp_path, fake_openai):
    (dinner, dinner_prompt), (python, python_prompt) = _ask(
        tmp_path,
        fake_openai,
        ["What should I cook for dinner tonight?", "How do I reverse a list in Python?"],
    )
    assert ("The user is vegetarian.", ["about your diet"]) in dinner
    assert BEARING_HEADER in dinner_prompt and "The user is vegetarian." in dinner_prompt
    # the sister's diet is hers; jazz and the city bear on nothing asked
    assert "The user's sister is vegan." not in dinner_prompt
    assert all(content != "The user likes jazz." for content, _ in dinner)
    assert python == []
    assert BEARING_HEADER not in python_prompt and "vegetarian" not in python_prompt


def test_where_the_user_lives_reaches_a_request_about_somewhere_near(tmp_path, fake_openai):
    [(near, prompt)] = _ask(tmp_path, fake_openai, ["Any good bakeries near me?"])
    contents = [content for content, _ in near]
    assert "The user lives in Porto." in contents and "The user is vegetarian." in contents
    assert ("The user lives in Porto.", ["about where you live"]) in near
    assert "The user lives in Porto." in prompt


def test_asked_what_it_knows_about_the_user_it_brings_what_it_knows(tmp_path, fake_openai):
    """Before, nothing matched "What do you know about me?" and the answer said nothing
    was known."""
    [(about_me, prompt)] = _ask(tmp_path, fake_openai, ["What do you know about me?"])
    active = [fact for fact in FACTS if fact != "The user likes jazz."]  # jazz: temporary
    assert sorted(about_me) == sorted((fact, ["about you"]) for fact in active)
    assert BEARING_HEADER in prompt and all(fact in prompt for fact in active)
    assert "jazz" not in prompt


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What should I cook for dinner tonight?", ["your diet"]),
        ("Any tips on what to bake for my colleagues?", ["your diet"]),
        ("Is it going to rain in my neighbourhood tomorrow? What's the weather?",
         ["where you live"]),
        ("What do you remember about me?", ["you"]),
        ("Who am I?", ["you"]),
        ("What do you know about my sister?", []),  # her facts share "sister"
        ("Do you know anything about Python?", []),
        ("How do I declare a local variable in Python?", []),
        ("Can you summarise this article?", []),
    ],
)  # fmt: skip
def test_the_kinds_of_request_a_question_is(question, kinds):
    assert [bearing.name for bearing in bearings_of(question)] == kinds


@pytest.mark.parametrize(
    ("fact", "bears"),
    [
        ("The user is vegetarian.", True),
        ("The user never eats pork.", True),
        ("The user is allergic to peanuts.", True),
        ("The user is no longer vegetarian.", True),  # what they eat now: it bears too
        ("The user's sister is vegan.", False),
        ("The user loves pork ribs.", False),  # a taste, found by its words anyway
        ("The user is allergic to cats.", False),  # no recipe is about cats
        ("Joanna is lactose intolerant.", False),  # someone else's, not the user's
        ("I'm allergic to peanuts, so no satay sauce please.", True),  # the user's note
        ("The user is looking for vegan recipes.", False),  # a wish, not a diet
        ("The user recently tried a vegan yogurt.", False),
        ("The user has a friend who is vegan.", False),
    ],
)
def test_which_facts_bear_on_a_food_request(fact, bears):
    [food] = bearings_of("dinner ideas?")
    assert bears_on(fact, food) is bears


def test_a_regenerated_answer_gets_no_diet_learned_after_its_question(tmp_path, fake_openai):
    fake_openai.script(*(Reply(text=f"Answer {n}.") for n in range(3)))
    dinner = "What should I cook for dinner tonight?"

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            conversation = await assistant.conversations.create()
            first = await assistant.orchestrator.send(conversation.id, dinner)
            await assistant.memories.remember("The user is vegetarian.", explicit=True)
            await assistant.orchestrator.retry(first.answer.id)
            control = await assistant.conversations.create()
            await assistant.orchestrator.send(control.id, dinner)

    run(scenario())
    streamed = [r for r in fake_openai.chat_requests() if r.json.get("stream")]
    regenerated, control = (
        "\n".join(str(m["content"]) for m in request.json["messages"]) for request in streamed[1:]
    )
    assert "vegetarian" not in regenerated  # the prompt as of the question
    assert "The user is vegetarian." in control
