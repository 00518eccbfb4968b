"""What the window talks to: the assistant, or — when no model can be reached — the
same data services without one, so the user's conversations and memories stay
readable and every send ends with the reason on the answer row.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from acai_desktop.core.assistant import Assistant, ModelOverrides, open_assistant, resolve_settings
from acai_desktop.core.conversation_service import ConversationService
from acai_desktop.core.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.errors import (
    LocalModelUnavailableError,
    ModelError,
    ModelSettingsError,
    ModelUnauthorizedError,
)
from acai_desktop.core.events import EventBus
from acai_desktop.core.llm.settings import ModelSettings
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.orchestrator import Orchestrator
from acai_desktop.core.profile import Profile
from acai_desktop.core.store.conversations import ConversationRepository
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.ui.profile_data import ProfileData

log = logging.getLogger(__name__)


class UnavailableModel:
    """Stands in for the model client when it could not be started: every answer
    fails with the start-up error, so the orchestrator records it on the answer."""

    def __init__(self, error: ModelError) -> None:
        self.error = error

    async def stream_chat(self, messages, role: str = "chat"):
        raise ModelError(str(self.error))
        yield ""  # pragma: no cover - makes this an async generator

    def model_for(self, role: str) -> str | None:
        return None


def next_step(error: ModelError) -> str:
    if isinstance(error, ModelSettingsError):
        return "Open Settings to choose the provider again, then save."
    if isinstance(error, LocalModelUnavailableError):
        return (
            "Install the local extra (pip install 'acai-desktop[local]') or choose another "
            "provider in Settings, then press Try again."
        )
    if isinstance(error, ModelUnauthorizedError):
        return "Enter a valid API key for the provider in Settings, then press Try again."
    return "Start the model server or check its address in Settings, then press Try again."


def problem_text(error: ModelError) -> str:
    return (
        f"The model can't be used: {error}\n"
        f"Your conversations and memories are still here. {next_step(error)}"
    )


@dataclass
class GuiServices:
    profile: Profile
    events: EventBus
    store: Store
    conversations: ConversationRepository
    memories: MemoryService
    provenance: ProvenanceRepository
    orchestrator: Orchestrator
    model_name: str | None
    #: Renames and deletes conversations, and announces it.
    conversation_service: ConversationService
    #: The background jobs (failed ones are shown with Retry); queued even without a model.
    jobs: JobRepository
    assistant: Assistant | None = None
    #: Why there is no model, with the next step; None when the model is connected.
    model_problem: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: The database as the window opened it, when no assistant took it over.
    data: ProfileData | None = None

    async def retry_jobs(self, job_ids: list[int]) -> list:
        """Queue failed jobs again: they run now, or once a model is connected."""
        if self.assistant is not None:
            return await self.assistant.runner.retry(job_ids)
        return await self.jobs.revive_failed(job_ids)

    async def aclose(self) -> None:
        if self.assistant is not None:
            await self.assistant.close()
        elif self.data is not None:
            await self.data.aclose()
        else:
            await self.store.close()


async def open_gui_services(
    profile: Profile,
    overrides: ModelOverrides | None,
    events: EventBus,
    data: ProfileData,
) -> GuiServices:
    """Open the assistant; if its model can't be started, the data services without it.

    ``data``: the database the window already opened (:func:`open_profile_data`). The
    services own it once this returns; if this raises, it is still the caller's.
    """
    try:
        assistant = await open_assistant(
            profile, overrides, events=events, store=data.store, lock=data.lock
        )
    except ModelError as error:
        log.warning("model unavailable at start-up: %s", error)
        return await _open_without_model(data, overrides, events, error)
    settings = assistant.settings
    return GuiServices(
        profile=profile,
        events=events,
        store=assistant.store,
        conversations=assistant.conversations,
        memories=assistant.memories,
        provenance=assistant.provenance,
        orchestrator=assistant.orchestrator,
        model_name=f"{settings.model_for('chat')} · {settings.provider}",
        conversation_service=ConversationService(
            assistant.conversations, assistant.memories, events
        ),
        jobs=assistant.jobs,
        assistant=assistant,
        warnings=list(assistant.warnings),
    )


async def _open_without_model(
    data: ProfileData, overrides: ModelOverrides | None, events: EventBus, error: ModelError
) -> GuiServices:
    profile, store = data.profile, data.store
    embedder = WordLlamaEmbedder()
    memories = MemoryService(store, embedder, events, VectorIndex(embedder.dimensions))
    # No re-embedding: the saved provider's vectors stay until it is reachable again.
    await memories.load_index(reembed=False)
    conversations, provenance = data.conversations, data.provenance
    try:
        budget = (
            await resolve_settings(profile, overrides or ModelOverrides())
        ).context_budget_tokens
    except ModelSettingsError:
        budget = ModelSettings().context_budget_tokens  # the banner says what to fix
    orchestrator = Orchestrator(
        conversations=conversations,
        provenance=provenance,
        memories=memories,
        retriever=HybridRetriever(
            store, embedder, memories.index, messages=memories.episodes.index
        ),
        client=UnavailableModel(error),
        events=events,
        context_budget_tokens=budget,
    )
    return GuiServices(
        profile=profile,
        events=events,
        store=store,
        conversations=conversations,
        memories=memories,
        provenance=provenance,
        orchestrator=orchestrator,
        model_name=None,
        conversation_service=ConversationService(conversations, memories, events),
        jobs=JobRepository(store),
        model_problem=problem_text(error),
        data=data,
    )
