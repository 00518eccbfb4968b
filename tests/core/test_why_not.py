""" "Why didn't you use …?" (issue 43, item 2) against a real profile: real SQLite, the
real WordLlama embedder, a real turn answered by the scripted server. One question, and
one memory cut by each cause, each replayed as of the question and told apart."""

from __future__ import annotations

import json

import pytest

from acai_desktop.core.records.memories import Actor, MemoryStatus
from acai_desktop.core.why_not.fixes import apply_fix
from acai_desktop.core.why_not.result import FixAction, ItemKind, Reason
from acai_desktop.core.why_not.service import why_not_of
from acai_lab.scripted_openai import Reply
from tests.support.aio import run
from tests.support.assistant import running_assistant

QUESTION = "How long does the warranty on my dishwasher last?"
USED = "My dishwasher warranty lasts until March 2027."
# Holds the question's words, but long: the memories' share of a 3,000-token budget
# (450 tokens) has no room for it once the best memory is in.
LONG = (
    "The dishwasher warranty paperwork from the shop is in the kitchen drawer, "
    + "together with the manuals, the receipts and the spare parts list. " * 40
).strip()
# Shares one word with the question, one that many memories hold (it weighs little),
# and means something else.
BELOW = "The long hallway cupboard holds the receipts folder."
FORGOTTEN = "The dishwasher warranty covers the pump."
SUPERSEDED = "My dishwasher warranty ends in 2025."
SUPERSEDED_BY = "The extended dishwasher guarantee ends in 2029."
OTHER_PROJECT = "The dishwasher warranty is registered at the Lisbon flat."
NEVER_REACHED = "My cat's name is Pixel."
# Close in meaning to the question (home appliances, repairs, purchases), so that the
# search's 50 nearest memories leave the cat out, and none shares its words.
FILLERS = [
    f"{thing} {detail}"
    for thing in (
        "The fridge",
        "The oven",
        "The washing machine",
        "The microwave",
        "The boiler",
        "The freezer",
        "The kettle",
        "The toaster",
        "The vacuum cleaner",
        "The tumble dryer",
        "The coffee machine",
        "The cooker hood",
    )
    for detail in (
        "was repaired by a technician",
        "came with a service plan",
        "needs a new filter soon",
        "was bought at the appliance store",
        "makes a strange noise",
        "took a long time to arrive",
    )
]


