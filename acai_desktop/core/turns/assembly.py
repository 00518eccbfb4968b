"""A profile's turn put together: its log, its prompt, its answer stream, and the
orchestrator that runs them, each set for the model the profile runs with."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.instructions_service import InstructionsService
from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.context_builder import prompt_shares
from acai_desktop.core.memory.fact_review import FactAges
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.models.chat_model import NoModelClient
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.prompt_warmer import PromptWarmer
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.routing.router import TurnRouter
from acai_desktop.core.routing.sight import ModelSight
from acai_desktop.core.routing.turn_meaning import turn_meaning_for
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns.answer_filter import prompt_frames
from acai_desktop.core.turns.answer_stream import AnswerStream
from acai_desktop.core.turns.orchestrator import Orchestrator
from acai_desktop.core.turns.prompt_assembly import PromptAssembly
from acai_desktop.core.turns.turn_images import TurnImages
from acai_desktop.core.turns.turn_log import TurnLog


async def profile_orchestrator(
    conversations: ConversationRepository,
    provenance: ProvenanceRepository,
    memories: Memory,
    client: ModelClient | NoModelClient,
    events: EventBus,
    *,
    settings: ModelSettings,
    has_model: bool,
    documents: DocumentService,
    attachments: ChatAttachments,
    instructions: InstructionsService,
    chat_settings: ChatSettingsService,
    router: TurnRouter | None = None,
    data_dir: Path | None = None,
) -> Orchestrator:
    """The turn of a profile whose model runs with ``settings`` (``has_model`` False:
    the model could not be started, ``client`` refuses every call); ``data_dir``: the
    profile's folder, where the user's model table says which models see images."""
    built_in = settings.uses_bundled_model()
    prompts = PromptAssembly(
        conversations,
        memories,
        memories.retriever,
        client,
        # The profile's budget as it stands for its chat model (automatic: its window).
        budget_tokens=(await chat_settings.in_effect(None)).context_budget_tokens,
        documents=documents,
        instructions=instructions,
        chat_settings=chat_settings,
        # A server on this machine keeps what it last read: the next prompt's known
        # start is read while the user reads and types (core.models.prompt_warmer).
        warmer=(
            PromptWarmer(client, events)
            if settings.serves_one_request_at_a_time() and isinstance(client, ModelClient)
            else None
        ),
        ages=FactAges(data_dir),
        **prompt_shares(built_in),
    )
    return Orchestrator(
        TurnLog(
            conversations,
            memories.episodes,
            events,
            attachments=attachments,
            chat_settings=chat_settings,
            # Without a model no job runs, so none is announced as queued either.
            announce_jobs=has_model,
        ),
        prompts,
        AnswerStream(
            conversations,
            provenance,
            memories,
            client,
            events,
            prompt_frames=prompt_frames(prompts.system_prompt),
            answer_max_tokens=settings.resolved_answer_max_tokens(),
        ),
        max_answer_bytes=round(settings.max_answer_mb * 1_000_000),
        asks_again_on_copy=built_in,
        answers_memory_commands=built_in,
        router=router,
        meaning=turn_meaning_for(memories.embedder),
        images=TurnImages(attachments),
        sight=ModelSight(data_dir),
    )
