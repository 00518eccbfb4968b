"""``eval extraction``: what the critical-info processor stores, against LoCoMo's gold facts.

For each sample and each of its two speakers, a fresh temporary profile plays that speaker
as "the user": every session becomes a conversation in which the speaker's turns are the
user's messages (the other speaker's are the assistant's), and each user message goes
through the real processor — local gate, triage, extraction, grounding check, reconcile —
with the configured models. What it stores is compared with the gold ``observation`` facts
of that speaker in the sessions played:

- a stored fact is *correct* if its embedding is within ``MATCH_SIMILARITY`` of a gold
  fact's (or, with ``--judge``, if the configured model says a gold fact states it);
- precision = correct / stored; recall = gold facts matched by some stored fact;
  unnecessary rate = stored facts that match nothing.

Facts the grounding check refused are matched the same way, so the report also says how
many invented facts the check caught and how many correct ones it cost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel

from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.evaluation.dataset_sessions import session_timestamp
from acai_desktop.evaluation.locomo import Dataset, Observation, Sample
from acai_desktop.evaluation.temporary_profile import temporary_profile

#: A stored fact and a gold fact are the same fact at this WordLlama cosine or above.
#: Two wordings of one fact ("The user lives in Madrid with their family" / "... lives in
#: Madrid with her family") score 0.85-0.95; two facts on one subject ("lives in Paris" /
#: "lives in Berlin") 0.35-0.8. Tested in tests/core/test_extraction_eval.py.
MATCH_SIMILARITY = 0.8


def as_user_fact(observation: Observation) -> str:
    """LoCoMo speaks of the speaker by name; the processor stores "The user ..."."""
    name = re.escape(observation.speaker)
    text = re.sub(rf"\b{name}(?:'s|’s)", "the user's", observation.text)
    text = re.sub(rf"\b{name}\b", "the user", text)
    return text[:1].upper() + text[1:]


class JudgeReply(BaseModel):
    same_fact: bool


@dataclass
class ExtractionTally:
    sessions: int = 0
    messages: int = 0
    stored: int = 0
    correct: int = 0
    gold: int = 0
    gold_covered: int = 0
    refused: int = 0
    refused_correct: int = 0
    refused_by_reason: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict:
        precision = self.correct / self.stored if self.stored else 0.0
        invented = (self.stored - self.correct) + (self.refused - self.refused_correct)
        caught = self.refused - self.refused_correct
        right = self.correct + self.refused_correct
        before = self.stored + self.refused
        return {
            "sessions": self.sessions,
            "messages": self.messages,
            "stored": self.stored,
            "gold": self.gold,
            "precision": round(precision, 4),
            "recall": round(self.gold_covered / self.gold, 4) if self.gold else 0.0,
            "unnecessary_rate": round(1 - precision, 4) if self.stored else 0.0,
            "calls": dict(self.calls),
            "calls_per_message": {
                kind: round(n / self.messages, 3) if self.messages else 0.0
                for kind, n in self.calls.items()
            },
            "tokens": dict(self.tokens),
            "grounding": {
                "refused": self.refused,
                "refused_by_reason": dict(self.refused_by_reason.most_common()),
                "precision_without_check": round(right / before, 4) if before else 0.0,
                "invented_caught": round(caught / invented, 4) if invented else None,
                "correct_lost": round(self.refused_correct / right, 4) if right else None,
            },
        }


def _count_tokens(client, tokens: Counter[str]) -> None:
    """Add up the usage the server reports for every completion (evaluation only)."""
    create = client.create_completion

    async def counted(*args, **kwargs):
        completion = await create(*args, **kwargs)
        tokens["prompt"] += completion.prompt_tokens or 0
        tokens["completion"] += completion.completion_tokens or 0
        return completion

    client.create_completion = counted


async def _matches(assistant, facts: list[str], gold: list[str], judge: bool) -> np.ndarray:
    """matches[i, j]: stored fact i states gold fact j."""
    if not facts or not gold:
        return np.zeros((len(facts), len(gold)), dtype=bool)
    vectors = await assistant.memories.embedder.embed(facts + gold)
    similarity = vectors[: len(facts)] @ vectors[len(facts) :].T
    if not judge:
        return similarity >= MATCH_SIMILARITY
    matches = np.zeros(similarity.shape, dtype=bool)
    for i, fact in enumerate(facts):
        # Ask only about the three closest gold facts: the rest can't be the same fact.
        for j in np.argsort(-similarity[i])[:3]:
            prompt = (
                "Do these two sentences state the same fact about the user? "
                'Reply with JSON only: {"same_fact": true} or {"same_fact": false}.\n'
                f"A: {fact}\nB: {gold[j]}"
            )
            reply = await assistant.client.structured(
                [{"role": "user", "content": prompt}], JudgeReply, role="extraction"
            )
            if reply.value is not None and reply.value.same_fact:
                matches[i, j] = True
                break
    return matches


def sessions_of(sample: Sample, limit: int | None) -> list[int]:
    return sorted({turn.session for turn in sample.turns})[:limit]


def messages_to_play(dataset: Dataset, limit: int | None) -> int:
    """How many user messages a run feeds the processor (each speaker plays the user)."""
    return sum(
        sum(1 for turn in sample.turns if turn.session in sessions_of(sample, limit))
        for sample in dataset.samples
    )


async def _play(
    assistant, sample: Sample, speaker: str, sessions: list[int], progress: Callable[[], None]
):
    """Feed ``speaker``'s turns through the processor; returns (messages, refused facts)."""
    messages, refused = 0, []
    for session in sessions:
        conversation = await assistant.conversations.create(f"{sample.sample_id} {session}")
        for turn in (t for t in sample.turns if t.session == session):
            role = "user" if turn.speaker == speaker else "assistant"
            message = await assistant.conversations.add_message(
                conversation.id, role, turn.text, created_at=session_timestamp(turn.session_date)
            )
            if role == "user":
                messages += 1
                progress()
                outcome = await assistant.critical_info.process_message(message.id)
                refused += outcome.rejected
    return messages, refused