def test_each_cause_is_told_apart(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="I'm not sure.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            memories = assistant.memories

            async def note(text: str) -> int:
                return (await memories.remember(text, explicit=True)).id

            ids = {}
            for filler in FILLERS:
                await note(filler)
            for name, text in (
                ("used", USED),
                ("over_budget", LONG),
                ("below_floor", BELOW),
                ("forgotten", FORGOTTEN),
                ("superseded", SUPERSEDED),
                ("other_scope", OTHER_PROJECT),
                ("not_found", NEVER_REACHED),
            ):
                ids[name] = await note(text)
            await memories.forget(ids["forgotten"])
            newer = await memories.propose_change(
                ids["superseded"], SUPERSEDED_BY, actor=Actor.USER
            )
            garden = await assistant.projects.create("Garden")
            await assistant.projects.demote(ids["other_scope"], garden.id)
            chat = await assistant.conversations.create()
            await assistant.chat_settings.set_for_chat(chat.id, context_budget_tokens=3000)
            turn = await assistant.orchestrator.send(chat.id, QUESTION)
            why = why_not_of(assistant)
            found = {
                name: await why.explain(turn.answer.id, ItemKind.MEMORY, memory_id)
                for name, memory_id in ids.items()
            }
            # Pasted words find the memory they were copied from.
            pasted = await why.explain_words(turn.answer.id, "hallway cupboard receipts")
            nothing = await why.explain_words(turn.answer.id, "zeppelin quasar")
            # The fixes change nothing until applied; applied, they do what they say.
            before = await memories.get(ids["forgotten"])
            restore = next(f for f in found["forgotten"].fixes if f.action == FixAction.RESTORE)
            await apply_fix(restore, memories, assistant.projects, assistant.documents)
            restored = await memories.get(ids["forgotten"])
            every = next(f for f in found["other_scope"].fixes if f.action == FixAction.EVERY_CHAT)
            await apply_fix(every, memories, assistant.projects, assistant.documents)
            promoted = await memories.get(ids["other_scope"])
            return found, newer, pasted, nothing, before, restored, promoted, ids

    found, newer, pasted, nothing, before, restored, promoted, ids = run(scenario())
    reasons = {name: result.reason for name, result in found.items()}
    assert reasons == {name: Reason(name) for name in found}, {
        name: (r.reason.value, r.sentence) for name, r in found.items()
    }

    used = found["used"]
    assert used.rank == 1 and used.score > 0 and "It was used" in used.sentence
    assert "dishwasher" in used.sentence and not used.fixes

    over = found["over_budget"]
    # Second: the newer wording of the superseded memory, also used.
    assert over.rank == 3 and over.evidence >= over.floor == 1.0
    assert "15% of this chat's 3,000-token budget" in over.sentence
    assert [f.action for f in over.fixes] == [FixAction.PIN]

    below = found["below_floor"]
    # Past the first 6 memories, a memory needs strong evidence (1.75 bars).
    assert below.rank == 16 and below.floor == 1.75 and below.evidence < 1.0
    assert "below the relevance floor" in below.sentence
    assert "shares “long” with the question" in below.sentence
    assert FixAction.PIN in [f.action for f in below.fixes]
    note = next(f for f in below.fixes if f.action == FixAction.NOTE)
    assert note.text.startswith(BELOW) and "warranty" in note.text and "dishwasher" in note.text

    assert found["forgotten"].rank is None and "You forgot it" in found["forgotten"].sentence
    assert before.status == MemoryStatus.FORGOTTEN and restored.status == MemoryStatus.ACTIVE

    assert SUPERSEDED_BY in found["superseded"].sentence
    assert f"memory #{newer.id}" in found["superseded"].sentence

    other = found["other_scope"]
    assert "the project “Garden”" in other.sentence and "outside any project" in other.sentence
    assert [f.action for f in other.fixes] == [FixAction.EVERY_CHAT]  # no project here
    assert promoted.project_id is None

    missed = found["not_found"]
    assert (missed.rank, missed.score, missed.floor) == (None, None, None)
    assert "shares no word with the question" in missed.sentence

    assert pasted.item.kind == ItemKind.MEMORY and pasted.item.id == ids["below_floor"]
    assert pasted.reason == Reason.BELOW_FLOOR and pasted.pasted == "hallway cupboard receipts"
    assert nothing.item is None and nothing.reason == Reason.NOT_FOUND

    # The JSON the command line prints.
    shape = json.loads(json.dumps(below.to_dict()))
    assert {"reason", "rank", "score", "floor", "evidence", "sentence", "fixes"} <= set(shape)
    assert shape["reason"] == "below_floor" and shape["item"]["kind"] == "memory"


@pytest.mark.parametrize("asked_later", [False, True])
def test_what_was_remembered_after_the_question_is_not_found(tmp_path, fake_openai, asked_later):
    fake_openai.responder = lambda request: Reply(text="Noted.")

    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            chat = await assistant.conversations.create()
            early = await assistant.memories.remember(USED, explicit=True)
            turn = await assistant.orchestrator.send(chat.id, QUESTION)
            later = await assistant.memories.remember(FORGOTTEN, explicit=True)
            if asked_later:  # a second question: the later memory is now in time
                turn = await assistant.orchestrator.send(chat.id, QUESTION)
            why = why_not_of(assistant)
            return (
                await why.explain(turn.answer.id, "memory", early.id),
                await why.explain(turn.answer.id, "memory", later.id),
            )

    early, later = run(scenario())
    assert early.reason == Reason.USED
    if asked_later:
        assert later.reason == Reason.USED
    else:
        assert later.reason == Reason.NOT_FOUND
        assert "remembered after this question was asked" in later.sentence


PARKING = "Where did I park the car at the airport?"
PARKED = "I parked the car on level 3 of the airport garage."
DINNER = "We had pasta with friends for dinner on Friday."
PARKED_TEMPORARY = "I parked the car at the airport on level 5, near the lifts."
PARKED_GARDEN = "The airport car park ticket is in the garden shed."
PARKED_FORGOTTEN = "I parked at the airport long-stay lot last winter."
GUIDE = (
    "# Travel notes\n\n## Airport parking\n\nThe airport garage has five levels; the car "
    "park ticket is paid at the machine by the lifts.\n\n## Bread\n\nBake the sourdough "
    "loaf at 220 degrees for forty minutes, with a tray of water below it.\n"
)
GARDEN_GUIDE = "# Shed\n\n## Airport parking\n\nThe airport parking card hangs in the shed.\n"


def test_messages_and_passages_are_told_apart_too(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="On level 3, I think.")
    guide, garden_guide = tmp_path / "travel.md", tmp_path / "shed.md"
    guide.write_text(GUIDE, encoding="utf-8")
    garden_guide.write_text(GARDEN_GUIDE, encoding="utf-8")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            conversations, memories = assistant.conversations, assistant.memories
            report = await assistant.documents.add([guide, garden_guide])
            await assistant.runner.wait_for(report.job_ids, timeout=60)
            garden = await assistant.projects.create("Garden")
            documents = {d.name: d for d in await assistant.documents.list()}
            await assistant.documents.set_project(documents["shed.md"].id, garden.id)

            async def said(chat_id: int, text: str) -> int:
                return (await conversations.add_message(chat_id, "user", text)).id

            ids = {}
            earlier = (await conversations.create("Trip")).id
            ids["used"] = await said(earlier, PARKED)
            # In a chat of its own: next to a message that passes, it would pass too.
            ids["below_floor"] = await said((await conversations.create("Dinner")).id, DINNER)
            temporary = (await conversations.create("Quick", temporary=True)).id
            ids["temporary"] = await said(temporary, PARKED_TEMPORARY)
            in_garden = (await conversations.create("Shed", project_id=garden.id)).id
            ids["other_project"] = await said(in_garden, PARKED_GARDEN)
            winter = (await conversations.create("Winter")).id
            ids["forgotten"] = await said(winter, PARKED_FORGOTTEN)
            learned = await memories.remember(
                "The user parks in the airport long-stay lot", sources=[ids["forgotten"]]
            )
            await memories.forget(learned.id)
            await memories.episodes.embed_missing()
            chat = await conversations.create()
            first = await assistant.orchestrator.send(chat.id, "Hello, I'm back from my trip.")
            ids["history"] = first.user_message.id
            turn = await assistant.orchestrator.send(chat.id, PARKING)
            ids["later"] = await said(earlier, "I will park on level 4 next time.")
            why = why_not_of(assistant)
            found = {
                name: await why.explain(turn.answer.id, ItemKind.MESSAGE, message_id)
                for name, message_id in ids.items()
            }
            chunks = {}
            for name, document in documents.items():
                for passage in await assistant.documents.passages(document.id):
                    chunks[(name, passage.heading.rsplit(" > ", 1)[-1])] = passage.chunk_id
            passages = {
                key: await why.explain(turn.answer.id, ItemKind.PASSAGE, chunk_id)
                for key, chunk_id in chunks.items()
            }
            return found, passages, learned

    found, passages, learned = run(scenario())
    told = {name: (r.reason.value, r.sentence) for name, r in found.items()}
    assert {name: r.reason for name, r in found.items()} == {
        "used": Reason.USED,
        "below_floor": Reason.BELOW_FLOOR,
        "temporary": Reason.OTHER_SCOPE,
        "other_project": Reason.OTHER_SCOPE,
        "forgotten": Reason.FORGOTTEN,
        "history": Reason.USED,
        "later": Reason.NOT_FOUND,
    }, told
    assert found["used"].rank is not None and "It was used" in found["used"].sentence
    assert "of the past messages" in found["below_floor"].sentence
    assert "temporary chat" in found["temporary"].sentence
    assert "the project “Garden”" in found["other_project"].sentence
    assert [f.action for f in found["other_project"].fixes] == [FixAction.NOTE]
    restore = found["forgotten"].fixes[0]
    assert (restore.action, restore.memory_id) == (FixAction.RESTORE, learned.id)
    assert "history" in found["history"].sentence
    assert "written after this question" in found["later"].sentence

    told = {key: (r.reason.value, r.sentence) for key, r in passages.items()}
    assert passages[("travel.md", "Airport parking")].reason == Reason.USED, told
    assert passages[("travel.md", "Bread")].reason == Reason.BELOW_FLOOR, told
    shed = passages[("shed.md", "Airport parking")]
    assert shed.reason == Reason.OTHER_SCOPE and "shed.md" in shed.sentence, told
    assert [f.action for f in shed.fixes] == [FixAction.EVERY_CHAT]


def test_a_local_only_memory_the_turn_withheld_says_so(tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text="I can't see it.")
    profile = tmp_path / "profile"
    profile.mkdir()
    # The scripted server, on 127.0.0.1, is said to run in the cloud (a proxy).
    (profile / "model-table.json").write_text(
        json.dumps({"servers": {fake_openai.base_url: {"where": "the cloud"}}}), encoding="utf-8"
    )

    async def scenario():
        async with running_assistant(profile, fake_openai, start_jobs=False) as assistant:
            secret = await assistant.memories.remember(USED, explicit=True)
            await assistant.memories.set_local_only(secret.id, True)
            turn = await assistant.orchestrator.send(None, QUESTION)
            why = why_not_of(assistant)
            return turn, await why.explain(turn.answer.id, ItemKind.MEMORY, secret.id)

    turn, found = run(scenario())
    assert turn.withheld and found.reason == Reason.WITHHELD
    assert "withheld: local only; the answering model runs in the cloud" in found.sentence
    assert not found.fixes  # what stays on this computer is the user's choice
