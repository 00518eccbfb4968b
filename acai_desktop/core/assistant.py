"""The assistant as one object: every core service of a profile, wired and running.

Start-up and shut-down are explicit steps (FeelUOwn's lesson): :func:`open_assistant`
opens the database, loads the memory index, starts the local model server when the
provider is Local, creates the one model client, and starts the job runner;
:meth:`Assistant.close` undoes all of it in reverse order and leaves no process behind.
The GUI and the ``chat`` command both build the assistant here, so they can't drift.
Everything happens under the profile's lock, taken first; the GUI asks for
``model_required=False`` so a model that can't be started (damaged settings, a refused
key) leaves the data usable and every model call failing with a clear NoModelError.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from acai_desktop.core.conversations.chat_import.service import ConversationImports
from acai_desktop.core.conversations.chat_settings import EffectiveSettings
from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.instructions_service import InstructionsService
from acai_desktop.core.conversations.service import ConversationService
from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import AcaiError, ModelError
from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.fact_learner import FactLearner
from acai_desktop.core.learning.job_runner import JobRunner
from acai_desktop.core.learning.profile_jobs import (
    MODEL_FREE_JOBS,
    profile_job_runner,
    profile_learners,
)
from acai_desktop.core.learning.summary_learner import SummaryLearner
from acai_desktop.core.memory.fact_review import FactReview
from acai_desktop.core.memory.front_door import Memory, memory_on
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.models.chat_model import NoModelClient, NoModelError
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.detection import Detect
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.models.learning_server import (
    PauseDuringTurns,
)
from acai_desktop.core.models.local_server import LocalModelServer
from acai_desktop.core.models.model_status import (
    ANY_NAME_SERVES,
    PICK_IN_CHAT,
    ModelState,
    ModelStatus,
    check_model_name,
    probe_model,
    status_of_error,
)
from acai_desktop.core.models.settings import (
    ModelSettings,
)
from acai_desktop.core.models.start import (
    StartedModel,
    no_model,
    start_model,
)
from acai_desktop.core.models.window_probe import ContextWindows
from acai_desktop.core.profile.data import ProfileData, open_profile_data
from acai_desktop.core.profile.lock import ProfileLock
from acai_desktop.core.profile.outside_changes import OutsideChanges
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.server_check import is_store_lost
from acai_desktop.core.projects.service import ProjectService
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.core.routing.router import TurnRouter, profile_router
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import JobRepository
from acai_desktop.core.store.provenance import ProvenanceRepository
from acai_desktop.core.turns.assembly import profile_orchestrator
from acai_desktop.core.turns.orchestrator import Orchestrator

log = logging.getLogger(__name__)


@dataclass
class Assistant:
    profile: Profile
    #: What the model runs with (without a model: what is saved, else the defaults).
    settings: ModelSettings
    events: EventBus
    client: ModelClient | NoModelClient
    memories: Memory  # the front door every caller uses (core.memory.front_door)
    retriever: HybridRetriever
    #: Read, start, rename, delete, search and export conversations (and announce it).
    conversations: ConversationService
    runner: JobRunner
    orchestrator: Orchestrator
    critical_info: FactLearner
    summary: SummaryLearner
    suggestions: MemorySuggestions
    #: The user's documents: add, list, remove, re-index, search, per-chat scope.
    documents: DocumentService
    #: Files attached in a chat's composer: documents of that chat only.
    attachments: ChatAttachments
    #: Conversations imported from other assistants, and the learning they queued.
    imports: ConversationImports
    #: The user's custom instructions (profile and per chat); only the user writes them.
    instructions: InstructionsService
    #: Each chat's own model, temperature and context budget, and what a chat runs with.
    chat_settings: ChatSettingsService
    #: Projects: create, rename, delete, move a chat, promote or keep a memory to one.
    projects: ProjectService
    #: The facts past their lifetime, to ask the user about (core/memory/fact_review.py).
    review: FactReview
    #: The storage below the services: the core's own (``_``: never the UI's, see
    #: tests/ui/test_service_boundary.py). The database under its lock, as opened first,
    #: is closed with the assistant.
    _store: Store
    _conversation_repository: ConversationRepository
    _provenance: ProvenanceRepository
    _jobs: JobRepository
    _data: ProfileData
    local_server: LocalModelServer | None = None
    #: The built-in model's second server, for background learning (None: learning asks
    #: the chat's server), its client, and what stops it while the user waits.
    learning_server: LocalModelServer | None = None
    learning_client: ModelClient | None = None
    learning_pause: PauseDuringTurns | None = None
    #: Shown to the user once (e.g. "API key stored in a plain file").
    warnings: list[str] = field(default_factory=list)
    #: Why there is no model (``open_assistant(model_required=False)``); None when there is.
    model_problem: NoModelError | None = None
    #: The index upkeep after start-up (see :meth:`MemoryService.upkeep_after_start`).
    upkeep: asyncio.Task | None = None
    #: Follows what another process (the MCP server, an import) writes to the profile.
    outside_changes: asyncio.Task | None = None
    #: Held while open: one running assistant per profile.
    lock: ProfileLock | None = None
    #: Each model's context window, as its server said (an automatic budget follows it).
    context_windows: ContextWindows | None = None

    @property
    def model_name(self) -> str | None:
        """The badge's text, "<chat model> · <provider>"; None without a model."""
        if self.model_problem is not None:
            return None
        return f"{self.settings.model_for('chat')} · {self.settings.provider}"

    def model_name_for(self, settings: EffectiveSettings) -> str | None:
        """The badge's text for a chat running with ``settings``; None without a model."""
        if self.model_problem is None and settings.model:
            return f"{settings.model} · {self.settings.provider}"
        return None

    def names_matter(self) -> bool:
        """Whether the server's model names mean anything (a llama.cpp server, the
        built-in one, answers to any name with the one model it loaded)."""
        return self.settings.provider not in ANY_NAME_SERVES

    def chat_model_status(self, probe: ModelStatus, settings: EffectiveSettings) -> ModelStatus:
        """The chip's state for a chat running with ``settings``, from the probe of the
        server (its listing): the chat's own model name is checked like the profile's."""
        if self.model_problem is not None or probe.state == ModelState.CHECKING:
            return probe
        own = settings.own_model is not None
        if not own and probe.state == ModelState.UNKNOWN_MODEL:
            return probe  # the profile's model, as the probe found it
        return check_model_name(
            probe,
            settings.model,
            provider=self.settings.provider,
            base_url=getattr(self.client, "base_url", ""),
            next_step=PICK_IN_CHAT if own else probe.next_step or "",
        )

    async def check_model(self) -> ModelStatus:
        """Can the model answer? Why it could not start, else what its server says to
        a models listing (cheap: no tokens). Never raises a ModelError."""
        if self.model_problem is not None:
            return status_of_error(self.model_problem)
        assert isinstance(self.client, ModelClient)
        return await probe_model(self.client)

    async def retry_jobs(self, job_ids: list[int]) -> list[Job]:
        """Queue failed jobs again, and run jobs waiting for a later retry now; without
        a model they run once one is connected."""
        runner = self.runner if self.model_problem is None else self._jobs
        return await runner.retry(job_ids)

    async def waiting_jobs(self) -> list[Job]:
        """Background work that failed (the model was down) or waits for a later retry."""
        return await self._jobs.list([JobStatus.FAILED, JobStatus.PENDING])

    async def close(self) -> None:
        """Stop background work, then the model client and server, then the database.

        A step that fails is logged and the next still runs: the database must be
        closed and the model server stopped whatever happened before."""
        for task in (self.upkeep, self.outside_changes):
            if task is not None:
                task.cancel()
        steps = [self._await_upkeep, self.runner.stop]
        if self.context_windows is not None:
            steps.append(self.context_windows.aclose)
        if self.orchestrator.prompts.warmer is not None:
            steps.append(self.orchestrator.prompts.warmer.close)
        if self.orchestrator.routed.router is not None:
            steps.append(self.orchestrator.routed.router.close)
        if self.learning_pause is not None:
            steps.append(self._end_learning_pause)
        steps += [self.conversations.delete_temporary, self.client.close]
        if self.learning_client is not None:
            steps.append(self.learning_client.close)
        for server in (self.learning_server, self.local_server):
            if server is not None:
                steps.append(server.stop)
        for step in steps:
            try:
                await step()
            except Exception as error:
                name = getattr(step, "__qualname__", step)
                if is_store_lost(error):  # the server went away: said once, no traceback
                    log.warning("shut-down step %s skipped: %s", name, error)
                else:
                    log.exception("shut-down step %s failed", name)
        try:
            await self._store.close()
        finally:
            if self.lock is not None:
                self.lock.release()

    async def _end_learning_pause(self) -> None:
        assert self.learning_pause is not None
        self.learning_pause.close()

    async def _await_upkeep(self) -> None:
        for task in (self.upkeep, self.outside_changes):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def open_assistant(
    profile: Profile,
    overrides: ModelOverrides | None = None,
    *,
    model_required: bool = True,
    start_jobs: bool = True,
    events: EventBus | None = None,
    data: ProfileData | None = None,
    offline_embedder: Embedder | None = None,
    choose_first: bool = True,
    learning_beside_turns: bool = True,
    detect: Detect | None = None,
) -> Assistant:
    """Build every service of ``profile``, under the profile's lock.

    The lock is taken (and the database opened) first, before the settings are read:
    nothing of the profile is touched by a process that doesn't hold it.

    ``model_required``: when False, a model that can't be started (damaged settings,
    the local extra missing, a refused key) gives an assistant whose client answers
    every call with :class:`NoModelError` (``Assistant.model_problem`` says why) instead
    of raising; the data stays usable. ``data``: the profile's database, already opened
    under its lock (the window opens it first to show the data while the rest starts);
    the assistant owns it once this returns, and if this raises it stays the caller's.
    ``offline_embedder``: the WordLlama embedder to use when the settings choose it (or
    there is no model), already loaded by an earlier assistant of this process; it holds
    only read-only weights, so any number of assistants may share it.
    ``choose_first``: on a first start, take what detection proposes (the command line);
    the window asks the user first and passes False (no settings: no model).
    ``learning_beside_turns``: on the built-in model, background learning gets a server
    of its own at the lowest priority, so the user's turns never wait for it (the
    window). Pass False where learning is the foreground work (a one-shot ``chat
    --wait-jobs``, ``jobs run``): there a second server would only cost its start, and
    at the lowest priority it waits for spare CPU, which a busy machine never has;
    learning then shares the chat's server, at its priority. ``detect``: how the router
    looks for model servers on this computer (None: the real probes; tests point it at
    scripted ones)."""
    overrides = overrides or ModelOverrides()
    events = events or EventBus()
    owns_data = data is None
    if data is None:
        data = await open_profile_data(profile)
    model = None
    try:
        try:
            model = await start_model(
                profile,
                overrides,
                offline_embedder,
                choose_first=choose_first,
                learning_beside_turns=learning_beside_turns,
            )
        except ModelError as error:
            if model_required:
                raise
            model = await no_model(profile, overrides, error, offline_embedder)
        router = None
        if model.problem is None:  # it asks nothing of any server until a turn routes
            router = await profile_router(profile, model.settings, model.client, overrides, detect)
        assistant = await _assemble(profile, data, model, events, router)
        if start_jobs:
            # Under the profile's lock, so the indexing jobs left running died with
            # the app: a second time, the document is not indexed again by itself.
            await assistant.documents.recover_interrupted()
            # A new chat's attachments, held when the app closed before it was sent.
            await assistant.attachments.drop_held()
            # Without a model, documents are still indexed: that needs only the
            # offline embedder.
            await assistant.runner.start(kinds=None if model.problem is None else MODEL_FREE_JOBS)
    except BaseException:
        if model is not None:
            await model.stop()
        if owns_data:
            await data.aclose()
        raise
    try:
        await assistant.conversations.delete_temporary()  # left by a crash
    except AcaiError as error:  # a busy or read-only database: they go next time
        log.warning("temporary chats kept for now: %s", error)
    # Vectors from another embedder (the user switched) are redone in the background
    # with progress events; until then those memories are found by their words. Not
    # without a model: the saved provider's vectors stay until it is reachable again.
    assistant.upkeep = asyncio.create_task(
        assistant.memories.upkeep_after_start(reembed=model.problem is None),
        name="index upkeep",
    )
    # The system prompt is read now: the session's first message reads only itself.
    assistant.orchestrator.prompts.warm_session_start()
    outside = OutsideChanges(assistant.memories, events, assistant.runner.wake)
    await outside.start()
    assistant.outside_changes = asyncio.create_task(outside.run(), name="outside changes")
    return assistant


