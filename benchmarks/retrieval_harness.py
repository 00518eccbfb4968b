"""``eval retrieval``: the retrieval evaluation harness over LoCoMo-format datasets.

Each sample goes into a fresh temporary profile through the app's own storage — no
language model involved. With ``unit="turns"`` each session becomes an ordinary
conversation whose turns are its messages (the speaker as the message's author, the
session's date as its date), found by episodic recall, as the app finds what was said
in past chats. With ``unit="observations"`` each observation fact is stored with
:meth:`MemoryService.remember_many` (validated, importance-scored, embedded, indexed)
with the messages of its dialogue ids as sources; those messages are stored as
ordinary conversations (their words find the facts learned from them, as in the app)
but the message tier is off (``episodic`` 0), so only the facts are ranked. Every
question (category 5, adversarial, excluded) is then answered by
:meth:`HybridRetriever.search` — the retrieval the orchestrator uses, or a variant of it
when ``HarnessOptions.variant`` tries an idea (see :mod:`.retrieval_variants`) — and it
is a hit at k when the top k items (a message, or a memory's sources) include any
(``recall_any``) or all (``recall_all``) of its evidence turns.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.front_door import memory_on
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.retrieval import RetrievalWeights, RetrievedMemory
from acai_desktop.core.memory.service import MemoryDraft, MemoryService
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memories import sources_of
from acai_desktop.core.store.store_url import open_store
from acai_desktop.evaluation.dataset_sessions import asked_at, store_sessions
from acai_desktop.evaluation.locomo import (
    ADVERSARIAL_CATEGORY,
    Dataset,
    Question,
    Sample,
)
from benchmarks.retrieval_variants import RetrievalVariant, build_retriever
from benchmarks.scratch_store import scratch_store

DEFAULT_KS = (1, 5, 10, 20)
UNITS = ("turns", "observations")
# Every memory is kept active: the harness measures retrieval, not the policy's choice
# of what to keep (small talk would otherwise stay temporary and out of reach).
KEEP_EVERYTHING = MemoryPolicy(long_term_threshold=0.0)


@dataclass(frozen=True)
class HarnessOptions:
    unit: str = "turns"
    ks: tuple[int, ...] = DEFAULT_KS
    weights: RetrievalWeights = field(default_factory=RetrievalWeights)
    # The app's ranking unless an idea is being tried (see retrieval_variants).
    variant: RetrievalVariant = field(default_factory=RetrievalVariant)
    # Also rank with each signal alone (COMPARED), in the same run, to print beside it.
    compare: bool = True
    # Also ask each sample's questions of another sample's profile, where nothing is
    # relevant, and count what passes the relevance floor (see FloorTally).
    off_topic: bool = True
    # A PostgreSQL server's URL: each sample's profile in a database of its own there
    # (benchmarks/scratch_store.py); None: a SQLite file, as the app keeps it.
    store: str | None = None


#: The signals the app's ranking fuses, each alone and plain (no boost for who said it,
#: when or how recently): BM25 over each item with its neighbours' words (a memory's
#: BM25 too, saturated, not the share of the query's weight the app weighs it by), and
#: the item's own cosine. The app's ranking must beat both.
ALONE = {
    "author": 0.0,
    "asker": 0.0,
    "on_date": 0.0,
    "answer_time": 0.0,
    "recency": 0.0,
    "importance": 0.0,
}
COMPARED = {
    "lexical": (RetrievalVariant(fusion="lexical", lexical_norm="saturate"), ALONE),
    "semantic": (
        RetrievalVariant(fusion="semantic"),
        {**ALONE, "message_vector_context": 0.0, "message_semantic": 1.0},
    ),
}
#: The relevance floor is measured over the top this many items (what a prompt takes).
FLOOR_K = 10


@dataclass
class _Tally:
    questions: int = 0
    any_hits: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    all_hits: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, ranked: Sequence[set[str]], evidence: set[str], ks: Sequence[int]) -> None:
        self.questions += 1
        for k in ks:
            found = set().union(*ranked[:k]) & evidence if ranked else set()
            self.any_hits[k] += bool(found)
            self.all_hits[k] += found == evidence

    def rates(self, ks: Sequence[int]) -> tuple[dict[str, float], dict[str, float]]:
        n = max(self.questions, 1)
        return (
            {str(k): round(self.any_hits[k] / n, 4) for k in ks},
            {str(k): round(self.all_hits[k] / n, 4) for k in ks},
        )


@dataclass
class FloorTally:
    """What passes the relevance floor among the top ``FLOOR_K`` items: how many items
    per question, and (real questions) how often the evidence is still among them."""

    questions: int = 0
    passing: int = 0
    any_hits: int = 0

    def add(self, hits: Sequence, ranked: Sequence[set[str]], evidence: set[str]) -> None:
        self.questions += 1
        kept = [dia_ids for hit, dia_ids in zip(hits, ranked, strict=True) if hit.relevant]
        self.passing += len(kept)
        self.any_hits += bool(set().union(*kept) & evidence) if kept else False

    def as_dict(self) -> dict:
        n = max(self.questions, 1)
        return {
            "questions": self.questions,
            "passing_per_question": round(self.passing / n, 3),
            "recall_any": round(self.any_hits / n, 4),
        }


@dataclass
class RankingTally:
    """Recall of one ranking, overall and per category."""

    overall: _Tally = field(default_factory=_Tally)
    per_category: dict[str, _Tally] = field(default_factory=dict)

    def add(self, category: str, ranked, evidence: set[str], ks: Sequence[int]) -> None:
        self.overall.add(ranked, evidence, ks)
        self.per_category.setdefault(category, _Tally()).add(ranked, evidence, ks)

    def as_dict(self, ks: Sequence[int]) -> dict:
        recall_any, recall_all = self.overall.rates(ks)
        return {
            "recall_any": recall_any,
            "recall_all": recall_all,
            "per_category": {
                category: dict(zip(("recall_any", "recall_all"), tally.rates(ks), strict=True))
                for category, tally in sorted(
                    self.per_category.items(), key=lambda c: (len(c[0]), c[0])
                )
            },
        }


@dataclass
class EvaluationResult:
    unit: str
    ks: tuple[int, ...]
    overall: _Tally
    per_category: dict[str, _Tally]
    latencies_ms: list[float]
    malformed_evidence: dict
    memories: int
    excluded: dict[str, int]
    # The questions with an evidence turn that some stored item carries: the others
    # cannot be hit at any depth (an observation set need not cite every turn a
    # question rests on), so their share is the ceiling of recall_any.
    reachable: _Tally = field(default_factory=_Tally)
    # Each signal alone (COMPARED), from the same run.
    compared: dict[str, RankingTally] = field(default_factory=dict)
    floor_real: FloorTally = field(default_factory=FloorTally)
    floor_off_topic: FloorTally = field(default_factory=FloorTally)

    def as_dict(self) -> dict:
        recall_any, recall_all = self.overall.rates(self.ks)
        per_category = {}
        for category in sorted(self.per_category, key=lambda c: (len(c), c)):
            tally = self.per_category[category]
            any_rates, all_rates = tally.rates(self.ks)
            per_category[category] = {
                "questions": tally.questions,
                "recall_any": any_rates,
                "recall_all": all_rates,
            }
        latencies = np.asarray(self.latencies_ms or [0.0])
        return {
            "unit": self.unit,
            "questions": self.overall.questions,
            "memories": self.memories,
            "recall_any": recall_any,
            "recall_all": recall_all,
            "per_category": per_category,
            "latency_ms": {
                "p50": round(float(np.percentile(latencies, 50)), 3),
                "p95": round(float(np.percentile(latencies, 95)), 3),
            },
            "malformed_evidence": self.malformed_evidence,
            "excluded": self.excluded,
            "reachable": {
                "questions": self.reachable.questions,
                "recall_any": self.reachable.rates(self.ks)[0],
            },
            "compared": {name: tally.as_dict(self.ks) for name, tally in self.compared.items()},
            "floor": {
                "k": FLOOR_K,
                "real": self.floor_real.as_dict(),
                "off_topic": self.floor_off_topic.as_dict(),
            },
        }


@dataclass
class IngestedSample:
    """A sample stored in a profile: the retriever's inputs and the way back to dia_ids."""

    store: Store
    service: MemoryService
    dia_ids_of_memory: dict[int, set[str]]
    dia_id_of_message: dict[int, str] = field(default_factory=dict)

    def stored_dia_ids(self) -> set[str]:
        """Every evidence turn some item of the profile carries."""
        return set(self.dia_id_of_message.values()).union(*self.dia_ids_of_memory.values())

    def dia_ids(self, hit) -> set[str]:
        if isinstance(hit, RetrievedMemory):
            return self.dia_ids_of_memory.get(hit.memory.id, set())
        dia_id = self.dia_id_of_message.get(hit.message.id)
        return {dia_id} if dia_id else set()


