"""``eval documents-floor``: the relevance floor of document passages, on real text.

Each sample of a LoCoMo-format dataset becomes a profile of documents: every session
is written as a text file (its date, then one paragraph per turn, "Speaker: text") and
indexed by the documents service exactly as a file the user adds (reading, chunking,
WordLlama vectors, the full-text index). Each question of the sample is then searched
as a turn searches documents (``k`` passages, all documents in scope), and so is each
question of the *next* sample, about other people's lives, where nothing is relevant:

- real questions: passages that pass the floor per question, and recall_any@k before
  and after the floor (a passage holds the evidence when it contains an evidence
  turn's text);
- off-topic questions: passages that pass per question (the goal: at most 1).

The bars are ``RetrievalWeights.floor_passage_*``; :func:`measure` takes other weights
to calibrate them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.retrieval.weights import RetrievalWeights
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.store.database import Store
from acai_desktop.evaluation.locomo import Sample
from benchmarks.retrieval_harness import scored_questions

Report = Callable[[str], None]


def _flat(text: str) -> str:
    return " ".join(text.split())


def session_documents(sample: Sample, folder: Path) -> list[Path]:
    """Each session of ``sample`` as a text file in ``folder``."""
    sessions: dict[int, list] = {}
    for turn in sample.turns:
        sessions.setdefault(turn.session, []).append(turn)
    paths = []
    for number, turns in sorted(sessions.items()):
        lines = [f"Session {number}, {turns[0].session_date}"]
        lines += [f"{turn.speaker}: {turn.text}" for turn in turns]
        path = folder / f"{sample.sample_id}-session-{number}.txt"
        path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class FloorFigures:
    """Counts over the questions asked; :meth:`as_dict` gives the averages."""

    real_questions: int = 0
    real_passing: int = 0
    found_before: int = 0  # real questions with an evidence passage among the k
    found_after: int = 0  # ... among those that pass the floor
    off_questions: int = 0
    off_passing: int = 0
    off_any: int = 0  # off-topic questions where anything passes
    samples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        real = max(self.real_questions, 1)
        off = max(self.off_questions, 1)
        return {
            "samples": list(self.samples),
            "real_questions": self.real_questions,
            "real_passing": round(self.real_passing / real, 2),
            "recall_any_before": round(self.found_before / real, 3),
            "recall_any_after": round(self.found_after / real, 3),
            "off_topic_questions": self.off_questions,
            "off_topic_passing": round(self.off_passing / off, 2),
            "off_topic_with_any": round(self.off_any / off, 3),
        }


async def _index(service: DocumentService, paths: Sequence[Path]) -> None:
    report = await service.add(paths)
    if report.refused:
        path, reason = report.refused[0]
        raise RuntimeError(f"{path}: {reason}")
    await service.index_now(report.job_ids)


async def measure(
    samples: Sequence[Sample],
    k: int = 5,
    weights: Sequence[RetrievalWeights] = (RetrievalWeights(),),
    report: Report | None = None,
) -> list[FloorFigures]:
    """The figures of each of ``weights`` (the documents indexed once per sample)."""
    figures = [FloorFigures() for _ in weights]
    embedder = WordLlamaEmbedder()
    for position, sample in enumerate(samples):
        questions, _ = scored_questions(sample)
        other = samples[(position + 1) % len(samples)] if len(samples) > 1 else None
        off_topic = scored_questions(other)[0] if other is not None else []
        text_of = {turn.dia_id: _flat(turn.text) for turn in sample.turns}
        with tempfile.TemporaryDirectory(prefix="acai-docfloor-") as tmp:
            folder = Path(tmp)
            store = await Store.open(folder / "profile.sqlite3")
            try:
                service = DocumentService(store, embedder, EventBus())
                await _index(service, session_documents(sample, folder))
                for figure, chosen in zip(figures, weights, strict=True):
                    service.searcher.weights = chosen
                    figure.samples.append(sample.sample_id)
                    for question in questions:
                        hits = await service.search(question.question, k)
                        wanted = [text_of[d] for d in question.evidence if d in text_of]

                        def holds(hit, wanted=wanted) -> bool:
                            content = _flat(hit.passage.content)
                            return any(text and text in content for text in wanted)

                        figure.real_questions += 1
                        figure.real_passing += sum(hit.relevant for hit in hits)
                        figure.found_before += any(holds(hit) for hit in hits)
                        figure.found_after += any(holds(hit) and hit.relevant for hit in hits)
                    for question in off_topic:
                        hits = await service.search(question.question, k)
                        passing = sum(hit.relevant for hit in hits)
                        figure.off_questions += 1
                        figure.off_passing += passing
                        figure.off_any += passing > 0
            finally:
                await store.close()
        if report is not None:
            report(f"{sample.sample_id}: {len(questions)} questions, {len(off_topic)} off-topic")
    return figures


def format_documents_floor(figures: dict, k: int) -> str:
    samples = figures["samples"]
    named = ", ".join(samples) if len(samples) <= 6 else f"{samples[0]} … {samples[-1]}"
    return "\n".join(
        [
            f"Document passages' relevance floor, top {k}, {len(samples)} samples ({named};"
            " each session a document)",
            f"  real questions ({figures['real_questions']}): {figures['real_passing']} passages"
            f" pass per question; recall_any@{k} {figures['recall_any_before']} before the"
            f" floor, {figures['recall_any_after']} after",
            f"  off-topic questions ({figures['off_topic_questions']}, asked of another sample's"
            f" documents): {figures['off_topic_passing']} passages pass per question;"
            f" {figures['off_topic_with_any']} of the questions pass any",
        ]
    )