async def _assemble(
    profile: Profile,
    data: ProfileData,
    model: StartedModel,
    events: EventBus,
    router: TurnRouter | None,
) -> Assistant:
    """Every service of the profile over its opened database and the model half."""
    store, client, embedder = data.store, model.client, model.embedder
    # Background learning's model calls: its own server on the built-in model.
    learner = model.learning_client or client
    asks_first = model.settings.asks_before_remembering
    memories = await memory_on(store, embedder, events, reembed=False, asks_first=asks_first)
    conversations = data.conversations
    windows = ContextWindows(
        model.settings.provider,
        client if isinstance(client, ModelClient) else None,
        built_in_n_ctx=model.local_server.n_ctx if model.local_server is not None else None,
    )
    # Asked now, answered while the documents load: the profile's budget needs it.
    windows.start(client.model_for("chat"))
    chat_settings = ChatSettingsService(
        store, model.settings.chat_defaults(client.model_for("chat")), windows
    )

    critical_info, summary, titles = profile_learners(
        learner,
        router,
        memories=memories,
        conversations=conversations,
        events=events,
        chat_settings=chat_settings,
        suggestions=memories.suggestions if asks_first() else None,
        built_in=model.settings.uses_bundled_model(),
        own_learning_server=model.learning_client is not None,
    )
    documents = DocumentService(store, embedder, events)
    await documents.load()
    attachments = ChatAttachments(documents, profile.attachments_dir)
    jobs = JobRepository(store)
    one_at_a_time = model.settings.serves_one_request_at_a_time()
    runner = profile_job_runner(
        jobs,
        events,
        critical_info=critical_info,
        summary=summary,
        titles=titles,
        index_document=documents.handle,
        learner=learner,
        one_at_a_time=one_at_a_time,
        own_learning_server=model.learning_client is not None,
    )
    instructions = InstructionsService(store, events)
    orchestrator = await profile_orchestrator(
        conversations,
        data.provenance,
        memories,
        client,
        events,
        settings=model.settings,
        has_model=model.problem is None,
        documents=documents,
        attachments=attachments,
        instructions=instructions,
        chat_settings=chat_settings,
        router=router,
        data_dir=profile.data_dir,
    )
    conversation_service = ConversationService(
        conversations, data.provenance, memories, events, attachments
    )
    # The summaries fold what the chat prompt has left out, so its start stays the same.
    summary.prompt_room = orchestrator.prompts.history_room()
    summary.chat_room = orchestrator.prompts.own_history_room  # a chat's own budget, its own fold
    return Assistant(
        profile=profile,
        settings=model.settings,
        events=events,
        client=client,
        memories=memories,
        retriever=memories.retriever,
        conversations=conversation_service,
        runner=runner,
        orchestrator=orchestrator,
        critical_info=critical_info,
        summary=summary,
        suggestions=memories.suggestions,
        documents=documents,
        attachments=attachments,
        instructions=instructions,
        chat_settings=chat_settings,
        projects=ProjectService(store, memories, events, conversation_service, documents),
        review=FactReview(memories, orchestrator.prompts.ages),
        imports=ConversationImports(store, memories, events, jobs, runner.wake),
        local_server=model.local_server,
        learning_server=model.learning_server,
        learning_client=model.learning_client,
        learning_pause=(
            PauseDuringTurns(model.learning_server, events)
            if model.learning_server is not None
            else None
        ),
        warnings=model.warnings,
        model_problem=model.problem,
        lock=data.lock,
        context_windows=windows,
        _store=store,
        _conversation_repository=conversations,
        _provenance=data.provenance,
        _jobs=jobs,
        _data=data,
    )
