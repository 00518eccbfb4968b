"""A synthetic technical manual with known facts, for the documents benchmark.

Each page holds about 3,000 characters: filler sentences that share the manual's
vocabulary (machines, components, model numbers), and two *facts* found on that page
only ("The intake valve of the Orion model 117 must be replaced every 9 weeks.").
A question asks for one fact in other words ("How often should the intake valve on
Orion model 117 be replaced?"); the chunk holding the fact's sentence is the evidence.
The vocabulary is shared on purpose, so finding the evidence means telling model 117's
valve from model 171's and from the Orion's other parts, not matching a rare word.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MACHINES = ["Orion", "Vega", "Lyra", "Atlas", "Nova", "Helix", "Kepler", "Zephyr"]
COMPONENTS = [
    "intake valve", "drive belt", "pressure sensor", "cooling fan", "fuel filter",
    "control board", "hydraulic pump", "door seal", "heating coil", "main bearing",
]  # fmt: skip
ACTIONS = [("replaced", "replace"), ("inspected", "inspect"), ("cleaned", "clean"),
           ("calibrated", "calibrate"), ("lubricated", "lubricate")]  # fmt: skip
UNITS = ["days", "weeks", "months"]
FILLER = [
    "Always switch off the {m} before opening any panel.",
    "The {c} sits behind the second access panel on most {m} units.",
    "Operators of the {m} series should keep a maintenance log next to the unit.",
    "A worn {c} shows itself through noise, heat or a drop in output.",
    "Spare parts for the {m} are listed in the appendix by model number.",
    "Use only tools approved for the {m} range when working on the {c}.",
    "Record the serial number of the {c} whenever it is changed.",
    "The warranty of the {m} does not cover damage from skipped maintenance.",
    "Training for the {m} covers the {c} and the safety interlocks.",
    "Check the {c} for dust and loose fittings during each routine visit.",
]


@dataclass(frozen=True)
class Fact:
    page: int  # 1-based
    sentence: str
    question: str
    #: Words unique to this fact: a chunk holding them is the evidence.
    key_phrase: str


def manual_pages(
    pages: int, *, seed: int = 5, chars_per_page: int = 3000
) -> tuple[list[list[str]], list[Fact]]:
    """(pages as lists of lines of at most ~90 characters, the facts they hold)."""
    rng = random.Random(seed)
    used: set[tuple] = set()
    out_pages: list[list[str]] = []
    facts: list[Fact] = []
    for page in range(1, pages + 1):
        sentences = []
        for _ in range(2):
            while True:
                key = (rng.choice(MACHINES), rng.randrange(100, 1000), rng.choice(COMPONENTS))
                if key not in used:
                    used.add(key)
                    break
            machine, model, component = key
            past, verb = rng.choice(ACTIONS)
            every = f"{rng.randrange(2, 30)} {rng.choice(UNITS)}"
            key_phrase = f"{component} of the {machine} model {model}"
            sentence = f"The {key_phrase} must be {past} every {every}."
            question = rng.choice(
                [
                    f"How often should the {component} on {machine} model {model} be {past}?",
                    f"When do I need to {verb} the {component} of a {machine} {model}?",
                    f"What is the {verb} interval for the {machine} {model} {component}?",
                ]
            )
            facts.append(Fact(page, sentence, question, key_phrase))
            sentences.append(sentence)
        text: list[str] = []
        length = 0
        while length < chars_per_page:
            filler = rng.choice(FILLER).format(m=rng.choice(MACHINES), c=rng.choice(COMPONENTS))
            text.append(filler)
            length += len(filler) + 1
        for sentence in sentences:
            text.insert(rng.randrange(len(text) + 1), sentence)
        out_pages.append(_wrap(" ".join(text)))
    return out_pages, facts


def _wrap(text: str, width: int = 90) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines
