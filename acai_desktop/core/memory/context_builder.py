"""Assembling one turn's prompt inside a token budget, and saying what went into it.

The prompt is laid out so that its start stays the same from one turn to the next, and a
server that keeps what it read of the last prompt (llama.cpp, a cloud provider's prompt
cache) reads only what is new. A 2,000-token prompt read again from scratch costs a small
model on a laptop CPU seconds to minutes before the first word. In order:

1. the system message: the instructions (ours, then the user's custom instructions),
   the same in every turn;
2. the conversation's history, oldest first, each user message as its own prompt carried
   it (:func:`.prompt_history.history_text`): the prompt then starts with the previous
   prompt whole;
3. the new user message, carrying first this turn's data (pinned and retrieved memories,
   messages recalled from past conversations, passages of the user's documents, this
   conversation's summaries) and then, under :data:`USER_MESSAGE_HEADER`, the user's own
   words. A turn that brings no data sends the words alone: the system prompt says once
   what that means (nothing relevant was remembered). A note saying so in each turn was
   39 of the built-in model's tokens read again at every message (issue 22). The
   passages and the recalled messages are numbered for citing, ``[1]``, ``[2]``… (the
   passages first; the rule is :mod:`acai_desktop.core.turns.citations`). A memory that an
   earlier user message still in the history quotes is not quoted again
   (:func:`.prompt_lines.quoted_in`). Everything that
   depends on the question comes after the history. The summaries come there too, not before the
   history: folding messages that had already left the prompt then changes nothing in
   its start.

The data rides in the user message, not in a system message of its own: many chat
templates accept one system message only, at the start, and some refuse two user
messages in a row. :func:`asked_text` gives back the user's own words.

Budget (``budget_tokens``): the system message and the user's words always go in (the
custom instructions are bounded, see ``core.conversations.custom_instructions``). The history has
the
budget less ``TURN_SHARE`` of it (:mod:`.prompt_history`); the
turn's data fills what the history left, by priority: pinned memories, the lasting facts
that bear on the request (``bearing``), document passages (within ``evidence_share``),
recalled messages and retrieved memories (best rank first, each within its own share:
``recall_share``, ``memory_share``), then the summaries, newest first. When the history
overflows its room, its oldest messages are cut (:mod:`.prompt_history`): the start of the
prompt then stays put while the history grows back, and moves only at those cuts.

The custom instructions are the user's own words, written in Settings or a chat's menu:
unlike memories they are instructions, and are framed so (:mod:`.prompt_lines`),
right after the system prompt, the prompt's stable start (a local server reuses it).

A message that was folded into a summary (``folded_into`` set) is never sent as raw
text: its summary stands for it. Memories sit in labelled sections inside a data block
that says it is quoted data, one line each (:mod:`.prompt_lines`). Token counts come
from :func:`acai_desktop.core.memory.tokens.estimate_tokens`, the estimate used
everywhere in the program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.documents import prompt_block
from acai_desktop.core.documents.model import RetrievedPassage
from acai_desktop.core.memory.prompt_history import history_room, history_within
from acai_desktop.core.memory.prompt_lines import (
    BEARING_HEADER,
    MEMORY_BLOCK_TOKENS,
    PINNED_HEADER,
    RECALLED_HEADER,
    RETRIEVED_HEADER,
    SUMMARY,
    SUMMARY_HEADER,
    bearing_reason,
    memory_block,
    memory_line,
    quoted_in,
    recalled_line,
    system_message_text,
)
from acai_desktop.core.memory.retrieval import PINNED, Retrieved, RetrievedMessage
from acai_desktop.core.memory.tokens import estimate_message_tokens, estimate_tokens
from acai_desktop.core.records.conversations import Message, RecalledMessage
from acai_desktop.core.records.memories import MemoryItem
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER
from acai_desktop.core.turns.citations import recalled_number

#: The share of the budget that retrieved memories and recalled messages may take. The
#: ranking is read deep and everything that passes the relevance floor is packed, best
#: first, until this share is used: a question whose evidence lies in several places
#: gets them all, one that needs one thing takes little. Measured with ``eval ablation``
#: (docs/benchmarks.md).
RECALL_SHARE = 0.5
#: How deep the ranking is read for a turn: as many items as the recall share could
#: hold at about this many tokens each (a short chat turn's line), and at least
#: :data:`MIN_REACH`, at most :data:`MAX_REACH` (each more costs the ranking a record).
TOKENS_PER_RECALLED = 40
MIN_REACH = 40
MAX_REACH = 250


def recall_reach(budget_tokens: int, recall_share: float = RECALL_SHARE) -> int:
    """How deep to read the ranking for a prompt of ``budget_tokens`` whose recalled
    messages take ``recall_share`` of it: a 3,000-token budget reads 40 deep, a
    16,000-token one 200 (see HybridRetriever.search's ``reach``)."""
    room = int(budget_tokens * recall_share) // TOKENS_PER_RECALLED
    return max(MIN_REACH, min(MAX_REACH, room))


#: The share retrieved memories (facts, summaries, notes) may take, beside the recalled
#: messages' and not out of it: a memory adds to what was said, never displaces it. The
#: best one goes in whatever the share, while the budget has room (a small budget's
#: share may hold none).
MEMORY_SHARE = 0.15
#: The built-in model's shares: it reads a 1,200-token prompt in about 5 s on two cores
#: (`bench local-model`), so what a turn recalls keeps about the room it had before the
#: ranking was read deep (600-odd tokens of its 3,000): its first word stays quick.
BUILT_IN_RECALL_SHARE = 0.2
BUILT_IN_MEMORY_SHARE = 0.05


def prompt_shares(built_in: bool) -> dict[str, float]:
    """The shares of the prompt budget a turn's recalled messages and memories take
    (``recall_share`` and ``memory_share``), on the built-in model or another."""
    if built_in:
        return {"recall_share": BUILT_IN_RECALL_SHARE, "memory_share": BUILT_IN_MEMORY_SHARE}
    return {"recall_share": RECALL_SHARE, "memory_share": MEMORY_SHARE}


@dataclass(frozen=True)
class UsedMemory:
    """One memory, or one recalled message (``message_id``, and ``memory_id`` None),
    placed in the prompt: what ``answer_sources`` records."""

    memory_id: int | None
    rank: int  # 1-based position among the items in the prompt
    score: float
    reasons: list[str]
    message_id: int | None = None


@dataclass(frozen=True)
class UsedEvidence:
    """One document passage placed in the prompt (``answer_evidence`` records it)."""

    hit: RetrievedPassage
    rank: int  # 1-based among the passages in the prompt: "source N" in the block


@dataclass
class Dropped:
    """What did not fit the budget (or was not sendable), by kind."""

    pinned: int = 0
    bearing: int = 0  # lasting facts that bear on the request (core.rules.bearings)
    retrieved: int = 0
    summaries: int = 0
    messages: int = 0
    folded: int = 0  # raw messages left out because a summary stands for them
    evidence: int = 0  # document passages over their share of the budget
    irrelevant: int = 0  # retrieved items and passages below the relevance floor (never placed)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class BuiltContext:
    messages: list[dict]  # for the OpenAI chat API
    used: list[UsedMemory]
    tokens: int
    dropped: Dropped = field(default_factory=Dropped)
    # The recalled messages among ``used``, by id.
    recalled: dict[int, RecalledMessage] = field(default_factory=dict)
    # The document passages in the prompt, in their order.
    evidence: list[UsedEvidence] = field(default_factory=list)
    # The user's custom instructions in the prompt (None: there were none).
    instructions: UsedInstructions | None = None
    # What the turn's memories, recalled messages, summaries and passages took of
    # ``tokens``, framing included (memory's share of the prompt, see core.turns.token_usage).
    memory_tokens: int = 0


#: What the user message's framing costs when the turn brings data (the header line).
USER_MESSAGE_HEADER_TOKENS = estimate_tokens(USER_MESSAGE_HEADER) + 2


def build_context(
    *,
    system_prompt: str,
    user_message: str,
    budget_tokens: int,
    pinned: Sequence[MemoryItem] = (),
    bearing: Sequence[tuple[MemoryItem, str]] = (),
    retrieved: Sequence[Retrieved] = (),
    summaries: Sequence[MemoryItem] = (),
    recent_messages: Sequence[Message] = (),
    evidence: Sequence[RetrievedPassage] = (),
    evidence_share: float = prompt_block.EVIDENCE_SHARE,
    recall_share: float = RECALL_SHARE,
    memory_share: float = MEMORY_SHARE,
    instructions: UsedInstructions | None = None,
    stale: Mapping[int, str] | None = None,
) -> BuiltContext:
    """``retrieved``: memories and recalled messages, as the retriever ranked them; only
    those that pass the relevance floor (``relevant``) are placed. ``evidence``:
    document passages, best first; they take at most ``evidence_share`` of
    ``budget_tokens``, so documents can't crowd out the memory and the history. When no
    pinned memory, relevant item or passage goes in, the user's words go alone (the
    system prompt says what that means). ``bearing``: lasting facts that bear on the
    kind of request this is, each with what it tells ("your diet"), placed after the
    pinned memories (see HybridRetriever.bearing_facts). ``instructions``: the user's
    custom instructions in effect for this chat, placed whole right after the system
    prompt. ``stale``: the facts past their lifetime, each with its mark ("as of March
    2025", core/memory/fact_ages.py), said so in their lines."""
    dropped = Dropped()
    dropped.irrelevant = sum(1 for hit in retrieved if not hit.relevant)
    dropped.irrelevant += sum(1 for hit in evidence if not hit.relevant)
    retrieved = [hit for hit in retrieved if hit.relevant]
    evidence = [hit for hit in evidence if hit.relevant]
    # The system message: our instructions, then the user's (the prompt's stable start).
    system_text = system_message_text(system_prompt, instructions)
    system_tokens = estimate_message_tokens(system_text)
    asked_tokens = estimate_message_tokens(user_message)
    # The stable part's room depends on nothing this turn brings but an unusually long
    # message: the same history fits turn after turn.
    room = history_room(system_text, budget_tokens, asked_tokens)
    within = history_within(recent_messages, room)
    history, history_tokens = within.history, within.tokens
    dropped.messages += within.cut
    dropped.folded += within.folded
    used_tokens = system_tokens + history_tokens + asked_tokens
    memory_tokens = 0
    # Memories an earlier message in the history already quotes, word for word.
    quoted_before = quoted_in(history)

    def fits(cost: int) -> bool:
        return used_tokens + cost <= budget_tokens

    # Keyed by (False, memory id) or (True, message id), in the order placed.
    placed: dict[tuple[bool, int], tuple[float, list[str]]] = {}
    recalled: dict[int, RecalledMessage] = {}
    sections: dict[str, list[str]] = {
        PINNED_HEADER: [],
        BEARING_HEADER: [],
        RETRIEVED_HEADER: [],
        RECALLED_HEADER: [],
        SUMMARY_HEADER: [],
    }
    retrieved_by_id = {
        hit.memory.id: hit for hit in retrieved if not isinstance(hit, RetrievedMessage)
    }
    has_data = False
    block_open = False  # the memory data block has a line

    def data_cost(cost: int) -> int:
        """``cost`` plus the user message's header, paid by the turn's first data."""
        return cost if has_data else cost + USER_MESSAGE_HEADER_TOKENS

    def place(
        header: str,
        memory: MemoryItem | None,
        score: float,
        reasons: list[str],
        *,
        key: tuple[bool, int] | None = None,
        line: str | None = None,
        room: int | None = None,
    ) -> int | None:
        """Places one line under ``header``: its cost (0 when the history quotes it
        already), or None when it does not fit the budget (or ``room``)."""
        nonlocal used_tokens, memory_tokens, has_data, block_open
        if line is None:
            line = memory_line(memory, (stale or {}).get(memory.id))
        if memory is not None and line in quoted_before:
            # In the prompt already, in the history: the model reads it there, and its
            # place in Sources stays (see quoted_in).
            placed[(False, memory.id)] = (score, reasons)
            return 0
        cost = estimate_tokens(line) + 1
        if not sections[header]:
            cost += estimate_tokens(header) + 2
        if not block_open:
            cost += MEMORY_BLOCK_TOKENS  # the first memory opens the data block
        cost = data_cost(cost)
        if not fits(cost) or (room is not None and cost > room):
            return None
        sections[header].append(line)
        block_open = True
        used_tokens += cost
        memory_tokens += cost
        has_data = True
        placed[key if key is not None else (False, memory.id)] = (score, reasons)
        return cost

    for memory in pinned:
        if (False, memory.id) in placed:
            continue
        hit = retrieved_by_id.get(memory.id)
        reasons = list(hit.reasons) if hit else []
        if PINNED not in reasons:
            reasons.append(PINNED)
        if place(PINNED_HEADER, memory, hit.score if hit else 1.0, reasons) is None:
            dropped.pinned += 1
    for memory, tells in bearing:
        if (False, memory.id) in placed:
            continue
        hit = retrieved_by_id.get(memory.id)
        reasons = [*(hit.reasons if hit else ()), bearing_reason(tells)]
        if place(BEARING_HEADER, memory, hit.score if hit else 1.0, reasons) is None:
            dropped.bearing += 1
    evidence_lines: list[str] = []
    evidence_used: list[UsedEvidence] = []
    evidence_tokens = 0
    evidence_budget = int(budget_tokens * evidence_share)
    for hit in sorted(evidence, key=lambda h: h.rank):
        line = prompt_block.passage_line(len(evidence_lines) + 1, hit.passage)
        cost = estimate_tokens(line) + 1
        if not evidence_lines:
            cost += prompt_block.BLOCK_TOKENS
        cost = data_cost(cost)
        if evidence_tokens + cost > evidence_budget or not fits(cost):
            dropped.evidence += 1
            continue
        evidence_lines.append(line)
        evidence_used.append(UsedEvidence(hit, len(evidence_lines)))
        evidence_tokens += cost
        used_tokens += cost
        memory_tokens += cost
        has_data = True

    def memories_placed() -> int:
        return sum(1 for is_message, _id in placed if not is_message)

    recall_room = int(budget_tokens * recall_share)
    memory_room = int(budget_tokens * memory_share)
    for hit in sorted(retrieved, key=lambda h: h.rank):
        if isinstance(hit, RetrievedMessage):
            key = (True, hit.message.id)
            if key in placed:
                continue
            # Numbered after the passages, in the order placed (core.turns.citations).
            number = recalled_number(len(evidence_lines), len(placed) + 1, memories_placed())
            line = recalled_line(hit.message, number)
            cost = place(
                RECALLED_HEADER, None, hit.score, list(hit.reasons), key=key, line=line,
                room=recall_room,
            )  # fmt: skip
            if cost is None:
                dropped.retrieved += 1
                continue
            recalled[hit.message.id] = hit.message
            recall_room -= cost
            continue
        if (False, hit.memory.id) in placed:
            continue
        # The best memory goes in if the budget has room for it, whatever the share.
        first = not sections[RETRIEVED_HEADER]
        room = None if first else memory_room
        cost = place(RETRIEVED_HEADER, hit.memory, hit.score, list(hit.reasons), room=room)
        if cost is None:
            dropped.retrieved += 1
        else:
            memory_room -= cost
    # Newest summaries first while they fit, then shown oldest first.
    kept_summaries = []
    for memory in sorted(summaries, key=lambda m: (m.created_at, m.id), reverse=True):
        if (False, memory.id) in placed:
            continue
        if memory_line(memory, (stale or {}).get(memory.id)) in quoted_before:
            place(SUMMARY_HEADER, memory, 1.0, [SUMMARY])  # quoted already: no line
        elif place(SUMMARY_HEADER, memory, 1.0, [SUMMARY]) is not None:
            kept_summaries.append(sections[SUMMARY_HEADER].pop())
        else:
            dropped.summaries += 1
    sections[SUMMARY_HEADER] = list(reversed(kept_summaries))

    turn_parts = []
    if block_open:
        turn_parts.append(memory_block([(h, lines) for h, lines in sections.items() if lines]))
    if evidence_lines:
        turn_parts.append(prompt_block.evidence_block(evidence_lines))
    if turn_parts:
        user_message = "\n\n".join([*turn_parts, f"{USER_MESSAGE_HEADER}\n{user_message}"])
    messages = [{"role": "system", "content": system_text}]
    messages += history
    messages.append({"role": "user", "content": user_message})

    used = [
        UsedMemory(
            None if is_message else item_id,
            rank,
            round(score, 6),
            reasons,
            message_id=item_id if is_message else None,
        )
        for rank, ((is_message, item_id), (score, reasons)) in enumerate(placed.items(), start=1)
    ]
    total = sum(estimate_message_tokens(m["content"]) for m in messages)
    return BuiltContext(
        messages=messages,
        used=used,
        tokens=total,
        dropped=dropped,
        recalled=recalled,
        evidence=evidence_used,
        instructions=instructions if instructions else None,
        memory_tokens=memory_tokens,
    )
