"""``eval policy``: does the memory keep what lasts and let the passing go?

The labelled statements (``data/policy_statements.jsonl``, made as its README says) are
what a user says, each with the fact a literal extractor returns for it (text, category,
confidence) and the expected outcome: ``long_term`` (identity, health, family, home,
work, lasting preferences and commitments), ``temporary`` (moods, today's plans, the
weather) or ``nothing`` (small talk, reactions, questions).

Each statement is a user message in its own conversation of one temporary profile, and
goes through the real critical-info processor: the local gate, a triage call, an
extraction call, the grounding check, reconcile, then the importance score and the
memory policy that decide its status. Only the model is scripted (an in-process
OpenAI-compatible server on 127.0.0.1): triage says yes to every message and extraction
returns the labelled fact, so the figures measure what the memory does with a fact, not
how well a model picks facts. Outcomes: ``long_term`` (stored active), ``temporary``
(stored temporary) or ``not kept`` (gated, refused by the grounding check, or nothing
stored).

With ``--facts-by rules`` the processor picks the facts from each statement itself, as
it does with the bundled model (core.learning.plain_statements), and no model is
called: the figures then measure that path from the user's words to the memory.

Goals: at least 95% of the long-term statements kept long-term; at most 10% of the
others (temporary and nothing) kept long-term. Figures per split: ``tune`` (two thirds,
used to shape the cues) and ``held_out`` (every third statement, never tuned on).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from benchmarks import DATA_DIR

EXPECTED = ("long_term", "temporary", "nothing")
OUTCOMES = ("long_term", "temporary", "not kept")
SPLITS = ("tune", "held_out")
GOAL_LONG_TERM_KEPT = 0.95
GOAL_TRANSIENT_KEPT = 0.10


@dataclass(frozen=True)
class Statement:
    id: str
    text: str
    expected: str
    fact: str
    category: str
    confidence: float
    split: str


def default_statements_path() -> Path:
    return DATA_DIR / "policy_statements.jsonl"


def load_statements(path: str | Path | None = None) -> list[Statement]:
    """The labelled statements; a line that is not one says which and why."""
    path = Path(path) if path is not None else default_statements_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InvalidInputError(f"Can't read the statements file {path}: {error}") from None
    statements = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            extracted = row["extracted"]
            statement = Statement(
                id=str(row["id"]),
                text=str(row["text"]),
                expected=str(row["expected"]),
                fact=str(extracted["fact"]),
                category=str(extracted.get("category") or "Other"),
                confidence=float(extracted.get("confidence", 0.9)),
                split=str(row.get("split", "tune")),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise InvalidInputError(
                f"{path}, line {number}: not a labelled statement ({error!r})."
            ) from None
        if statement.expected not in EXPECTED:
            raise InvalidInputError(
                f"{path}, line {number}: expected must be one of {', '.join(EXPECTED)}, "
                f"not {statement.expected!r}."
            )
        statements.append(statement)
    if not statements:
        raise InvalidInputError(f"{path} holds no statements.")
    return statements


@dataclass
class PolicyReport:
    #: (split, expected, outcome) -> count
    table: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    #: Statements whose outcome missed the goal's side: (id, expected, outcome, fact).
    misses: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: The facts came from the statements by rules, not from their labels.
    by_rules: bool = False

    def add(self, statement: Statement, outcome: str, why: str = "") -> None:
        self.table[(statement.split, statement.expected, outcome)] += 1
        long_term = outcome == "long_term"
        if long_term != (statement.expected == "long_term"):
            shown = f"{outcome} ({why})" if why else outcome
            self.misses.append((statement.id, statement.expected, shown, statement.fact))

    def figures(self, splits: tuple[str, ...]) -> dict:
        def count(expected: tuple[str, ...], outcome: str | None = None) -> int:
            return sum(
                n
                for (split, exp, out), n in self.table.items()
                if split in splits and exp in expected and (outcome is None or out == outcome)
            )

        long_term = count(("long_term",))
        transient = count(("temporary", "nothing"))
        return {
            "statements": long_term + transient,
            "long_term_kept_long_term": round(
                count(("long_term",), "long_term") / long_term, 4
            ) if long_term else None,
            "transient_kept_long_term": round(
                count(("temporary", "nothing"), "long_term") / transient, 4
            ) if transient else None,
            "confusion": {
                exp: {out: count((exp,), out) for out in OUTCOMES} for exp in EXPECTED
            },
        }  # fmt: skip

    def as_dict(self) -> dict:
        return {
            "facts_by": "rules" if self.by_rules else "labels",
            "all": self.figures(SPLITS),
            **{split: self.figures((split,)) for split in SPLITS},
            "goals": {
                "long_term_kept_long_term": GOAL_LONG_TERM_KEPT,
                "transient_kept_long_term": GOAL_TRANSIENT_KEPT,
            },
            "misses": [
                {"id": i, "expected": e, "outcome": o, "fact": f} for i, e, o, f in self.misses
            ],
        }


def scripted_extractor(statements: list[Statement]) -> Callable[[dict], object]:
    """The scripted model: yes to triage, the labelled fact to extraction, "unrelated" to
    reconcile (each statement stands alone)."""
    from acai_lab.scripted_model import call_kind
    from acai_lab.scripted_openai import Reply

    facts = {s.text: s for s in statements}

    def respond(body: dict) -> Reply:
        kind = call_kind(body)
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        text = users[-1]["content"] if users else ""
        if kind == "triage":
            return Reply(json_obj={"durable_fact": True})
        if kind == "extraction":
            statement = facts.get(text)
            found = [] if statement is None else [{
                "fact": statement.fact,
                "category": statement.category,
                "confidence": statement.confidence,
            }]  # fmt: skip
            return Reply(json_obj={"facts": found})
        if kind == "reconcile":
            return Reply(json_obj={"relation": "unrelated"})
        return Reply(text="ok")

    return respond


async def evaluate_policy(
    statements: list[Statement],
    *,
    by_rules: bool = False,
    progress: Callable[[], None] = lambda: None,
) -> PolicyReport:
    """Play each statement through the real processor (see the module docstring).
    ``by_rules``: the processor picks the facts from the statement itself, as it does
    with the bundled model (core.learning.plain_statements), and calls no model."""
    from acai_desktop.core.assistant import open_assistant
    from acai_desktop.core.records.memories import MemoryStatus
    from acai_desktop.evaluation.temporary_profile import temporary_profile
    from acai_lab.scripted_openai import FakeOpenAIServer
    from acai_lab.scripted_profile import (
        keep_away_from_the_keyring,
        use_scripted_model,
    )

    keep_away_from_the_keyring()
    report = PolicyReport(by_rules=by_rules)
    with FakeOpenAIServer() as server:
        server.responder = scripted_extractor(statements)
        async with temporary_profile("acai-eval-policy-") as profile:
            use_scripted_model(profile, server.base_url)
            assistant = await open_assistant(profile, start_jobs=False)
            try:
                processor = assistant.critical_info
                processor.suggestions = None  # the policy decides, not the user
                processor.facts_by_rules = by_rules
                for statement in statements:
                    conversation = await assistant.conversations.create(statement.id)
                    message = await assistant.conversations.add_message(
                        conversation.id, "user", statement.text
                    )
                    outcome = await processor.process_message(message.id)
                    statuses = {item.status for item in outcome.stored}
                    if MemoryStatus.ACTIVE in statuses:
                        report.add(statement, "long_term")
                    elif statuses or outcome.reinforced:
                        report.add(statement, "temporary")
                    else:
                        refused = [verdict.rejection for _, verdict in outcome.rejected]
                        why = f"grounding check: {', '.join(refused)}" if refused else ""
                        report.add(statement, "not kept", why or outcome.reason or "")
                    progress()
            finally:
                await assistant.close()
    return report


def _share(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:>6.1%}"


def format_policy(report: dict) -> str:
    goals = report["goals"]
    source = (
        "facts picked by rules from each statement, no model call"
        if report.get("facts_by") == "rules"
        else "extraction scripted: the labelled fact"
    )
    lines = [
        f"Memory policy on labelled user statements ({source})",
        "",
        f"{'':<10}{'statements':>11}  {'long-term kept long-term':>25}  "
        f"{'transient kept long-term':>25}",
    ]
    for name in ("all", *SPLITS):
        figures = report[name]
        lines.append(
            f"{name:<10}{figures['statements']:>11}  "
            f"{_share(figures['long_term_kept_long_term']):>25}  "
            f"{_share(figures['transient_kept_long_term']):>25}"
        )
    lines += [
        f"{'goal':<10}{'':>11}  {'>= ' + format(goals['long_term_kept_long_term'], '.0%'):>25}  "
        f"{'<= ' + format(goals['transient_kept_long_term'], '.0%'):>25}",
        "",
    ]
    for name in ("all", *SPLITS):
        lines.append(f"confusion ({name}): expected (rows) -> outcome (columns)")
        lines.append(f"  {'':<12}" + "".join(f"{o:>12}" for o in OUTCOMES))
        for expected, row in report[name]["confusion"].items():
            lines.append(f"  {expected:<12}" + "".join(f"{row[o]:>12}" for o in OUTCOMES))
        lines.append("")
    if report["misses"]:
        lines.append("misses (kept long-term or not, against the label):")
        lines += [
            f"  {m['id']} expected {m['expected']}, got {m['outcome']}: {m['fact']}"
            for m in report["misses"]
        ]
    return "\n".join(lines).rstrip()
