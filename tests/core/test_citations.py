"""Inline citations in the core: the prompt numbers a turn's passages and recalled
messages, the numbers read back from an answer's provenance are the prompt's (also after
a recalled chat is deleted), and an answer's markers are placed by paragraph, with
invented numbers dropped and code left alone."""

from __future__ import annotations

import re

from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.memory.context_builder import build_context
from acai_desktop.core.memory.retrieval import RetrievedMessage
from acai_desktop.core.records.conversations import AnswerSource, RecalledMessage
from acai_desktop.core.resources import resource_text
from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store.conversation_deletion import delete_conversation
from acai_desktop.core.store.database import connect
from acai_desktop.core.store.documents import record_evidence
from acai_desktop.core.store.provenance import citations_in_conversation, record_answer_sources
from acai_desktop.core.turns.citations import (
    citations_of,
    copied_text,
    number_sources,
    place_citations,
)
from tests.core.test_context_builder import hit, memory
from tests.core.test_documents_prompt import hit as passage_hit


def recalled(message_id: int, text: str, chat: str = "Bikes") -> RecalledMessage:
    return RecalledMessage(message_id, 3, chat, "user", text, "2026-03-04T10:00:00.000000+00:00")


def marks(text: str) -> list[str]:
    """The numbered lines of a prompt's data ("- [n] ..."), by number."""
    return re.findall(r"^- \[(\d+)\] (.*)$", text, re.M)


def test_the_prompt_numbers_passages_then_recalled_messages_and_asks_for_them():
    # A memory ranked between the two recalled messages gets no number.
    built = build_context(
        system_prompt=resource_text("prompts", "system.txt"),
        user_message="Which bike, and when are deployments?",
        budget_tokens=4000,
        evidence=[passage_hit(1, "Deployments on Tuesdays."), passage_hit(2, "Not Fridays.")],
        retrieved=[
            RetrievedMessage(recalled(7, "My bike is a blue Gazelle."), 1, 0.9, ["lexical"]),
            hit(memory(5, "The user lives in Utrecht."), 2, 0.8),
            RetrievedMessage(recalled(8, "I bought it in 2020."), 3, 0.7, ["lexical"]),
        ],
    )
    data = built.messages[-1]["content"]
    # (The memories' block, recalled messages inside, comes before the documents'.)
    numbered = sorted(marks(data), key=lambda mark: int(mark[0]))
    assert [n for n, _line in numbered] == ["1", "2", "3", "4"]
    assert numbered[0][1].startswith('"manual.pdf", p. 3: Deployments')
    assert numbered[2][1].endswith("You: My bike is a blue Gazelle.")
    assert numbered[3][1].endswith("You: I bought it in 2020.")
    assert "- The user lives in Utrecht." in data  # a memory: no number
    # The instructions (the stable system message) ask for the numbers.
    system = built.messages[0]["content"]
    assert "numbered: [1], [2]" in system and "like [1]" in system

    # Read back from what provenance records, the numbers are the prompt's.
    sources = [
        AnswerSource(99, u.memory_id, u.rank, u.score, u.reasons, recalled_message_id=u.message_id)
        for u in built.used
    ]
    evidence = [
        EvidenceSource(99, e.rank, 1, 1, "manual.pdf", 3, 0.5, [], "") for e in built.evidence
    ]
    citations = citations_of(evidence, sources, built.recalled)
    assert [(c.number, c.message.id if c.message else None) for c in citations] == [
        (1, None),
        (2, None),
        (3, 7),
        (4, 8),
    ]


def _chat_with_message(db, title: str, text: str) -> tuple[int, int]:
    chat = conversation_sql.create_conversation(db, title)
    return chat.id, conversation_sql.add_message(db, chat.id, "user", text).id


