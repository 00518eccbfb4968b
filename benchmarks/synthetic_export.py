"""A synthetic ChatGPT export of any size, for measuring the import (``bench import``,
:mod:`benchmarks.bench_import`): conversations of varied topics and lengths, each with an edited
question whose abandoned branch must not be imported, in the published format."""

from __future__ import annotations

import json
import random
from pathlib import Path

TOPICS = {
    "travel": "trip flight hotel Kyoto Lisbon train museum beach itinerary visa luggage",
    "cooking": "recipe sourdough oven garlic pasta curry spices dough bake vegetarian",
    "code": "python function error test commit branch database query deploy refactor",
    "health": "running knee sleep marathon stretch protein doctor allergy yoga routine",
    "money": "budget savings rent invoice tax pension loan spending salary account",
    "garden": "tomatoes soil compost seeds watering roses pruning shade pots harvest",
}
GLUE = [
    "the",
    "a",
    "my",
    "and",
    "with",
    "for",
    "about",
    "after",
    "before",
    "because",
    "when",
    "which",
    "this",
    "that",
    "our",
]


def _sentence(rng: random.Random, topic: list[str], words: int) -> str:
    chosen = [rng.choice(topic) if rng.random() < 0.45 else rng.choice(GLUE) for _ in range(words)]
    return " ".join(chosen).capitalize() + "."


def _text(rng: random.Random, topic: list[str], low: int, high: int) -> str:
    total, sentences = rng.randint(low, high), []
    while total > 0:
        length = min(total, rng.randint(6, 18))
        sentences.append(_sentence(rng, topic, length))
        total -= length
    return " ".join(sentences)


def _node(node_id: str, parent: str | None, role: str | None, text: str, at: float) -> dict:
    message = None
    if role is not None:
        message = {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at,
            "update_time": None,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully",
            "end_turn": role == "assistant",
            "weight": 1.0,
            "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {},
            "recipient": "all",
        }
    return {"id": node_id, "message": message, "parent": parent, "children": []}


def synthetic_conversation(rng: random.Random, index: int, messages: int, start: float) -> dict:
    """One conversation whose shown branch has ``messages`` messages (alternating user
    and assistant), plus one abandoned question and answer off its middle."""
    topic_name = rng.choice(list(TOPICS))
    topic = TOPICS[topic_name].split()
    mapping = {f"c{index}-root": _node(f"c{index}-root", None, None, "", start)}
    parent, at = f"c{index}-root", start
    fork_at = messages // 2 - (messages // 2) % 2  # before a user's message
    for position in range(messages):
        role = "user" if position % 2 == 0 else "assistant"
        if position == fork_at:  # the user edited this question: a branch left behind
            for offset, (old_role, low, high) in enumerate(
                (("user", 8, 40), ("assistant", 40, 120))
            ):
                node_id = f"c{index}-old{offset}"
                previous = parent if offset == 0 else f"c{index}-old0"
                mapping[node_id] = _node(
                    node_id, previous, old_role, _text(rng, topic, low, high), at
                )
                mapping[previous]["children"].append(node_id)
        at += rng.randint(20, 600)
        node_id = f"c{index}-m{position}"
        low, high = (8, 60) if role == "user" else (40, 250)
        mapping[node_id] = _node(node_id, parent, role, _text(rng, topic, low, high), at)
        mapping[parent]["children"].append(node_id)
        parent = node_id
    return {
        "title": f"{topic_name.capitalize()} question {index}",
        "create_time": start,
        "update_time": at,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": parent,
        "conversation_id": f"synthetic-{index:06d}",
        "id": f"synthetic-{index:06d}",
        "is_archived": False,
        "safe_urls": [],
    }


def write_synthetic_export(
    path: Path, conversations: int, messages_per_conversation: int, seed: int = 7
) -> int:
    """Write the export to ``path``; returns the number of messages its shown branches
    hold (what an import stores)."""
    rng = random.Random(seed)
    start = 1_640_995_200.0  # 2022-01-01: three years of history
    data = []
    for index in range(conversations):
        start += rng.randint(3_600, 86_400)
        data.append(synthetic_conversation(rng, index, messages_per_conversation, start))
    path.write_text(json.dumps(data), encoding="utf-8")
    return conversations * messages_per_conversation
