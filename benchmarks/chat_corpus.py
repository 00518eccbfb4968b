"""Varied chat text for the speed benchmark (``bench retrieval``): life events told in
chat style (with the facts an extractor would keep about them), near-miss distractors
and small talk, and questions about the events in a user's words.

The text is data, in ``data/chat_corpus.json`` (see data/README.md); this module reads it
once and draws from it with a seeded generator, so a run is the same every time.

Only the benchmark's timing uses it: word frequencies like a chat's make the full-text
queries cost what they cost in real profiles. Retrieval quality is measured on real
conversations (``eval retrieval`` on a LoCoMo-format file), never on this text.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from benchmarks import DATA_DIR

CORPUS_FILE = DATA_DIR / "chat_corpus.json"


@dataclass(frozen=True)
class Event:
    """A life event one speaker tells; ``{S}`` is that speaker, ``{O}`` the other."""

    key: str
    slots: dict[str, tuple[str, ...]]
    tells: tuple[str, ...]  # the evidence turn (one is picked)
    reaction: tuple[str, ...]  # the other speaker's reply
    detail: str  # a second evidence turn with more detail
    observation: str
    detail_observation: str
    # (question, answer, category, evidence: "tell" | "detail" | "both")
    questions: tuple[tuple[str, str, int, str], ...]
    hobby: bool = False

    @classmethod
    def from_json(cls, data: dict) -> Event:
        return cls(
            key=data["key"],
            slots={slot: tuple(options) for slot, options in data["slots"].items()},
            tells=tuple(data["tells"]),
            reaction=tuple(data["reaction"]),
            detail=data["detail"],
            observation=data["observation"],
            detail_observation=data["detail_observation"],
            questions=tuple(
                (q["question"], q["answer"], int(q["category"]), q["evidence"])
                for q in data["questions"]
            ),
            hobby=bool(data.get("hobby", False)),
        )


def _load() -> dict:
    return json.loads(CORPUS_FILE.read_text(encoding="utf-8"))


_CORPUS = _load()
NAMES: tuple[str, ...] = tuple(_CORPUS["names"])
EVENTS: tuple[Event, ...] = tuple(Event.from_json(event) for event in _CORPUS["events"])
SMALL_TALK: tuple[str, ...] = tuple(_CORPUS["small_talk"])
# Turns that share words with an event without answering its questions.
DISTRACTORS: tuple[str, ...] = tuple(_CORPUS["distractors"])


def _fill(template: str, values: dict) -> str:
    return template.format(**values)


def memory_texts(count: int, *, seed: int = 11) -> list[str]:
    """``count`` varied chat-memory texts (turns, observations, small talk) for benchmarks."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < count:
        event = rng.choice(EVENTS)
        speaker, other = rng.sample(NAMES, 2)
        values = {slot: rng.choice(options) for slot, options in event.slots.items()}
        values.update(S=speaker, O=other, date=f"{rng.randint(1, 28)} May 2023")
        choice = rng.random()
        if choice < 0.35:
            text = f"{speaker}: " + _fill(rng.choice(event.tells), values)
        elif choice < 0.55:
            text = f"{speaker}: " + _fill(event.detail, values)
        elif choice < 0.75:
            text = _fill(rng.choice((event.observation, event.detail_observation)), values)
        elif choice < 0.88:
            text = f"{speaker}: " + rng.choice(DISTRACTORS)
        else:
            text = f"{speaker}: " + rng.choice(SMALL_TALK)
        texts.append(text)
    return texts
