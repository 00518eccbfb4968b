"""The memory's one front door (core/memory/front_door.py): ``open_memory`` for the
commands and tools, the same ``Memory`` the assistant builds; its search is of memories
only, its recall of messages only, and a fact comes in by one intake, whoever hands it
in (the learner or another tool)."""

from __future__ import annotations

from acai_desktop.core.memory.front_door import Memory, Via, open_memory
from acai_desktop.core.memory.intake import IntakeStatus
from acai_desktop.core.memory.retrieval import RetrievedMemory, RetrievedMessage
from acai_desktop.core.profile.paths import Profile
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.memory import shared_embedder


def test_search_finds_memories_and_recall_finds_messages(tmp_path):
    async def scenario():
        async with open_memory(Profile.at(tmp_path), embedder=shared_embedder()) as memory:
            await memory.remember("The user trains for the Lisbon marathon", explicit=True)
            via = Via("Claude Desktop")
            # The user's words become a message of the client's conversation, recalled
            # like any other; the fact they back becomes a memory.
            outcome = await memory.intake(
                "The user trains for the Porto half marathon",
                "I train for the Porto half marathon every weekend.",
                via,
            )
            return (
                outcome,
                await memory.search("marathon training", 5),
                await memory.recall("Porto half marathon", 5),
                await memory.history(outcome.memory.id),
            )

    outcome, found, recalled, history = run(scenario())
    assert outcome.status == IntakeStatus.REMEMBERED
    assert found and all(isinstance(hit, RetrievedMemory) for hit in found)
    assert {hit.memory.content for hit in found} >= {
        "The user trains for the Lisbon marathon",
        "The user trains for the Porto half marathon",
    }
    assert recalled and all(isinstance(hit, RetrievedMessage) for hit in recalled)
    assert recalled[0].message.conversation_title == "Claude Desktop (MCP)"
    assert any((event.after or {}).get("via") == "Claude Desktop via MCP" for event in history)


def test_the_assistant_and_its_learner_use_the_one_memory(tmp_path, fake_openai):
    async def scenario():
        async with running_assistant(tmp_path, fake_openai, start_jobs=False) as assistant:
            return assistant

    assistant = run(scenario())
    assert isinstance(assistant.memories, Memory)
    assert assistant.critical_info.intake is assistant.memories.fact_intake
    assert assistant.retriever is assistant.memories.retriever
    assert assistant.suggestions is assistant.memories.suggestions
