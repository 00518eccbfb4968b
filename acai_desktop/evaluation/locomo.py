"""Reading datasets in the LoCoMo format (long-term conversational memory benchmark).

A dataset is a JSON list of samples::

    {"sample_id": "...",
     "conversation": {"speaker_a": "...", "speaker_b": "...",
                      "session_1_date_time": "1:56 pm on 8 May, 2023",
                      "session_1": [{"speaker": "...", "dia_id": "D1:1", "text": "..."}, ...],
                      ...},
     "observation": {"session_1_observation": {"<speaker>": [["fact", "D1:3"], ...]}, ...},
     "qa": [{"question": "...", "answer": "...", "evidence": ["D1:3"], "category": 1}, ...]}

Real files are not perfectly clean: evidence entries like ``"D8:6; D9:17"`` (two ids in
one string) are split, entries that are no dialogue id at all, or name a turn that
does not exist, are skipped; both are counted in :class:`EvidenceReport` and never
stop the run. A file that is not this format at all is refused with the place at
fault (sample number and field).
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError

DIA_ID = re.compile(r"^D(\d+):(\d+)$")
_ID_ANYWHERE = re.compile(r"D\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_SESSION_KEY = re.compile(r"^session_(\d+)$")
ADVERSARIAL_CATEGORY = 5
#: What each category is: LoCoMo's 1-4, and LongMemEval's question types as the shared
#: conversion numbers them (11-16).
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    11: "single-session-user",
    12: "single-session-assistant",
    13: "preference",
    14: "temporal",
    15: "knowledge-update",
    16: "multi-session",
}


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    session_date: str


@dataclass(frozen=True)
class Observation:
    text: str
    speaker: str
    dia_ids: tuple[str, ...]
    session: int
    session_date: str


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int | None
    # When it is asked ("2023/03/27 (Mon) 23:35" in LongMemEval's conversion), as an
    # ISO timestamp; "" when the dataset does not say (LoCoMo).
    asked_at: str = ""


@dataclass
class EvidenceReport:
    """How many evidence entries were not a clean dialogue id, and what became of them."""

    entries: int = 0
    split: int = 0  # one string holding several ids: split into them
    skipped: int = 0  # no dialogue id in it at all
    unknown: int = 0  # a well-formed id naming no turn of the sample: skipped
    examples: list[str] = field(default_factory=list)

    def note(self, raw: object) -> None:
        if len(self.examples) < 5:
            self.examples.append(str(raw))

    def as_dict(self) -> dict:
        return {
            "entries": self.entries,
            "split": self.split,
            "skipped": self.skipped,
            "unknown": self.unknown,
            "examples": list(self.examples),
        }

    def add(self, other: EvidenceReport) -> None:
        self.entries += other.entries
        self.split += other.split
        self.skipped += other.skipped
        self.unknown += other.unknown
        for example in other.examples:
            self.note(example)


@dataclass
class Sample:
    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: list[Turn]
    observations: list[Observation]
    questions: list[Question]


@dataclass
class Dataset:
    samples: list[Sample]
    evidence: EvidenceReport


def normalise_dia_ids(raw: object, report: EvidenceReport) -> list[str]:
    """The clean ids in one evidence entry: ``"D8:6; D9:17"`` -> ``["D8:6", "D9:17"]``."""
    text = raw.strip() if isinstance(raw, str) else ""
    match = DIA_ID.match(text)
    if match:
        return [f"D{int(match[1])}:{int(match[2])}"]
    found = [f"D{int(s)}:{int(t)}" for s, t in _ID_ANYWHERE.findall(text)]
    report.note(raw)
    if len(found) > 1:
        report.split += 1
    elif not found:
        report.skipped += 1
    # One id with stray characters around it ("D3:4 " or "(D3:4)") is just cleaned.
    return found


def _fail(where: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"Not a LoCoMo-format dataset: {where}: {what}")


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, f"expected text, found {type(value).__name__}")
    return value


def _sessions(conversation: dict, where: str) -> list[tuple[int, list, str]]:
    sessions = []
    for key, turns in conversation.items():
        match = _SESSION_KEY.match(key)
        if not match:
            continue
        if not isinstance(turns, list):
            raise _fail(f"{where}.{key}", "expected a list of turns")
        date = conversation.get(f"{key}_date_time", "")
        sessions.append((int(match[1]), turns, date if isinstance(date, str) else ""))
    return sorted(sessions, key=lambda s: s[0])


def _turn_text(turn: dict) -> str:
    """A turn's words, with the caption of a photo it shared (LoCoMo's ``blip_caption``)."""
    text = turn.get("text") or ""
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shared a photo: {caption.strip()}]".strip()
    return text


def parse_sample(raw: object, position: int) -> tuple[Sample, EvidenceReport]:
    where = f"sample {position + 1}"
    if not isinstance(raw, dict):
        raise _fail(where, "expected an object")
    conversation = raw.get("conversation")
    if not isinstance(conversation, dict):
        raise _fail(where, "missing 'conversation' object")
    speaker_a = _text(conversation.get("speaker_a", ""), f"{where}.conversation.speaker_a")
    speaker_b = _text(conversation.get("speaker_b", ""), f"{where}.conversation.speaker_b")
    turns: list[Turn] = []
    dates: dict[int, str] = {}
    for session, session_turns, date in _sessions(conversation, f"{where}.conversation"):
        dates[session] = date
        for index, turn in enumerate(session_turns):
            turn_where = f"{where}.conversation.session_{session}[{index}]"
            if not isinstance(turn, dict):
                raise _fail(turn_where, "expected a turn object")
            dia_id = _text(turn.get("dia_id"), f"{turn_where}.dia_id").strip()
            text = _turn_text(turn)
            if not DIA_ID.match(dia_id) or not text.strip():
                continue  # a turn we can't address or that says nothing: not a memory
            speaker = turn.get("speaker") if isinstance(turn.get("speaker"), str) else ""
            turns.append(Turn(dia_id, speaker, text, session, date))
    if not turns:
        raise _fail(where, "the conversation has no sessions with turns")
    known = {turn.dia_id for turn in turns}
    report = EvidenceReport()

    observations: list[Observation] = []
    observation_block = raw.get("observation") or {}
    if not isinstance(observation_block, dict):
        raise _fail(f"{where}.observation", "expected an object")
    for key, by_speaker in observation_block.items():
        match = re.match(r"^session_(\d+)_observation$", key)
        if not match or not isinstance(by_speaker, dict):
            continue
        session = int(match[1])
        for speaker, facts in by_speaker.items():
            for entry in facts if isinstance(facts, list) else []:
                if not (isinstance(entry, list | tuple) and entry and isinstance(entry[0], str)):
                    continue
                sources = entry[1] if len(entry) > 1 else []
                raw_ids = sources if isinstance(sources, list) else [sources]
                ids: list[str] = []
                for raw_id in raw_ids:
                    ids += normalise_dia_ids(raw_id, EvidenceReport())
                ids = [i for i in dict.fromkeys(ids) if i in known]
                if entry[0].strip():
                    observations.append(
                        Observation(entry[0], speaker, tuple(ids), session, dates.get(session, ""))
                    )

    questions: list[Question] = []
    qa = raw.get("qa") or []
    if not isinstance(qa, list):
        raise _fail(f"{where}.qa", "expected a list")
    for index, item in enumerate(qa):
        q_where = f"{where}.qa[{index}]"
        if not isinstance(item, dict):
            raise _fail(q_where, "expected an object")
        question = _text(item.get("question"), f"{q_where}.question")
        evidence_raw = item.get("evidence") or []
        if not isinstance(evidence_raw, list):
            evidence_raw = [evidence_raw]
        evidence: list[str] = []
        for entry in evidence_raw:
            report.entries += 1
            for dia_id in normalise_dia_ids(entry, report):
                if dia_id in known:
                    evidence.append(dia_id)
                else:
                    report.unknown += 1
                    report.note(entry)
        category = item.get("category")
        answer = item.get("answer", item.get("adversarial_answer", ""))
        questions.append(
            Question(
                question=question,
                answer=str(answer),
                evidence=tuple(dict.fromkeys(evidence)),
                category=category if isinstance(category, int) else None,
                asked_at=question_timestamp(item.get("question_date")),
            )
        )
    sample_id = str(raw.get("sample_id") or f"sample-{position + 1}")
    return Sample(sample_id, speaker_a, speaker_b, turns, observations, questions), report


def question_timestamp(raw: object) -> str:
    """LongMemEval's "2023/03/27 (Mon) 23:35" as an ISO timestamp in UTC ("" if absent
    or unreadable)."""
    if not isinstance(raw, str):
        return ""
    text = re.sub(r"\([A-Za-z]+\)", " ", raw)
    try:
        moment = datetime.strptime(" ".join(text.split()), "%Y/%m/%d %H:%M")
    except ValueError:
        return ""
    return moment.replace(tzinfo=UTC).isoformat(timespec="microseconds")


def parse_dataset(data: object) -> Dataset:
    if not isinstance(data, list):
        raise _fail("top level", "expected a JSON list of samples")
    samples, total = [], EvidenceReport()
    for position, raw in enumerate(data):
        sample, report = parse_sample(raw, position)
        samples.append(sample)
        total.add(report)
    return Dataset(samples, total)


def load_dataset(path: str | Path) -> Dataset:
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as stream:
                text = stream.read()
        else:
            text = path.read_text(encoding="utf-8")
    except (OSError, EOFError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise InvalidInputError(f"Cannot read the dataset {path}: {reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidInputError(
            f"The dataset {path} is not valid JSON (line {error.lineno}, "
            f"column {error.colno}: {error.msg})."
        ) from None
    return parse_dataset(data)