async def evaluate_extraction(
    dataset: Dataset,
    overrides,
    *,
    limit: int | None = None,
    judge: bool = False,
    progress: Callable[[], None] = lambda: None,
    model_of: Profile | None = None,
) -> ExtractionTally:
    """``limit``: at most this many sessions per sample (the first ones); ``progress`` is
    called after each message played; ``model_of``: a profile whose saved model (settings
    and key) the temporary profiles use, before ``overrides``."""
    from acai_desktop.core.assistant import open_assistant
    from acai_desktop.core.store.memories import MemoryFilter

    tally = ExtractionTally()
    for sample in dataset.samples:
        sessions = sessions_of(sample, limit)
        for speaker in (sample.speaker_a, sample.speaker_b):
            gold = [
                as_user_fact(o)
                for o in sample.observations
                if o.speaker == speaker and o.session in sessions
            ]
            async with temporary_profile("acai-eval-extraction-", model_of) as profile:
                assistant = await open_assistant(profile, overrides, start_jobs=False)
                try:
                    _count_tokens(assistant.client, tally.tokens)
                    messages, refused = await _play(assistant, sample, speaker, sessions, progress)
                    memories = await assistant.memories.list(MemoryFilter(kinds=[MemoryKind.FACT]))
                    # With "Ask before remembering" (the bundled model's default) the
                    # facts wait as suggestions: what the processor would store.
                    pending = await assistant.suggestions.pending(limit=100_000)
                    stored = [m.content for m in memories] + [s.content for s in pending]
                    matched = await _matches(assistant, stored, gold, judge)
                    refused_texts = [fact for fact, _ in refused]
                    refused_matched = await _matches(assistant, refused_texts, gold, judge)
                    counts = assistant.critical_info.counts
                finally:
                    await assistant.close()
            tally.sessions += len(sessions)
            tally.messages += messages
            tally.stored += len(stored)
            tally.correct += int(matched.any(axis=1).sum())
            tally.gold += len(gold)
            tally.gold_covered += int(matched.any(axis=0).sum())
            tally.refused += len(refused)
            tally.refused_correct += int(refused_matched.any(axis=1).sum())
            tally.refused_by_reason.update(str(verdict.rejection) for _, verdict in refused)
            tally.calls.update(
                triage=counts.triage, extraction=counts.extraction, reconcile=counts.reconcile
            )
    return tally


def format_extraction(report: dict) -> str:
    grounding = report["grounding"]

    def share(value) -> str:
        return "n/a" if value is None else f"{value:.1%}"

    calls = ", ".join(f"{k} {v}" for k, v in report["calls_per_message"].items())
    return "\n".join(
        [
            f"Extraction on {report['sessions']} sessions, {report['messages']} user messages",
            "",
            f"  stored facts        {report['stored']:>6}   gold facts {report['gold']}",
            f"  memory precision    {report['precision']:>6.1%}   (stored facts matching gold)",
            f"  memory recall       {report['recall']:>6.1%}   (gold facts covered)",
            f"  unnecessary rate    {report['unnecessary_rate']:>6.1%}   (stored, matching none)",
            f"  calls per message   {calls}",
            f"  tokens              prompt {report['tokens'].get('prompt', 0)}, "
            f"completion {report['tokens'].get('completion', 0)}",
            "",
            f"  grounding check     refused {grounding['refused']} "
            f"({', '.join(f'{k} {v}' for k, v in grounding['refused_by_reason'].items()) or '-'})",
            f"  precision without   {grounding['precision_without_check']:>6.1%}",
            f"  invented caught     {share(grounding['invented_caught']):>6}   "
            "(of the facts matching no gold fact, refused)",
            f"  correct lost        {share(grounding['correct_lost']):>6}   "
            "(of the facts matching a gold fact, refused)",
        ]
    )  # fmt: skip
