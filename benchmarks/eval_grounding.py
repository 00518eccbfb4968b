"""``eval grounding``: how the grounding check judges LoCoMo's gold facts.

Each gold observation ("Caroline attended an LGBTQ support group") is rewritten as the
processor would store it ("The user attended ...") and checked three ways:

- against the turns it cites as evidence: the message *does* support it, so a refusal is a
  correct fact lost;
- against another turn of the same speaker in the same session (a fact the model invented
  from the conversation around the message, the hard case);
- against a turn of the same speaker in another session (an unrelated message).

No model is called: this measures the check alone, on real conversations, in seconds.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from acai_desktop.core.learning.fact_learner import extraction_prompt
from acai_desktop.core.models.embeddings.base import Embedder
from acai_desktop.core.rules.grounding import GroundingCheck
from acai_desktop.evaluation.extraction import as_user_fact
from acai_desktop.evaluation.locomo import Dataset, Sample, Turn

#: The same draw every run, so two runs of a changed check compare like with like.
SEED = 7


@dataclass
class Judged:
    pairs: int = 0
    refused: Counter[str] = field(default_factory=Counter)

    @property
    def refused_rate(self) -> float:
        return sum(self.refused.values()) / self.pairs if self.pairs else 0.0

    def as_dict(self) -> dict:
        return {
            "pairs": self.pairs,
            "refused_rate": round(self.refused_rate, 4),
            "refused_by_reason": dict(self.refused.most_common()),
        }


@dataclass
class GroundingReport:
    supported: Judged = field(default_factory=Judged)
    same_session: Judged = field(default_factory=Judged)
    other_session: Judged = field(default_factory=Judged)

    def as_dict(self) -> dict:
        return {
            "supported": self.supported.as_dict(),
            "unsupported_same_session": self.same_session.as_dict(),
            "unsupported_other_session": self.other_session.as_dict(),
        }


def _pairs(sample: Sample, rng: random.Random):
    """(fact, evidence text, a same-session other turn, another session's turn)."""
    by_id = {turn.dia_id: turn for turn in sample.turns}
    for observation in sample.observations:
        evidence = [by_id[d] for d in observation.dia_ids if d in by_id]
        if not evidence:
            continue
        cited = {turn.dia_id for turn in evidence}

        def of_speaker(same_session: bool, observation=observation, cited=cited) -> list[Turn]:
            return [
                t
                for t in sample.turns
                if t.speaker == observation.speaker
                and (t.session == observation.session) == same_session
                and t.dia_id not in cited
            ]

        near, far = of_speaker(True), of_speaker(False)
        yield (
            as_user_fact(observation),
            " ".join(turn.text for turn in evidence),
            rng.choice(near).text if near else None,
            rng.choice(far).text if far else None,
        )


async def evaluate_grounding(dataset: Dataset, embedder: Embedder) -> GroundingReport:
    check = GroundingCheck(extraction_prompt())
    report = GroundingReport()
    rng = random.Random(SEED)

    async def judge(fact: str, message: str, into: Judged) -> None:
        verdict = check.check(fact, message)
        if verdict.rejection == "unsupported":  # as the processor does: meaning next
            vectors = await embedder.embed([fact, message])
            verdict = check.check(fact, message, float(vectors[0] @ vectors[1]))
        into.pairs += 1
        if not verdict.grounded:
            into.refused[str(verdict.rejection)] += 1

    for sample in dataset.samples:
        for fact, evidence, near, far in _pairs(sample, rng):
            await judge(fact, evidence, report.supported)
            if near is not None:
                await judge(fact, near, report.same_session)
            if far is not None:
                await judge(fact, far, report.other_session)
    return report


def format_grounding(report: GroundingReport) -> str:
    rows = [
        ("supported (the cited turns)", report.supported, "refused: correct facts lost"),
        ("unsupported, same session", report.same_session, "refused: invented facts caught"),
        ("unsupported, other session", report.other_session, "refused: invented facts caught"),
    ]
    lines = ["Grounding check on the dataset's gold facts", ""]
    for label, judged, meaning in rows:
        reasons = ", ".join(f"{r} {n}" for r, n in judged.refused.most_common())
        lines.append(
            f"  {label:<29} {judged.pairs:>6} pairs  refused {judged.refused_rate:6.1%}"
            f"  ({meaning})"
        )
        if reasons:
            lines.append(f"  {'':<29} {reasons}")
    return "\n".join(lines)
