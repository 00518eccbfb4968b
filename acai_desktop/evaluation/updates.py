"""``eval updates``: does the memory follow facts that change over time?

A scripted user states facts (where they live, their job, what they drink, a plan), talks
about other things, then states new values of the same facts. Every message goes through
the real critical-info processor (triage, extraction, grounding, reconcile) with the
configured models, on a fresh temporary profile. Then:

- **update accuracy**: the share of changes that end with the new value in an active
  memory, no active memory holding the old value, and the old value kept as superseded;
- **stale memory rate**: for a question about each fact, how often retrieval still brings
  an active memory holding the old value into the prompt (past messages recalled as
  messages are history, not stale memory, and don't count).

The memory's own update logic is measured: facts are stored directly even where "Ask before
remembering" would otherwise queue them for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from acai_desktop.core.profile.paths import Profile
from acai_desktop.evaluation.temporary_profile import temporary_profile


@dataclass(frozen=True)
class Change:
    name: str
    before: str  # what the user says first
    after: str  # what the user says later, the new value
    old: str  # a word only the old value's memory holds
    new: str  # a word only the new value's memory holds
    question: str  # asked at the end, to see which value retrieval brings


SCENARIO = (
    Change("home", "I live in Paris.", "I live in Berlin.", "paris", "berlin",
           "Where does the user live?"),
    Change("job", "I work as a nurse.", "I work as a teacher.", "nurse", "teacher",
           "What is the user's job?"),
    Change("drink", "I prefer coffee in the morning.", "I prefer tea in the morning.",
           "coffee", "tea", "What does the user drink in the morning?"),
    Change("plan", "I plan to visit Rome in May.", "I plan to visit Tokyo in May.", "rome",
           "tokyo", "Where does the user plan to travel in May?"),
)  # fmt: skip
#: Said between the old and the new values, as a conversation would.
SMALL_TALK = ("Can you recommend a good book?", "Thanks, that helps.")
#: How many retrieved items a question looks at (the prompt's share of memories).
RETRIEVED = 5


@dataclass
class ChangeResult:
    name: str
    updated: bool
    new_active: bool
    old_active: bool
    old_superseded: bool
    stale_retrieved: bool


@dataclass
class UpdatesReport:
    changes: list[ChangeResult] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        n = len(self.changes) or 1
        return {
            "changes": len(self.changes),
            "update_accuracy": round(sum(c.updated for c in self.changes) / n, 4),
            "stale_memory_rate": round(sum(c.stale_retrieved for c in self.changes) / n, 4),
            "per_change": {
                c.name: {key: value for key, value in vars(c).items() if key != "name"}
                for c in self.changes
            },
            "calls": self.calls,
        }


def _holds(content: str, word: str) -> bool:
    return word in content.casefold()


def messages_said(scenario: tuple[Change, ...] = SCENARIO) -> list[str]:
    """What the scripted user says, in order: the old values, small talk, the new values."""
    return [c.before for c in scenario] + list(SMALL_TALK) + [c.after for c in scenario]


async def evaluate_updates(
    overrides,
    scenario: tuple[Change, ...] = SCENARIO,
    *,
    progress: Callable[[], None] = lambda: None,
    model_of: Profile | None = None,
) -> UpdatesReport:
    """``progress`` is called after each message played; ``model_of``: a profile whose
    saved model (settings and key) the temporary profile uses, before ``overrides``."""
    from acai_desktop.core.assistant import open_assistant
    from acai_desktop.core.memory.retrieval import RetrievedMemory
    from acai_desktop.core.records.memories import MemoryKind, MemoryStatus
    from acai_desktop.core.store.memories import MemoryFilter

    report = UpdatesReport()
    async with temporary_profile("acai-eval-updates-", model_of) as profile:
        assistant = await open_assistant(profile, overrides, start_jobs=False)
        try:
            processor = assistant.critical_info
            processor.suggestions = None  # measure the memory's own updates (see above)
            conversation = await assistant.conversations.create("Facts that change")
            for text in messages_said(scenario):
                message = await assistant.conversations.add_message(conversation.id, "user", text)
                await processor.process_message(message.id)
                progress()
            facts = await assistant.memories.list(
                MemoryFilter(kinds=[MemoryKind.FACT], statuses=None, limit=None)
            )
            for change in scenario:
                active = [m for m in facts if m.status == MemoryStatus.ACTIVE]
                superseded = [m for m in facts if m.status == MemoryStatus.SUPERSEDED]
                hits = await assistant.retriever.search(change.question, RETRIEVED)
                retrieved = [h.memory for h in hits if isinstance(h, RetrievedMemory)]
                result = ChangeResult(
                    name=change.name,
                    updated=False,
                    new_active=any(_holds(m.content, change.new) for m in active),
                    old_active=any(_holds(m.content, change.old) for m in active),
                    old_superseded=any(_holds(m.content, change.old) for m in superseded),
                    stale_retrieved=any(_holds(m.content, change.old) for m in retrieved),
                )
                result.updated = (
                    result.new_active and result.old_superseded and not (result.old_active)
                )
                report.changes.append(result)
            counts = processor.counts
            report.calls = {
                "triage": counts.triage,
                "extraction": counts.extraction,
                "reconcile": counts.reconcile,
            }
        finally:
            await assistant.close()
    return report


def format_updates(report: dict) -> str:
    lines = [
        f"Updates over {report['changes']} facts that change",
        "",
        f"  update accuracy     {report['update_accuracy']:>6.1%}   (new value active, old one "
        "superseded)",
        f"  stale memory rate   {report['stale_memory_rate']:>6.1%}   (an old value retrieved "
        "for a question)",
        "  calls               " + ", ".join(f"{k} {v}" for k, v in report["calls"].items()),
        "",
    ]
    for name, change in report["per_change"].items():
        state = "updated" if change["updated"] else (
            "both values active" if change["old_active"] and change["new_active"]
            else "new value missing" if not change["new_active"]
            else "old value not kept as history"
        )  # fmt: skip
        stale = ", old value retrieved" if change["stale_retrieved"] else ""
        lines.append(f"  {name:<8} {state}{stale}")
    return "\n".join(lines)