def test_numbers_read_back_after_a_restart_and_after_a_recalled_chat_is_deleted(tmp_path):
    db = connect(tmp_path / "db.sqlite3")
    first_chat, first = _chat_with_message(db, "Bikes", "My bike is a blue Gazelle.")
    _second_chat, second = _chat_with_message(db, "Shop", "I bought it in 2020.")
    chat = conversation_sql.create_conversation(db, "Now")
    conversation_sql.add_message(db, chat.id, "user", "Which bike?")
    answer = conversation_sql.add_message(db, chat.id, "assistant", "A Gazelle [2] [3].")
    memory_id = db.execute(
        "INSERT INTO memories (kind, content, origin, created_at, updated_at) "
        "VALUES ('fact', 'Lives in Utrecht', 'user', 'x', 'x')"
    ).lastrowid
    record_evidence(
        db, answer.id, [EvidenceSource(answer.id, 1, None, None, "manual.pdf", 3, 0.5, [], "x")]
    )
    record_answer_sources(
        db,
        answer.id,
        [
            AnswerSource(answer.id, None, 1, 0.9, [], recalled_message_id=first),
            AnswerSource(answer.id, memory_id, 2, 0.8, []),
            AnswerSource(answer.id, None, 3, 0.7, [], recalled_message_id=second),
        ],
    )
    numbers = {
        c.number: (c.message.id if c.message else "passage")
        for c in citations_in_conversation(db, chat.id)[answer.id]
    }
    assert numbers == {1: "passage", 2: first, 3: second}

    # The first recalled chat is deleted: its number goes, the next keeps its own.
    delete_conversation(db, first_chat)
    citations = citations_in_conversation(db, chat.id)[answer.id]
    assert [(c.number, c.message.id if c.message else None) for c in citations] == [
        (1, None),
        (3, second),
    ]
    assert citations[1].short_label == "You, " + citations[1].message.created_at[:10] + (
        ', in the chat "Shop"'
    )


def test_number_sources_counts_from_each_rank_not_from_the_rows_left():
    evidence = [EvidenceSource(1, r, None, None, "a.pdf", None, 0.5, [], "") for r in (1, 2)]
    sources = [
        AnswerSource(1, 10, 1, 0.9, []),
        AnswerSource(1, None, 3, 0.8, [], recalled_message_id=30),  # rank 2 was deleted
        AnswerSource(1, 11, 4, 0.7, []),
        AnswerSource(1, None, 5, 0.6, [], recalled_message_id=50),
    ]
    numbered = [
        (n, getattr(s, "recalled_message_id", None)) for n, s in number_sources(evidence, sources)
    ]
    # Ranks 2 and 3 were recalled messages 1 and 2 (numbers 3 and 4); rank 5 is number 5.
    assert numbered == [(1, None), (2, None), (4, 30), (5, 50)]


ANSWER = """## Bikes [2]
Your bike is a blue Gazelle [1]. You bought it in 2020 [9].
It is kept in the shed [2][1].

- It has three gears [1, 9]
- It is blue
  like the sky [2]

```python
gears = bike[1]  # [1]
```

| part | note |
|---|---|
| frame | steel [1] |
| `wheel[2]` | new [9] |

Use `bike [1]` here [3]."""


def chips(numbers) -> str:
    return " " + " ".join(f"<{n}>" for n in numbers)


def test_markers_go_after_their_paragraph_and_invented_numbers_are_dropped():
    placed = place_citations(ANSWER, {1, 2, 3}, chips)
    assert placed.split("\n") == [
        "## Bikes <2>",
        "Your bike is a blue Gazelle. You bought it in 2020.",
        "It is kept in the shed. <1> <2>",
        "",
        "- It has three gears <1>",
        "- It is blue",
        "  like the sky <2>",
        "",
        "```python",
        "gears = bike[1]  # [1]",
        "```",
        "",
        "| part | note |",
        "|---|---|",
        "| frame | steel <1> |",
        "| `wheel[2]` | new |",
        "",
        "Use `bike [1]` here. <3>",
    ]
    # Code keeps its brackets; links and references are not markers.
    assert place_citations("See [1](https://example.org) and [x][1].", {1}, chips) == (
        "See [1](https://example.org) and [x][1]."
    )
    # A marker written against its word is one too.
    assert place_citations("On Tuesdays[1], never Fridays[9].", {1}, chips) == (
        "On Tuesdays, never Fridays. <1>"
    )


def test_copy_keeps_real_citations_and_lists_their_sources():
    evidence = EvidenceSource(1, 1, None, None, "manual.pdf", 3, 0.5, [], "snippet")
    citations = citations_of([evidence], [], {})
    copied = copied_text("Tuesdays [1].\n\nNever Fridays [9].", citations)
    assert copied == "Tuesdays. [1]\n\nNever Fridays.\n\nSources:\n\n[1] manual.pdf, p. 3\n"
    # An answer whose turn had no numbered source is copied as written.
    assert copied_text("A list: [1] and [2].", ()) == "A list: [1] and [2]."