def observation_drafts(sample: Sample, message_of: dict[str, int]) -> list[MemoryDraft]:
    return [
        MemoryDraft(
            content=observation.text,
            kind=MemoryKind.FACT,
            sources=tuple(message_of[d] for d in observation.dia_ids),
            meta={"session_date": observation.session_date},
        )
        for observation in sample.observations
    ]


async def ingest(
    store: Store, service: MemoryService, sample: Sample, options: HarnessOptions
) -> IngestedSample:
    observations = options.unit == "observations"
    message_of = await store.run(store_sessions, sample, False)
    await service.episodes.embed_missing()
    dia_of_message = {message_id: dia_id for dia_id, message_id in message_of.items()}
    if not observations:
        return IngestedSample(store, service, {}, dia_of_message)
    drafts = observation_drafts(sample, message_of)
    items = await service.remember_many(drafts) if drafts else []
    sources = await store.run(sources_of, [item.id for item in items])
    dia_ids_of_memory = {
        memory_id: {dia_of_message[m] for m in message_ids}
        for memory_id, message_ids in sources.items()
    }
    return IngestedSample(store, service, dia_ids_of_memory)


def scored_questions(sample: Sample) -> tuple[list[Question], dict[str, int]]:
    """The questions retrieval is scored on, and how many were left out and why."""
    kept, excluded = [], {"adversarial": 0, "no_evidence": 0}
    for question in sample.questions:
        if question.category == ADVERSARIAL_CATEGORY:
            excluded["adversarial"] += 1
        elif not question.evidence:
            excluded["no_evidence"] += 1
        else:
            kept.append(question)
    return kept, excluded


