"""The retrieval evaluation harness over LoCoMo-format datasets.

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

import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlite_utils import Database

from acai_desktop.core.embeddings.base import Embedder
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.memory.retrieval import RetrievalWeights, RetrievedMemory
from acai_desktop.core.memory.service import MemoryDraft, MemoryService
from acai_desktop.core.memory.session import open_memory_services
from acai_desktop.core.profile import Profile
from acai_desktop.core.records import MemoryKind
from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.memories import sources_of
from acai_desktop.evaluation.locomo import (
    ADVERSARIAL_CATEGORY,
    Dataset,
    Question,
    Sample,
)
from acai_desktop.evaluation.retrieval_variants import RetrievalVariant, build_retriever

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


def session_timestamp(date: str) -> str | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an ISO timestamp (None if unreadable)."""
    try:
        moment = datetime.strptime(" ".join(date.split()), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC).isoformat(timespec="microseconds")


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


def _store_sessions(db: Database, sample: Sample, temporary: bool) -> dict[str, int]:
    """Each session of the sample as a conversation of its turns (the speaker as the
    author, the session's date as the date); dia_id -> message id."""
    message_of = {}
    with db.atomic():
        conversation_of: dict[int, int] = {}
        for turn in sample.turns:
            if turn.session not in conversation_of:
                title = f"{sample.sample_id} session {turn.session}"
                conversation = conversation_sql.create_conversation(db, title, temporary)
                conversation_of[turn.session] = conversation.id
            message = conversation_sql.add_message(
                db,
                conversation_of[turn.session],
                "user" if turn.speaker == sample.speaker_a else "assistant",
                turn.text,
                author=turn.speaker or None,
                created_at=session_timestamp(turn.session_date),
            )
            message_of[turn.dia_id] = message.id
    return message_of


async def ingest(
    store: Store, service: MemoryService, sample: Sample, options: HarnessOptions
) -> IngestedSample:
    observations = options.unit == "observations"
    message_of = await store.run(_store_sessions, sample, False)
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
    questions: Sequence[Question],
    options: HarnessOptions,
    result: EvaluationResult,
) -> None:
    service = ingested.service
    weights = options.weights
    if options.unit == "observations":
        # Only the facts are ranked; the dialogue they were learned from stays in the
        # profile as their sources, as in the app.
        weights = replace(weights, episodic=0.0)
    retriever = build_retriever(
        ingested.store,
        service.embedder,
        service.index,
        weights=weights,
        messages=service.episodes.index,
        variant=options.variant,
    )
    depth = max(options.ks)
    stored = ingested.stored_dia_ids()
    for question in questions:
        started = time.perf_counter()
        hits = await retriever.search(question.question, depth)
        result.latencies_ms.append((time.perf_counter() - started) * 1000)
        ranked = [ingested.dia_ids(hit) for hit in hits]
        evidence = set(question.evidence)
        result.overall.add(ranked, evidence, options.ks)
        if evidence & stored:
            result.reachable.add(ranked, evidence, options.ks)
        category = str(question.category) if question.category is not None else "none"
        result.per_category.setdefault(category, _Tally()).add(ranked, evidence, options.ks)


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
    for sample in dataset.samples:
        questions, excluded = scored_questions(sample)
        for reason, count in excluded.items():
            result.excluded[reason] += count
        with tempfile.TemporaryDirectory(prefix="acai-eval-") as directory:
            profile = Profile.at(Path(directory))
            async with open_memory_services(profile, embedder=embedder, policy=KEEP_EVERYTHING) as (
                store,
                service,
            ):
                ingested = await ingest(store, service, sample, options)
                result.memories += len(ingested.dia_ids_of_memory) + len(ingested.dia_id_of_message)
                await score_sample(ingested, questions, options, result)
    return result
