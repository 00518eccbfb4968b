"""What ``eval ablation`` measured: one row per answer, and the figures made from them.

The report object fills in as the run goes, so a run stopped half-way (the Stop button,
Ctrl+C) still has every answer given so far; ``as_dict`` works at any moment.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from acai_desktop.evaluation.ablation_scoring import percentiles

#: The configurations, in the order they add to the prompt (F is the yardstick).
CONFIGS = ("A", "B", "C", "D", "F")
CONFIG_NAMES = {
    "A": "the question alone",
    "B": "+ the planner's plan",
    "C": "+ retrieval of past messages",
    "D": "+ memory (facts, summaries)",
    "F": "the whole conversation",
}
#: The goal: D at least as accurate as F, at this share of F's prompt tokens or less.
TOKEN_SHARE_GOAL = 0.1


@dataclass(frozen=True)
class Answered:
    config: str
    category: int | None
    f1: float
    judged: bool | None  # the judge's verdict; None without --judge or when it failed
    prompt_tokens: int
    latency_ms: float
    error: str | None = None
    # Whether the prompt held every evidence turn: quoted (strict), or quoted or the
    # source of a memory in it (credited); None where no profile's turns are quoted.
    strict: bool | None = None
    credited: bool | None = None


@dataclass
class AblationReport:
    configs: tuple[str, ...] = CONFIGS
    judge: bool = False
    model: str = ""
    answers: list[Answered] = field(default_factory=list)
    #: Questions answered in every configuration.
    questions: int = 0
    #: By configuration: [bytes the database grew by, messages ingested].
    storage: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    #: F's window: the longest conversation's turns, the most turns one question lost
    #: (the oldest), how many questions lost some.
    truncation: Counter[str] = field(default_factory=Counter)
    window_tokens: int = 0
    #: What the processors built for D, and the calls it took.
    memory: Counter[str] = field(default_factory=Counter)
    #: Whether every prompt token count came from the server (else some are estimates).
    server_tokens: bool = True
    stopped: bool = False
    learner: str = "model"
    #: By configuration: the items placed in each prompt for another sample's question.
    off_topic: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    #: Of those, the memories (facts, summaries, notes) rather than recalled messages.
    off_topic_memories: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def add_off_topic(self, config: str, items: int, memories: int = 0) -> None:
        self.off_topic[config].append(items)
        self.off_topic_memories[config].append(memories)

    def add_storage(self, config: str, grown_bytes: int, messages: int) -> None:
        self.storage[config][0] += grown_bytes
        self.storage[config][1] += messages

    def bytes_per_message(self, config: str) -> float | None:
        grown, messages = self.storage.get(config, (0, 0))
        return round(grown / messages, 1) if messages else None

    def _figures(self, rows: list[Answered]) -> dict:
        judged = [r.judged for r in rows if r.judged is not None]
        strict = [r.strict for r in rows if r.strict is not None]
        credited = [r.credited for r in rows if r.credited is not None]
        return {
            "evidence_strict": round(sum(strict) / len(strict), 4) if strict else None,
            "evidence_credited": round(sum(credited) / len(credited), 4) if credited else None,
            "answered": len(rows),
            "f1": round(float(np.mean([r.f1 for r in rows])), 4) if rows else None,
            "judge": round(sum(judged) / len(rows), 4) if self.judge and rows else None,
            "prompt_tokens": round(float(np.mean([r.prompt_tokens for r in rows])), 1)
            if rows
            else None,
            "errors": sum(r.error is not None for r in rows),
        }

    def as_dict(self) -> dict:
        by_config: dict[str, list[Answered]] = defaultdict(list)
        by_category: dict[str, dict[str, list[Answered]]] = defaultdict(lambda: defaultdict(list))
        for row in self.answers:
            by_config[row.config].append(row)
            category = str(row.category) if row.category is not None else "none"
            by_category[category][row.config].append(row)
        configs = {}
        for config in self.configs:
            rows = by_config.get(config, [])
            figures = self._figures(rows)
            figures["latency_ms"] = percentiles([r.latency_ms for r in rows])
            if config in self.storage:
                figures["storage_bytes_per_message"] = self.bytes_per_message(config)
            asked_elsewhere = self.off_topic.get(config)
            figures["off_topic_items"] = (
                round(float(np.mean(asked_elsewhere)), 3) if asked_elsewhere else None
            )
            memories_elsewhere = self.off_topic_memories.get(config)
            figures["off_topic_memories"] = (
                round(float(np.mean(memories_elsewhere)), 3) if memories_elsewhere else None
            )
            figures["off_topic_questions"] = len(asked_elsewhere or ())
            configs[config] = figures
        per_category = {
            category: {
                config: self._figures(rows)
                for config, rows in sorted(by_config_rows.items())
                if config in self.configs
            }
            for category, by_config_rows in sorted(by_category.items())
        }
        return {
            "configs": configs,
            "per_category": per_category,
            "questions": self.questions,
            "model": self.model,
            "learner": self.learner,
            "storage_bytes_per_message": self.bytes_per_message("D")
            if "D" in self.storage
            else self.bytes_per_message("C"),
            "whole_conversation": {
                "window_tokens": self.window_tokens,
                "turns": self.truncation["turns"],
                "most_turns_left_out": self.truncation["most_dropped"],
                "questions_truncated": self.truncation["questions"],
            },
            "memory": dict(self.memory),
            "prompt_tokens_from": "server" if self.server_tokens else "server and estimate",
            "d_against_f": d_against_f(configs),
            "stopped": self.stopped,
        }


def d_against_f(configs: dict) -> dict | None:
    """Where D stands against the whole conversation: the accuracy difference (judge
    where there is one, F1 otherwise) and D's share of F's prompt tokens."""
    d, f = configs.get("D"), configs.get("F")
    if not d or not f or not d["answered"] or not f["answered"]:
        return None
    metric = "judge" if d["judge"] is not None and f["judge"] is not None else "f1"
    share = d["prompt_tokens"] / f["prompt_tokens"] if f["prompt_tokens"] else None
    return {
        "metric": metric,
        "d": d[metric],
        "f": f[metric],
        "difference": round(d[metric] - f[metric], 4),
        "token_share": round(share, 4) if share is not None else None,
        "goal_met": bool(
            d[metric] >= f[metric] and share is not None and share <= TOKEN_SHARE_GOAL
        ),
    }
