"""One rule for "the same fact" wherever a fact comes in (the learner, another tool's
``remember``): the same words, in a fact the chat sees, project by project."""

from __future__ import annotations

from acai_desktop.core.memory.intake import normalised
from tests.support.aio import run
from tests.support.assistant import running_assistant

GARDEN_FACT = "The user grows kiwifruit in the orchard."
EVERYWHERE_FACT = "The user lives in Zanzibar."


def test_the_same_words_are_the_same_fact_only_where_a_chat_sees_them(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            garden, taxes = (
                await assistant.projects.create("Garden"),
                await assistant.projects.create("Taxes"),
            )
            chat = await assistant.conversations.create(project_id=garden.id)
            in_garden = await assistant.memories.remember(
                GARDEN_FACT, conversation_id=chat.id, explicit=True
            )
            everywhere = await assistant.memories.remember(EVERYWHERE_FACT, explicit=True)
            intake = assistant.memories.fact_intake
            said_again = "the user grows KIWIFRUIT in the orchard!"
            return (
                in_garden.id,
                everywhere.id,
                await intake.same_fact(said_again, garden.id),
                await intake.same_fact(said_again, taxes.id),
                await intake.same_fact(said_again, None),
                await intake.same_fact(EVERYWHERE_FACT, taxes.id),
                await intake.same_fact("The user grows kiwifruit.", garden.id),
            )

    garden_id, everywhere_id, in_garden, in_taxes, outside, anywhere, other_words = run(scenario())
    assert in_garden is not None and in_garden.id == garden_id
    assert in_taxes is None and outside is None  # another project's fact is new there
    assert anywhere is not None and anywhere.id == everywhere_id
    assert other_words is None  # only the same words are the same fact without asking
    assert normalised("The user's  dog, Rex!") == "the user s dog rex"


def test_a_fact_is_grounded_in_the_users_words_and_refused_without_them(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            intake = assistant.memories.fact_intake
            return (
                await intake.grounded("The user lives in Zanzibar", "I live in Zanzibar now."),
                await intake.grounded("The user lives in Zanzibar", "What's the weather like?"),
            )

    said, unsaid = run(scenario())
    assert said.grounded and not unsaid.grounded
