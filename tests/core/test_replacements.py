"""What the user has one of at a time (a home, a name, an age): a new fact about it
replaces the one before where no model weighs facts (core.rules.slots)."""

import pytest

from acai_desktop.core.memory.replacements import replaced_fact
from acai_desktop.core.rules.slots import slot_of
from acai_desktop.core.store.conversations import create_conversation
from acai_desktop.core.store.projects import create_project
from tests.support.aio import run
from tests.support.memory import memory_services


@pytest.mark.parametrize(
    ("fact", "slot"),
    [
        ("The user lives in Madrid.", "home"),
        ("The user moved to Berlin last month.", "home"),
        ("The user now lives in Berlin.", "home"),
        ("I'm based in Nairobi", "home"),
        ("The user's name is Ana.", "name"),
        ("My name is Ana", "name"),
        ("The user is 34 years old.", "age"),
        ("The user's sister lives in Ohio.", None),  # hers
        ("The user's dog is 3 years old.", None),
        ("The user grew up in Leeds.", None),  # where they were, not where they are
        ("The user moved the meeting to Friday.", None),
        ("The user is vegetarian.", None),
    ],
)
def test_the_slot_a_fact_fills(fact, slot):
    found = slot_of(fact)
    assert (found.name if found else None) == slot


def test_only_a_fact_of_the_same_slot_and_project_is_replaced(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (store, memories, _):
            project = await store.run(create_project, "Relocation")
            in_project = await store.run(create_conversation, "plans", project_id=project.id)
            outside = await store.run(create_conversation, "chat")
            madrid = await memories.remember(
                "The user lives in Madrid.", conversation_id=outside.id, explicit=True
            )
            await memories.remember(
                "The user loves jazz.", conversation_id=outside.id, explicit=True
            )
            return (
                await replaced_fact(store, "The user moved to Berlin.", outside.id),
                await replaced_fact(store, "The user moved to Berlin.", in_project.id),
                await replaced_fact(store, "The user lives in Madrid", outside.id),
                await replaced_fact(store, "The user loves blues.", outside.id),
                madrid,
            )

    moved, moved_in_project, same_again, taste, madrid = run(scenario())
    assert moved is not None and moved.id == madrid.id
    assert moved_in_project is None  # a project's chat rewrites nothing every chat sees
    assert same_again is None  # the same home said again replaces nothing
    assert taste is None  # tastes add up
