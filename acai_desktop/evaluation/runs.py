"""The evaluations a user can run on their own model from the window, one entry each.

Each entry says what it measures and whether it needs a LoCoMo-format dataset, and runs
as a coroutine: it announces its size (``Progress.begin``, with the model-call budget),
steps the progress once per step, and returns the figures as the plain text the command
line prints (and the JSON report beside it). Stop either cancels the task (every
evaluation plays in temporary profiles that are removed on the way out, so a stopped run
leaves nothing behind) or, for an evaluation that ``stops_gracefully``, sets the
request's ``stop`` event: the run ends after the step under way and returns the figures
measured so far (``stopped`` set); a second Stop cancels it. The user's own profile only
lends its model settings (see :mod:`.temporary_profile`).

Adding an evaluation is one more :class:`Evaluation` in :data:`EVALUATIONS`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acai_desktop.core.profile.paths import Profile

if TYPE_CHECKING:
    from acai_desktop.core.models.choice import ModelOverrides


class Progress(Protocol):
    def begin(self, total: int, unit: str, budget: str) -> None:
        """``total`` steps of ``unit`` to come; ``budget`` says about how many calls."""

    def step(self) -> None:
        """One more step done."""


@dataclass(frozen=True)
class EvaluationRequest:
    #: The profile whose saved model (settings and key) the run uses; never written.
    model_of: Profile
    dataset: Path | None = None
    #: At most this many sessions per sample, for evaluations over a dataset.
    limit: int | None = None
    #: This run's choices over the saved settings (the window's command-line options).
    overrides: ModelOverrides | None = None
    #: Set by Stop for an evaluation that ``stops_gracefully``.
    stop: threading.Event = field(default_factory=threading.Event, compare=False)

    def model_overrides(self) -> ModelOverrides:
        from acai_desktop.core.models.choice import ModelOverrides

        return self.overrides or ModelOverrides()


@dataclass(frozen=True)
class EvaluationResult:
    text: str
    report: dict
    #: The run was stopped: the figures are those measured until then.
    stopped: bool = False


@dataclass(frozen=True)
class Evaluation:
    name: str
    title: str
    about: str
    needs_dataset: bool
    run: Callable[[EvaluationRequest, Progress], Awaitable[EvaluationResult]]
    #: Stop sets ``request.stop`` and the run returns what it measured (else: cancelled).
    stops_gracefully: bool = False


def calls_budget(messages: int, most_per_message: int) -> str:
    return f"{messages} messages: about {messages}–{most_per_message * messages} model calls"


async def _updates(request: EvaluationRequest, progress: Progress) -> EvaluationResult:
    from acai_desktop.evaluation.updates import evaluate_updates, format_updates, messages_said

    total = len(messages_said())
    # Triage, maybe extraction, maybe a reconcile call per message.
    progress.begin(total, "messages", calls_budget(total, 3))
    report = await evaluate_updates(
        request.model_overrides(), progress=progress.step, model_of=request.model_of
    )
    figures = report.as_dict()
    return EvaluationResult(format_updates(figures), figures)


async def _dataset(request: EvaluationRequest):
    from acai_desktop.evaluation.locomo import load_dataset

    if request.dataset is None:
        from acai_desktop.core.errors import InvalidInputError

        raise InvalidInputError("Choose a LoCoMo-format dataset file first.")
    # Reading and checking a large JSON file would hold the window up: a worker thread.
    return await asyncio.to_thread(load_dataset, request.dataset)


async def _ablation(request: EvaluationRequest, progress: Progress) -> EvaluationResult:
    from acai_desktop.evaluation.ablation import AblationOptions, evaluate_ablation, run_size
    from acai_desktop.evaluation.ablation_text import format_ablation

    dataset = await _dataset(request)
    # One sample: a whole LoCoMo conversation is hundreds of answers per configuration.
    options = AblationOptions(limit=request.limit, samples=1)
    size = run_size(dataset, options)
    progress.begin(
        size.steps,
        "steps",
        f"{size.questions} questions × {len(options.configs)} configurations: "
        f"about {size.calls_low}–{size.calls_high} model calls",
    )
    report = await evaluate_ablation(
        dataset,
        request.model_overrides(),
        options,
        progress=progress.step,
        stop=request.stop,
        model_of=request.model_of,
    )
    figures = report.as_dict()
    return EvaluationResult(format_ablation(figures), figures, stopped=report.stopped)


async def _extraction(request: EvaluationRequest, progress: Progress) -> EvaluationResult:
    from acai_desktop.evaluation.extraction import (
        evaluate_extraction,
        format_extraction,
        messages_to_play,
    )

    dataset = await _dataset(request)
    total = messages_to_play(dataset, request.limit)
    progress.begin(total, "messages", calls_budget(total, 2) + ", plus reconcile calls")
    tally = await evaluate_extraction(
        dataset,
        request.model_overrides(),
        limit=request.limit,
        progress=progress.step,
        model_of=request.model_of,
    )
    figures = tally.as_dict()
    return EvaluationResult(format_extraction(figures), figures)


UPDATES = Evaluation(
    name="updates",
    title="Fact updates",
    about=(
        "A scripted user states facts, then new values of them (a move, a new job …), "
        "through the real memory processors with your model. Measures update accuracy "
        "(the new value active, the old one kept as superseded) and the stale memory rate "
        "(an old value still retrieved for a question)."
    ),
    needs_dataset=False,
    run=_updates,
)
EXTRACTION = Evaluation(
    name="extraction",
    title="Fact extraction (dataset)",
    about=(
        "Plays each speaker of a LoCoMo-format dataset as the user through the real memory "
        "processors with your model, and compares the facts stored with the dataset's gold "
        "facts: memory precision, recall and unnecessary memory rate."
    ),
    needs_dataset=True,
    run=_extraction,
)

ABLATION = Evaluation(
    name="ablation",
    title="Does memory help? (dataset)",
    about=(
        "Answers the questions of the first conversation of a LoCoMo-format dataset with "
        "your model: the question alone (A), with the planner's plan (B), with retrieval "
        "from the conversation (C), with the memory the processors build (D), and with "
        "the whole conversation in the prompt (F). Scores token F1 against the gold "
        "answers, prompt tokens and latency per configuration."
    ),
    needs_dataset=True,
    run=_ablation,
    stops_gracefully=True,
)

#: Every evaluation the window offers, by name, in the order it lists them.
EVALUATIONS: dict[str, Evaluation] = {e.name: e for e in (UPDATES, EXTRACTION, ABLATION)}
