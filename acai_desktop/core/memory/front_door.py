"""The memory's one front door: :class:`Memory`, for the window (``assistant.memories``),
the command line, the MCP server and the evaluations alike.

Its verbs: ``get``, ``list``, ``count``, ``remember`` (add), ``edit``, ``pin``,
``set_local_only``, ``forget``, ``restore``, ``history`` and ``sources`` (those of
:class:`MemoryService`, which validates, embeds, writes and announces), and the ones
that need more than the rows: :meth:`Memory.search` (the one search of memories: the
ranking that feeds the assistant's answers, over memories alone), :meth:`Memory.recall`
(past messages, by the same ranking), :meth:`Memory.intake` (a fact another tool hands
in: ground -> the same fact already? -> suggest or store, core.memory.intake),
``suggestions`` (facts waiting for the user's yes) and :meth:`Memory.to_json`. The
memory panel's search by topic and meaning (``near_in_meaning``) is not a search of its
own: it says which memories the panel's listing shows beside those holding the words.

:func:`memory_on` is the one place a :class:`Memory` is put together, over a store
already open (the assistant builds its own with it); :func:`open_memory` opens a
profile's memory and nothing else, for the commands and tools that need only that. It
takes no profile lock: its writes are ordinary transactions, safe beside a running app.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.intake import FactIntake, IntakeOutcome, Via, extraction_prompt
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.retrieval import (
    HybridRetriever,
    RetrievalWeights,
    RetrievedMemory,
    RetrievedMessage,
)
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.memory.suggestions import MemorySuggestions
from acai_desktop.core.memory.vector_index import VectorIndex
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.profile.store_opening import open_profile_store
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.rules.grounding import GroundingCheck
from acai_desktop.core.store.interface import MemoryStore as Store
from acai_desktop.core.store.local_only import LocalOnly, local_only_items
from acai_desktop.core.store.memories import MemoryFilter

__all__ = ["Memory", "MemoryFilter", "Via", "memory_on", "open_memory"]

#: Recall reads this many hits of the whole ranking, then keeps the messages among them.
RECALL_DEPTH = 50


class Memory(MemoryService):
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        events: EventBus,
        index: VectorIndex,
        policy: MemoryPolicy | None = None,
        *,
        asks_first: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__(store, embedder, events, index, policy)
        #: Facts waiting for the user's yes ("Ask before remembering").
        self.suggestions = MemorySuggestions(store, self, events)
        #: The rule every fact comes in by (the learner uses its steps one by one).
        self.fact_intake = FactIntake(
            self, GroundingCheck(extraction_prompt()), self.suggestions, asks_first
        )
        #: The assistant's ranking over memories and past messages: what a turn's
        #: prompt is built from (core.turns.prompt_assembly), and recall.
        self.retriever = HybridRetriever(store, embedder, index, messages=self.episodes.index)
        self._memories_only = HybridRetriever(
            store,
            embedder,
            index,
            messages=self.episodes.index,
            weights=RetrievalWeights(episodic=0.0),
        )

    async def search(
        self, query: str, k: int = 10, scope: ProjectScope | None = None
    ) -> list[RetrievedMemory]:
        """The ``k`` memories the assistant itself would retrieve for ``query``, best
        first (``scope``: those a chat of that project sees). Recalled messages are not
        memories to list, edit or pin: see :meth:`recall`."""
        _check_query(query, k)
        hits = await self._memories_only.search(query, k, scope=scope)
        return [hit for hit in hits if isinstance(hit, RetrievedMemory)]

    async def recall(
        self, query: str, k: int = 5, scope: ProjectScope | None = None
    ) -> list[RetrievedMessage]:
        """Messages of past conversations (imported ones included) that match
        ``query``, best first, as a turn would recall them."""
        _check_query(query, k)
        hits = await self.retriever.search(query, max(k, RECALL_DEPTH), scope=scope)
        return [hit for hit in hits if isinstance(hit, RetrievedMessage)][:k]

    async def intake(
        self, fact: str, evidence: str | None, via: Via, category: str | None = None
    ) -> IntakeOutcome:
        """A fact another tool hands in (core.memory.intake: :meth:`FactIntake.take`)."""
        return await self.fact_intake.take(fact, evidence, via, category)

    async def local_only(self) -> LocalOnly:
        """What is local only now: what another tool (the MCP server) must not be given,
        since it may hand it to a model that runs elsewhere."""
        return await self.store.run(local_only_items)

    @staticmethod
    def to_json(item: MemoryItem) -> dict:
        """A memory as the command line (``--json``) and other tools read it."""
        return item.to_public_dict()


def _check_query(query: str, k: int) -> None:
    if not query.strip():
        raise InvalidInputError("The search query is empty.")
    if k < 1:
        raise InvalidInputError("Ask for at least one result.")


async def memory_on(
    store: Store,
    embedder: Embedder,
    events: EventBus,
    policy: MemoryPolicy | None = None,
    *,
    reembed: bool = True,
    asks_first: Callable[[], bool] = lambda: False,
) -> Memory:
    """The memory over ``store`` with its index loaded; ``reembed`` False leaves
    vectors from another embedder to :meth:`MemoryService.reembed_stale` (the assistant
    runs it in the background). ``asks_first``: whether "Ask before remembering" is on."""
    memory = Memory(
        store, embedder, events, VectorIndex(embedder.dimensions), policy, asks_first=asks_first
    )
    await memory.load_index(reembed=reembed)
    return memory


@asynccontextmanager
async def open_memory(
    profile: Profile,
    *,
    embedder: Embedder | None = None,
    policy: MemoryPolicy | None = None,
    events: EventBus | None = None,
    reembed: bool = True,
) -> AsyncIterator[Memory]:
    """The profile's memory with the index loaded (and, with ``reembed``, stale
    embeddings redone); its store is closed on exit, whatever happens inside. "Ask
    before remembering" is read from the settings at each fact: the window may change
    it while this runs beside it."""
    if embedder is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    store = await open_profile_store(profile.ensure())
    try:
        yield await memory_on(
            store,
            embedder,
            events or EventBus(),
            policy,
            reembed=reembed,
            asks_first=lambda: _asks_first(profile),
        )
    finally:
        await store.close()


def _asks_first(profile: Profile) -> bool:
    from acai_desktop.core.models.settings import load_model_settings

    settings = load_model_settings(profile.settings_path)
    return settings is not None and settings.asks_before_remembering()
