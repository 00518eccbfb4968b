"""A heuristic planner: what kind of task a message is, how hard, and the steps.

It runs before every turn (microseconds, no model call); its output is stored with the
answer it planned (``messages.plan``) and steers retrieval depth and the answer budget.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from acai_desktop.core.routing.turn_needs import AttachedFile, TurnNeeds, analyse_turn

if TYPE_CHECKING:  # numpy's, loaded with the embedder, not at start
    from acai_desktop.core.routing.turn_meaning import TurnMeaning


class TaskType(StrEnum):
    SMALL_TALK = "small_talk"
    PERSONAL_INFO = "personal_info"
    RECALL = "recall"
    QUESTION = "question"
    CODING = "coding"
    WRITING = "writing"
    PLANNING = "planning"
    INSTRUCTION = "instruction"


class Complexity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


ACKNOWLEDGEMENTS = frozenset(
    {
        "ok", "okay", "k", "kk", "thanks", "thank you", "thx", "ty", "got it", "cool", "nice",
        "great", "sure", "yes", "no", "yep", "nope", "hi", "hello", "hey", "bye", "goodbye",
        "alright", "right", "fine", "perfect", "awesome", "lol", "sounds good", "makes sense",
        "good", "understood", "noted", "thanks a lot", "thank you so much", "ok thanks",
        "okay thanks", "great thanks", "good morning", "good night", "see you",
    }
)  # fmt: skip

_CODE = re.compile(
    r"```|\b(code|function|class|bug|error|exception|stack trace|python|javascript|typescript|"
    r"rust|java|sql|regex|api|compile|refactor|script|debug)\b",
    re.I,
)
_WRITING = re.compile(r"\b(write|draft|rewrite|essay|email|letter|poem|story|summar)", re.I)
_PLANNING = re.compile(
    r"\b(plan|schedule|itinerary|roadmap|steps to|how do i|how should i)\b", re.I
)
_RECALL = re.compile(
    r"\b(do you remember|what do you know about me|remind me|what did i (say|tell)|"
    r"what('s| is| are) my)\b",
    re.I,
)
_SELF = re.compile(
    r"\b(i am|i'm|i live|i work|i prefer|i like|i love|i hate|my name|i have|i've|"
    r"remember that)\b",
    re.I,
)
_IMPERATIVE = re.compile(
    r"^(please\s+)?(make|create|list|give|show|explain|tell|find|compare|translate|fix)\b", re.I
)


@dataclass(frozen=True)
class Plan:
    task_type: TaskType
    complexity: Complexity
    steps: list[str]
    #: How many long-term memories and recalled messages of each tier to retrieve for
    #: this turn at the relevance floor's usual bar (more come in on strong evidence, as
    #: deep as the budget reaches: context_builder.recall_reach).
    retrieval_k: int
    #: What the turn asks of the answering model (its kind, size, whether it needs a
    #: model that sees): stored with the message for the model router (``core/routing``).
    needs: TurnNeeds

    def to_dict(self) -> dict:
        data = asdict(self)
        data["task_type"] = self.task_type.value
        data["complexity"] = self.complexity.value
        data["needs"] = self.needs.to_dict()
        return data


def normalise_for_matching(text: str) -> str:
    return re.sub(r"[^\w\s']", "", text.lower()).strip()


def is_acknowledgement(text: str) -> bool:
    """True for "okay", "thanks!", "got it." and the like: nothing to remember or plan."""
    return normalise_for_matching(text) in ACKNOWLEDGEMENTS


def plan_message(
    text: str, meaning: TurnMeaning | None = None, attachments: tuple[AttachedFile, ...] = ()
) -> Plan:
    """``meaning``: the task analysis' meaning signal (None: its rules alone);
    ``attachments``: the files the message was sent with."""
    words = len(text.split())
    needs = analyse_turn(text, attachments, meaning=meaning)
    if is_acknowledgement(text) or not text.strip():
        return Plan(TaskType.SMALL_TALK, Complexity.LOW, ["reply briefly"], 3, needs)
    # A statement about oneself wins over topic words: "I prefer Python" is news about
    # the user, not a coding task.
    if _SELF.search(text) and "?" not in text:
        task = TaskType.PERSONAL_INFO
    elif _RECALL.search(text):
        task = TaskType.RECALL
    elif _CODE.search(text):
        task = TaskType.CODING
    elif _WRITING.search(text):
        task = TaskType.WRITING
    elif _PLANNING.search(text):
        task = TaskType.PLANNING
    elif "?" in text:
        task = TaskType.QUESTION
    elif _IMPERATIVE.search(text):
        task = TaskType.INSTRUCTION
    else:
        task = TaskType.QUESTION

    clauses = len(re.findall(r"[.?!;]|\band\b|\bthen\b", text))
    if words > 120 or clauses >= 6 or text.count("```") >= 2:
        complexity = Complexity.HIGH
    elif words > 30 or clauses >= 3:
        complexity = Complexity.MEDIUM
    else:
        complexity = Complexity.LOW

    steps = {
        TaskType.RECALL: ["retrieve what is remembered", "answer from memory, say what is unknown"],
        TaskType.PERSONAL_INFO: ["acknowledge", "note the new information"],
        TaskType.CODING: ["understand the problem", "use the user's known stack", "write code"],
        TaskType.WRITING: ["gather the user's preferences", "draft"],
        TaskType.PLANNING: ["gather constraints", "lay out steps"],
        TaskType.INSTRUCTION: ["do what is asked"],
        TaskType.QUESTION: ["retrieve relevant memories", "answer"],
    }[task]
    retrieval_k = {Complexity.LOW: 6, Complexity.MEDIUM: 8, Complexity.HIGH: 12}[complexity]
    if task is TaskType.RECALL:
        retrieval_k += 4
    return Plan(task, complexity, list(steps), retrieval_k, needs)
