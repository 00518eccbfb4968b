"""Projects (issue 26): a fact taught in one project's chat never reaches another
project's prompts or *Sources*, at any retrieval depth; promoting it makes it seen
everywhere, demoting hides it again; a chat outside any project sees what is outside
every project; a project's custom instructions and default model."""

from __future__ import annotations

import pytest

from acai_desktop.core.conversations.chat_settings import SettingScope
from acai_desktop.core.conversations.custom_instructions import InstructionsScope
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.retrieval import RetrievedMemory, RetrievedMessage
from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.store.projects import DEMOTED, PROMOTED
from acai_lab.scripted_model import call_kind, fake_model
from tests.core.conftest import TEST_MODELS
from tests.support.aio import run
from tests.support.assistant import running_assistant

TAUGHT_IN_A = "I am allergic to kiwifruit. I live in Zanzibar."
LEARNED_IN_A = {"The user is allergic to kiwifruit", "The user lives in Zanzibar"}
ASKED_IN_B = "Kiwifruit or Zanzibar: what do you know about allergic living?"
DEEP = 1_000  # "any retrieval depth": more than every item of the profile
HANDBOOK_A = "# Orchard plan\n\nThe kiwifruit orchard in Zanzibar opens in spring.\n"


def chat_prompts(server) -> list[str]:
    """Everything each answer's prompt carried, as one text per answer."""
    return [
        "\n".join(m["content"] for m in r.json["messages"])
        for r in server.chat_requests()
        if call_kind(r.json) == "chat" and r.json["model"] == TEST_MODELS.chat
    ]


def ids_of(hits) -> tuple[set[int], set[int]]:
    memories = {h.memory.id for h in hits if isinstance(h, RetrievedMemory)}
    messages = {h.message.id for h in hits if isinstance(h, RetrievedMessage)}
    return memories, messages