async def score_sample(
    ingested: IngestedSample,
    sample: Sample,
    questions: Sequence[Question],
    options: HarnessOptions,
    result: EvaluationResult,
    off_topic: Sequence[Question] = (),
) -> None:
    """Rank ``questions`` (of ``sample``) with the app's ranking (or the variant tried),
    and each signal alone when ``options.compare``; ``off_topic``: questions of another
    sample, for the relevance floor."""
    service = ingested.service
    weights = options.weights
    if options.unit == "observations":
        # Only the facts are ranked; the dialogue they were learned from stays in the
        # profile as their sources, as in the app.
        weights = replace(weights, episodic=0.0)

    def retriever_of(variant: RetrievalVariant, changes: dict | None = None):
        return build_retriever(
            ingested.store,
            service.embedder,
            service.index,
            weights=replace(weights, **(changes or {})),
            messages=service.episodes.index,
            variant=variant,
        )

    retriever = retriever_of(options.variant)
    compared = COMPARED if options.compare and options.variant.is_the_app else {}
    others = {name: retriever_of(*alone) for name, alone in compared.items()}
    depth = max(*options.ks, FLOOR_K)
    stored = ingested.stored_dia_ids()
    for question in questions:
        now = asked_at(question, sample)
        started = time.perf_counter()
        hits = await retriever.search(question.question, depth, now=now)
        result.latencies_ms.append((time.perf_counter() - started) * 1000)
        ranked = [ingested.dia_ids(hit) for hit in hits]
        evidence = set(question.evidence)
        result.overall.add(ranked, evidence, options.ks)
        if evidence & stored:
            result.reachable.add(ranked, evidence, options.ks)
        category = str(question.category) if question.category is not None else "none"
        result.per_category.setdefault(category, _Tally()).add(ranked, evidence, options.ks)
        result.floor_real.add(hits[:FLOOR_K], ranked[:FLOOR_K], evidence)
        for name, other in others.items():
            alone = await other.search(question.question, depth, now=now)
            tally = result.compared.setdefault(name, RankingTally())
            tally.add(category, [ingested.dia_ids(hit) for hit in alone], evidence, options.ks)
    for question in off_topic:
        hits = await retriever.search(question.question, FLOOR_K, now=asked_at(question, sample))
        result.floor_off_topic.add(hits, [ingested.dia_ids(hit) for hit in hits], set())


def new_result(dataset: Dataset, options: HarnessOptions) -> EvaluationResult:
    return EvaluationResult(
        unit=options.unit,
        ks=tuple(sorted(set(options.ks))),
        overall=_Tally(),
        per_category={},
        latencies_ms=[],
        malformed_evidence=dataset.evidence.as_dict(),
        memories=0,
        excluded={"adversarial": 0, "no_evidence": 0},
    )


@contextlib.asynccontextmanager
async def _memory_at(location: Path | str, embedder: Embedder | None):
    """``(store, service)`` over the store at ``location``, keeping everything."""
    if embedder is None:
        from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

        embedder = WordLlamaEmbedder()
    store = await open_store(location)
    try:
        yield store, await memory_on(store, embedder, EventBus(), KEEP_EVERYTHING)
    finally:
        await store.close()


async def evaluate(
    dataset: Dataset,
    options: HarnessOptions | None = None,
    *,
    embedder: Embedder | None = None,
) -> EvaluationResult:
    """Ingest every sample into its own temporary profile and score its questions."""
    options = options or HarnessOptions()
    if options.unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}")
    result = new_result(dataset, options)
    samples = dataset.samples
    for position, sample in enumerate(samples):
        questions, excluded = scored_questions(sample)
        for reason, count in excluded.items():
            result.excluded[reason] += count
        off_topic: list[Question] = []
        if options.off_topic and len(samples) > 1:
            off_topic, _ = scored_questions(samples[(position + 1) % len(samples)])
        with (
            tempfile.TemporaryDirectory(prefix="acai-eval-") as directory,
            scratch_store(options.store, Path(directory)) as location,
        ):
            async with _memory_at(location, embedder) as (store, service):
                ingested = await ingest(store, service, sample, options)
                result.memories += len(ingested.dia_ids_of_memory) + len(ingested.dia_id_of_message)
                await score_sample(ingested, sample, questions, options, result, off_topic)
    return result
