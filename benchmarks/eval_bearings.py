"""``eval bearings``: which lasting facts about the user reach a request they share no
word with ("I'm vegetarian" for "What should I cook tonight?", core.rules.bearings),
and which reach one they should not.

1. The labelled user statements (``data/policy_statements.jsonl``): for each kind of
   request, the long-term labelled facts that bear on it, and the facts the rules take
   from those statements (the built-in model's path, core.learning.plain_statements),
   listed to be read; and how many facts of the statements labelled temporary or nothing
   would bear on a request (goal: none). Only the kinds whose facts are told by their
   words: a question about the user ("What do you know about me?") takes every active
   fact, so what reaches it is what the memory policy keeps active (``eval policy``).
2. With ``--dataset``, real conversations: each sample's profile holds the facts the
   rules take from the user's turns (LongMemEval's ``User``, LoCoMo's first speaker);
   each question goes through ``HybridRetriever.bearing_facts`` on its own profile and on
   the next sample's (where nothing bears on it). Printed: the prompts that got a bearing
   fact, the facts, and how many of those came from the question's evidence sessions.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from acai_desktop.core.events import EventBus
from acai_desktop.core.learning.plain_statements import lasting_statements
from acai_desktop.core.memory.front_door import memory_on
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.memory.service import MemoryDraft
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.rules.bearings import BEARINGS, bears_on
from acai_desktop.core.store.store_url import open_store
from acai_desktop.evaluation.locomo import Sample
from benchmarks.eval_policy import Statement
from benchmarks.retrieval_harness import KEEP_EVERYTHING

#: The kinds of request whose facts are told by their words.
WORDED = tuple(bearing for bearing in BEARINGS if bearing.fact_terms)

#: A question's turns are read from the first characters of each (a pasted document
#: is one turn of LongMemEval's; the rules read no further in the app either).
TURN_CHARACTERS = 4000


def labelled(statements: Sequence[Statement]) -> dict:
    """Per kind of request: the long-term labelled facts that bear on it and the rule
    facts that do; and the facts of transient statements that would."""
    figures: dict = {"statements": len(statements), "kinds": {}, "transient_bearing": []}
    for bearing in WORDED:
        by_label, by_rules = [], []
        for statement in statements:
            if statement.expected != "long_term":
                continue
            if bears_on(statement.fact, bearing):
                by_label.append(statement.fact)
            by_rules += [f for f, _ in lasting_statements(statement.text) if bears_on(f, bearing)]
        figures["kinds"][bearing.name] = {"labelled": by_label, "rules": by_rules}
    for statement in statements:
        if statement.expected == "long_term":
            continue
        facts = [statement.fact, *(f for f, _ in lasting_statements(statement.text))]
        figures["transient_bearing"] += [
            f for f in facts if any(bears_on(f, bearing) for bearing in WORDED)
        ]
    return figures


def _users_facts(sample: Sample) -> dict[str, set[str]]:
    """The rule facts of the user's turns, each with the sessions it was said in."""
    user = "User" if any(turn.speaker == "User" for turn in sample.turns) else sample.speaker_a
    facts: dict[str, set[str]] = {}
    for turn in sample.turns:
        if turn.speaker != user:
            continue
        for fact, _category in lasting_statements(turn.text[:TURN_CHARACTERS]):
            facts.setdefault(fact, set()).add(turn.dia_id.split(":")[0])
    return facts


async def in_conversations(samples: Sequence[Sample]) -> dict:
    """Each sample's first questions asked of its own profile (real) and of the next
    sample's (off-topic): the bearing facts each prompt would get."""
    embedder = WordLlamaEmbedder()
    tallies = {"real": Counter(), "off_topic": Counter()}
    shown: list[dict] = []
    for position, sample in enumerate(samples):
        facts = _users_facts(sample)
        other = samples[(position + 1) % len(samples)]
        with tempfile.TemporaryDirectory(prefix="acai-eval-") as directory:
            store = await open_store(Path(directory) / "acai.sqlite3")
            try:
                service = await memory_on(store, embedder, EventBus(), KEEP_EVERYTHING)
                items = await service.remember_many([MemoryDraft(f) for f in facts])
                sessions = {item.id: facts.get(item.content, set()) for item in items}
                retriever = HybridRetriever(store, embedder, service.index)
                for kind, questions in (("real", sample.questions), ("off_topic", other.questions)):
                    tally = tallies[kind]
                    tally["profile facts"] += len(items)
                    for question in questions:
                        found = await retriever.bearing_facts(question.question)
                        tally["questions"] += 1
                        if not found:
                            continue
                        evidence = {e.split(":")[0] for e in question.evidence}
                        tally["questions with a bearing fact"] += 1
                        tally["bearing facts"] += len(found)
                        tally["from evidence sessions"] += sum(
                            1 for memory, _ in found if sessions.get(memory.id, set()) & evidence
                        )
                        shown.append(
                            {
                                "kind": kind,
                                "question": question.question,
                                "facts": [f"{tells}: {m.content}" for m, tells in found],
                            }
                        )
            finally:
                await store.close()
    return {kind: dict(tally) for kind, tally in tallies.items()} | {"shown": shown}


def format_bearings(figures: dict) -> str:
    lines = [f"Labelled statements: {figures['statements']}"]
    for kind, found in figures["kinds"].items():
        lines.append(
            f"  {kind}: {len(found['labelled'])} labelled long-term facts bear on it, "
            f"{len(found['rules'])} facts by rules"
        )
        lines += [f"    labelled: {fact}" for fact in found["labelled"]]
        lines += [f"    rules:    {fact}" for fact in found["rules"]]
    lines.append(
        f"  facts of transient statements that bear on a request: "
        f"{len(figures['transient_bearing'])} (goal 0)"
    )
    lines += [f"    {fact}" for fact in figures["transient_bearing"]]
    conversations = figures.get("conversations")
    if conversations:
        lines.append("Conversations (facts by rules from the user's turns):")
        for kind in ("real", "off_topic"):
            counts = ", ".join(f"{k} {v}" for k, v in conversations[kind].items())
            lines.append(f"  {kind.replace('_', '-')}: {counts}")
        lines += [
            f"    {row['kind']}: {row['question'][:90]} -> {'; '.join(row['facts'])}"
            for row in conversations["shown"]
        ]
    return "\n".join(lines)