def test_a_fact_taught_in_one_project_never_reaches_another(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    handbook = tmp_path / "orchard.md"
    handbook.write_text(HANDBOOK_A, encoding="utf-8")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            projects = assistant.projects
            a, b = await projects.create("Garden"), await projects.create("Taxes")
            report = await assistant.documents.add([handbook])
            await assistant.runner.wait_for(report.job_ids, timeout=60)
            (document,) = await assistant.documents.list()
            await assistant.documents.set_project(document.id, a.id)
            chat_a = await assistant.conversations.create(project_id=a.id)
            taught = await assistant.orchestrator.send(chat_a.id, TAUGHT_IN_A)
            await assistant.runner.wait_for(taught.job_ids, timeout=60)
            learned = await assistant.memories.list(MemoryFilter(kinds=["fact"]))
            allergy = next(m for m in learned if "kiwifruit" in m.content)
            await assistant.memories.pin(allergy.id)  # pinned memories are a path too
            a_messages = {m.id for m in await assistant.conversations.messages(chat_a.id)}

            chat_b = await assistant.conversations.create(project_id=b.id)
            asked_b = await assistant.orchestrator.send(chat_b.id, ASKED_IN_B)
            sources_b = await assistant.conversations.answer_sources(asked_b.answer.id)
            outside = await assistant.conversations.create()
            asked_outside = await assistant.orchestrator.send(outside.id, ASKED_IN_B)
            deep = {
                name: ids_of(await assistant.retriever.search(ASKED_IN_B, DEEP, scope=scope))
                for name, scope in (
                    ("b", ProjectScope(b.id)),
                    ("outside", ProjectScope(None)),
                    ("a", ProjectScope(a.id)),
                )
            }
            pinned_b = await assistant.retriever.pinned(ProjectScope(b.id))

            promoted = await projects.promote(allergy.id)
            await projects.promote(allergy.id)  # already everywhere: nothing recorded
            after_promote = ids_of(
                await assistant.retriever.search(ASKED_IN_B, DEEP, scope=ProjectScope(b.id))
            )
            promoted_turn = await assistant.orchestrator.send(chat_b.id, "Anything on kiwifruit?")
            demoted = await projects.demote(allergy.id)
            after_demote = ids_of(
                await assistant.retriever.search(ASKED_IN_B, DEEP, scope=ProjectScope(b.id))
            )
            demoted_turn = await assistant.orchestrator.send(chat_b.id, "Anything on kiwifruit?")
            history = [e.action for e in await assistant.memories.history(allergy.id)]
            await assistant.runner.wait_idle(timeout=60)
            return locals()

    r = run(scenario())
    a, _b = r["a"], r["b"]
    learned = [m for m in r["learned"] if m.content in LEARNED_IN_A]
    # What a project's chat learns belongs to the project.
    assert {m.content for m in learned} == LEARNED_IN_A
    assert {m.project_id for m in learned} == {a.id}
    a_memories = {m.id for m in learned}

    # Another project's chat, and a chat outside any project: not in their prompts...
    asked_b, asked_outside = r["asked_b"], r["asked_outside"]
    prompts = chat_prompts(fake_openai)
    for prompt in prompts[1:3]:
        assert "allergic to kiwifruit" not in prompt and "lives in Zanzibar" not in prompt
        assert TAUGHT_IN_A not in prompt and "orchard" not in prompt.lower()
    # ... nor in their Sources (memories, recalled messages, document passages) ...
    for turn in (asked_b, asked_outside):
        used = {s.memory_id for s in turn.memories_used} | {
            s.recalled_message_id for s in turn.memories_used
        }
        assert not used & (a_memories | r["a_messages"])
        assert turn.evidence_used == []
    assert not [row for row, _ in r["sources_b"].rows if row.memory_id in a_memories]
    # ... at any depth: a search for every item finds none of them, pinned or not ...
    for scope_name in ("b", "outside"):
        memories, messages = r["deep"][scope_name]
        assert not memories & a_memories and not messages & r["a_messages"]
    assert r["pinned_b"] == []
    # ... while the project's own chat finds them (the filter is not a blanket one).
    memories, messages = r["deep"]["a"]
    assert a_memories <= memories and messages & r["a_messages"]

    # Promoted: everywhere (seen in B's search and prompt); demoted: hidden again.
    allergy = r["allergy"]
    assert r["promoted"].project_id is None and r["demoted"].project_id == a.id
    assert allergy.id in r["after_promote"][0]
    assert "allergic to kiwifruit" in prompts[3]
    assert allergy.id in {s.memory_id for s in r["promoted_turn"].memories_used}
    assert allergy.id not in r["after_demote"][0]
    # (B's history now holds the answer that used it: the memory itself is not offered.)
    assert allergy.id not in {s.memory_id for s in r["demoted_turn"].memories_used}
    assert r["history"][-2:] == [PROMOTED, DEMOTED] and r["history"].count(PROMOTED) == 1


def test_a_chat_outside_any_project_sees_what_is_outside_every_project(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            # Before any project exists, a scope changes nothing: the same hits.
            outside = await assistant.conversations.create()
            taught = await assistant.orchestrator.send(outside.id, "I live in Lisbon.")
            await assistant.runner.wait_for(taught.job_ids, timeout=60)
            everything = await assistant.retriever.search("Lisbon", DEEP)
            scoped = await assistant.retriever.search("Lisbon", DEEP, scope=ProjectScope(None))
            project = await assistant.projects.create("Work")
            in_project = await assistant.conversations.create(project_id=project.id)
            seen = await assistant.orchestrator.send(in_project.id, "Where do I live, Lisbon?")
            learned = await assistant.memories.list(MemoryFilter(kinds=["fact"]))
            return everything, scoped, seen, learned

    everything, scoped, seen, learned = run(scenario())
    assert [(h.rank, h.score) for h in everything] == [(h.rank, h.score) for h in scoped]
    assert ids_of(everything) == ids_of(scoped) and everything
    # What a chat outside any project learned is everywhere's: a project's chat sees it.
    (lisbon,) = [m for m in learned if "Lisbon" in m.content]
    assert lisbon.project_id is None
    assert lisbon.id in {s.memory_id for s in seen.memories_used}


def test_moving_a_chat_takes_its_memories_and_deleting_a_project_ungroups_or_forgets(
    tmp_path, fake_openai
):
    fake_openai.responder = fake_model
    handbook = tmp_path / "tea.md"
    handbook.write_text("# Tea\n\nGreen tea steeps for two minutes.\n", encoding="utf-8")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            projects = assistant.projects
            a, b = await projects.create("A"), await projects.create("B")
            chat = await assistant.conversations.create(project_id=a.id)
            taught = await assistant.orchestrator.send(chat.id, "I prefer green tea.")
            await assistant.runner.wait_for(taught.job_ids, timeout=60)
            (tea,) = await assistant.memories.list(MemoryFilter(kinds=["fact"]))
            moved = await projects.move_conversation(chat.id, b.id)
            moved_tea = await assistant.memories.get(tea.id)
            contents = await projects.contents(b.id)
            # Deleted with what it holds: its chat goes, its memory is forgotten.
            await projects.delete(b.id, with_contents=True)
            chats_left = [c.id for c in await assistant.conversations.list()]
            forgotten = await assistant.memories.get(tea.id)
            # Deleted alone: its chat, memory and document stay, seen everywhere.
            other = await assistant.conversations.create(project_id=a.id)
            taught = await assistant.orchestrator.send(other.id, "I live in Oslo.")
            await assistant.runner.wait_for(taught.job_ids, timeout=60)
            report = await assistant.documents.add([handbook])
            await assistant.runner.wait_for(report.job_ids, timeout=60)
            (document,) = await assistant.documents.list()
            await assistant.documents.set_project(document.id, a.id)
            await projects.delete(a.id)
            oslo = next(
                m
                for m in await assistant.memories.list(MemoryFilter(kinds=["fact"]))
                if "Oslo" in m.content
            )
            ungrouped = await assistant.conversations.get(other.id)
            (document,) = await assistant.documents.list()
            with pytest.raises(InvalidInputError):
                await projects.create("   ")
            return locals() | {"left": await projects.list()}

    r = run(scenario())
    assert r["moved"].project_id == r["moved_tea"].project_id == r["b"].id
    assert (r["contents"].chats, r["contents"].memories) == (1, 1)
    assert r["chat"].id not in r["chats_left"]
    forgotten = r["forgotten"]
    assert forgotten.status == MemoryStatus.FORGOTTEN and forgotten.project_id is None
    assert r["ungrouped"].project_id is None and r["oslo"].project_id is None
    assert r["oslo"].status == MemoryStatus.ACTIVE and r["document"].project_id is None
    assert r["left"] == []


def test_a_project_s_instructions_and_default_model(tmp_path, fake_openai):
    """Chat → project → profile, for the instructions and for the chat model."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            await assistant.instructions.set_profile("Answer in French.", "")
            project = await assistant.projects.create("Novel")
            await assistant.projects.set_instructions(project.id, "Answer as an editor.", "")
            with_model = await assistant.projects.set_default_model(project.id, " big-model ")
            chat = await assistant.conversations.create(project_id=project.id)
            other = await assistant.conversations.create()
            own = await assistant.conversations.create(project_id=project.id)
            await assistant.instructions.set_for_chat(own.id, "Answer in haiku.", "")
            await assistant.chat_settings.set_for_chat(own.id, model="small-model")
            turns = [
                await assistant.orchestrator.send(c.id, "Hello there.") for c in (chat, other, own)
            ]
            models = [await assistant.projects.default_model_for_chat(c.id) for c in (chat, other)]
            new_chat = await assistant.chat_settings.project_layer(None, project.id)
            effective = await assistant.chat_settings.in_effect(chat.id)
            return with_model, turns, models, new_chat, effective

    with_model, turns, models, new_chat, effective = run(scenario())
    in_project, outside, overridden = turns
    assert in_project.instructions.scope == InstructionsScope.PROJECT
    assert in_project.instructions.instructions.respond == "Answer as an editor."
    assert outside.instructions.scope == InstructionsScope.PROFILE
    assert overridden.instructions.scope == InstructionsScope.CHAT
    answers = [
        (r.json["model"], "\n".join(m["content"] for m in r.json["messages"]))
        for r in fake_openai.chat_requests()
        if call_kind(r.json) == "chat"
    ]
    # The project's chat answers with the project's model, the chat outside it with
    # the profile's, and a chat's own model wins over its project's.
    assert [model for model, _ in answers] == ["big-model", TEST_MODELS.chat, "small-model"]
    assert "Answer as an editor." in answers[0][1] and "Answer in French." not in answers[0][1]
    assert with_model.default_model == "big-model" and models == ["big-model", None]
    assert effective.scope_of("model") == SettingScope.PROJECT
    assert new_chat.model == "big-model"  # a new chat in the project, before it is sent


def test_learning_in_a_project_never_reads_nor_rewrites_another_s_facts(tmp_path, fake_openai):
    """The critical-info processor reconciles a new fact with the facts its chat sees:
    another project's never reach its prompts nor get replaced; a global one is not
    rewritten from a project's chat (the new wording stays the project's)."""
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            a, b = await assistant.projects.create("A"), await assistant.projects.create("B")
            outside = await assistant.conversations.create()
            for chat_project, text in (
                (None, "I work as a baker."),
                (a.id, "I live in Zanzibar."),
                (b.id, "I live in Lisbon."),
                (b.id, "I work as a pilot."),
            ):
                chat = outside
                if chat_project is not None:
                    chat = await assistant.conversations.create(project_id=chat_project)
                turn = await assistant.orchestrator.send(chat.id, text)
                await assistant.runner.wait_for(turn.job_ids, timeout=60)
            return a, b, await assistant.memories.list(MemoryFilter(kinds=["fact"]))

    a, b, facts = run(scenario())
    where = {m.content: (m.project_id, m.status) for m in facts}
    assert where["The user lives in Zanzibar"] == (a.id, MemoryStatus.ACTIVE)
    assert where["The user lives in Lisbon"] == (b.id, MemoryStatus.ACTIVE)
    assert where["The user works as baker"] == (None, MemoryStatus.ACTIVE)
    assert where["The user works as pilot"] == (b.id, MemoryStatus.ACTIVE)
    reconciling = [
        "\n".join(m["content"] for m in r.json["messages"])
        for r in fake_openai.chat_requests()
        if call_kind(r.json) == "reconcile"
    ]
    assert not [prompt for prompt in reconciling if "Zanzibar" in prompt]
