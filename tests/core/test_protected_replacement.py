"""A pinned or user-edited memory is never replaced without the user choosing: where
the built-in model's rules say a new fact replaces an old one (a new home, name or age,
core.rules.slots), whether a processor stores it or the user accepts it as a suggestion,
a protected old memory stays as it is and the new fact waits as a ``conflict`` for the
user's Use new / Keep old, as with a model's reconcile."""

from acai_desktop.core import events as ev
from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.core.store.memories import MemoryFilter
from acai_lab.scripted_model import call_counts, fake_model
from tests.support.aio import run
from tests.support.assistant import running_assistant

LISBON = "The user lives in Lisbon."


async def _lisbon_kept_by_the_user(memories, how: str):
    home = await memories.remember(LISBON, category="Location", explicit=True)
    if how == "pinned":
        return await memories.pin(home.id)
    return await memories.edit(home.id, LISBON)  # the user's own wording


def _added(assistant) -> list:
    seen: list = []
    assistant.events.subscribe(ev.MemoryAdded, lambda event: seen.append(event.memory))
    return seen


def _scenario(tmp_path, fake_openai, *, how: str, ask: bool):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, ask_before_remembering=ask
        ) as assistant:
            assistant.critical_info.facts_by_rules = True
            memories = assistant.memories
            home = await _lisbon_kept_by_the_user(memories, how)
            added = _added(assistant)
            conversation = await assistant.conversations.create()
            message = await assistant.conversations.add_message(
                conversation.id, "user", "I moved to Porto."
            )
            outcome = await assistant.critical_info.process_message(message.id)
            if ask:
                [suggestion] = await assistant.suggestions.pending()
                new = await assistant.suggestions.accept(suggestion.id)
            else:
                [new] = outcome.stored
            kept = await memories.get(home.id)
            listed = await memories.list(MemoryFilter(statuses=None))
            resolved = await memories.resolve_conflict(new.id, keep="new")
            after = await memories.get(home.id)
            return new, kept, listed, added, resolved, after

    return run(scenario())


def _check(new, kept, listed, added, resolved, after, *, how: str):
    assert kept.content == LISBON and kept.status == MemoryStatus.ACTIVE
    assert kept.pinned is (how == "pinned")
    assert new.content == "The user moved to Porto."
    assert new.status == MemoryStatus.CONFLICT and new.meta["conflicts_with"] == kept.id
    assert {(m.content, m.status) for m in listed} == {
        (LISBON, MemoryStatus.ACTIVE),
        ("The user moved to Porto.", MemoryStatus.CONFLICT),
    }
    # Announced as what it is (the window says "Conflicts with what you pinned ...").
    assert [(m.id, m.status) for m in added] == [(new.id, MemoryStatus.CONFLICT)]
    # The user's choice, and only it, replaces the old home (the pin moves with it).
    assert resolved.status == MemoryStatus.ACTIVE and resolved.user_edited
    assert after.status == MemoryStatus.SUPERSEDED and after.superseded_by == new.id
    assert resolved.pinned is (how == "pinned")


def test_the_built_in_rules_flag_a_new_home_against_a_pinned_one(tmp_path, fake_openai):
    result = _scenario(tmp_path, fake_openai, how="pinned", ask=False)
    _check(*result, how="pinned")
    assert sum(call_counts(fake_openai).values()) == 0


def test_accepting_a_new_home_does_not_replace_a_pinned_one(tmp_path, fake_openai):
    """Remember on "The user moved to Porto." is a yes to that fact, not to dropping the
    pinned home: the rules found the old one, so the user decides it in the panel."""
    _check(*_scenario(tmp_path, fake_openai, how="pinned", ask=True), how="pinned")


def test_accepting_a_new_home_does_not_replace_an_edited_one(tmp_path, fake_openai):
    _check(*_scenario(tmp_path, fake_openai, how="edited", ask=True), how="edited")


def test_accepting_a_new_home_still_replaces_an_unprotected_one(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, ask_before_remembering=True
        ) as assistant:
            assistant.critical_info.facts_by_rules = True
            conversation = await assistant.conversations.create()
            accepted = []
            for text in ("I live in Lisbon.", "I moved to Porto."):
                message = await assistant.conversations.add_message(conversation.id, "user", text)
                await assistant.critical_info.process_message(message.id)
                [suggestion] = await assistant.suggestions.pending()
                accepted.append(await assistant.suggestions.accept(suggestion.id))
            return accepted, await assistant.memories.get(accepted[0].id)

    (_, porto), lisbon = run(scenario())
    assert porto.status == MemoryStatus.ACTIVE
    assert lisbon.status == MemoryStatus.SUPERSEDED and lisbon.superseded_by == porto.id
