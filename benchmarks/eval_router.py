"""``eval router``: how often task analysis names a turn's kind (issue 42).

The prompts file holds JSON lines ``{"text": …, "kind": …, "attachments": [...]}``,
attachments being paths relative to the file. Each turn is analysed as the app
analyses it (``core/routing/turn_needs.py``: the attachments read as documents, images
by their type) and compared with its label.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from acai_desktop.core.documents.readers import read_document
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.core.routing.turn_meaning import TurnMeaning
from acai_desktop.core.routing.turn_needs import AttachedFile, analyse_turn, is_image

KINDS = tuple(kind.value for kind in TurnKind)


def attached_file(path: Path) -> AttachedFile:
    """``path`` as a turn needs it: an image, or text read as the app reads documents
    (``DocumentReadError`` when it can't be)."""
    if is_image(path):
        return AttachedFile(path.name, is_image=True)
    document = read_document(path)
    return AttachedFile(path.name, tokens=sum(estimate_tokens(s.text) for s in document.sections))


def read_prompts(path: Path) -> list[dict]:
    prompts = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInputError(f"{path.name} line {number}: not JSON ({error.msg}).") from None
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InvalidInputError(f'{path.name} line {number}: needs a "text" string.')
        if item.get("kind") not in KINDS:
            raise InvalidInputError(
                f'{path.name} line {number}: "kind" must be one of {", ".join(KINDS)}.'
            )
        prompts.append(item)
    if not prompts:
        raise InvalidInputError(f"{path.name} holds no prompts.")
    return prompts


def evaluate(path: Path, meaning: TurnMeaning | None = None) -> dict:
    """Accuracy overall and per kind, the confusion counts (label → predicted → count)
    and the analysis' time per turn (attachments read beforehand, as the app has them);
    ``meaning``: the meaning signal (None: the rules alone)."""
    confusion: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    timings = []
    for item in read_prompts(path):
        files = tuple(attached_file(path.parent / name) for name in item.get("attachments", []))
        started = time.perf_counter()
        needs = analyse_turn(item["text"], files, meaning)
        timings.append((time.perf_counter() - started) * 1000)
        confusion[item["kind"]][needs.kind.value] += 1
    total = sum(sum(row.values()) for row in confusion.values())
    right = sum(confusion[kind][kind] for kind in KINDS)
    per_kind = {
        kind: {"accuracy": round(row[kind] / sum(row.values()), 3), "count": sum(row.values())}
        for kind, row in confusion.items()
        if row
    }
    timings.sort()
    return {
        "accuracy": round(right / total, 3),
        "per_kind": per_kind,
        "confusion": {kind: dict(row) for kind, row in confusion.items() if row},
        "turns": total,
        "analysis_ms": {
            "median": round(timings[len(timings) // 2], 3),
            "p95": round(timings[int(len(timings) * 0.95)], 3),
            "max": round(timings[-1], 3),
        },
    }


def format_report(report: dict) -> str:
    lines = [f"accuracy {report['accuracy']:.3f} on {report['turns']} turns"]
    for kind, figures in report["per_kind"].items():
        wrong = {k: n for k, n in report["confusion"][kind].items() if k != kind}
        lines.append(
            f"  {kind:<10} {figures['accuracy']:.3f} of {figures['count']:>3}"
            + (f"  (taken for {wrong})" if wrong else "")
        )
    timing = report["analysis_ms"]
    lines.append(
        f"analysis per turn: median {timing['median']} ms, p95 {timing['p95']} ms, "
        f"max {timing['max']} ms"
    )
    return "\n".join(lines)
