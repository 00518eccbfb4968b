"""A turn's history: which earlier messages of the conversation its prompt sends, within
the history's room.

The history has the budget less :data:`TURN_SHARE` of it (or less the user's message, if
that is longer). Each user message is sent as its own prompt carried it
(:func:`history_text`), so each prompt starts with the whole previous prompt and a
server's prompt cache reads only the new turn. When the history overflows its room, the
oldest messages go until it fills at most :data:`CUT_TO_SHARE` of it
(:func:`history_start`, replayed from the conversation's start): the start of the prompt
then stays put while the history grows back, and moves only at those cuts. A message
folded into a summary is never sent as raw text: its summary stands for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.memory.prompt_lines import system_message_text
from acai_desktop.core.memory.tokens import estimate_message_tokens
from acai_desktop.core.records.conversations import Message, MessageStatus

#: The share of the budget kept for the turn's own part (the user's new message and the
#: memories, recalled messages and passages found for it): the history never takes it.
TURN_SHARE = 0.4
#: When the history overflows its room, the oldest messages go until what is left fills
#: at most this share of it: the prompt's start then stays the same for several turns.
CUT_TO_SHARE = 0.5
# Messages that carry words worth sending back to the model.
_SENDABLE = frozenset({MessageStatus.COMPLETE, MessageStatus.STOPPED})


def history_start(costs: Sequence[int], room: int) -> int:
    """Where the history in the prompt starts (an index into ``costs``, each message's
    cost, oldest first) when it may take ``room`` tokens. Replayed message by message
    from the conversation's start, so each turn finds the same start as the last one
    until the history overflows again: then the oldest go until the rest fills at most
    :data:`CUT_TO_SHARE` of the room."""
    start = total = 0
    for end, cost in enumerate(costs):
        total += cost
        if total <= room:
            continue
        while start <= end and total > room * CUT_TO_SHARE:
            total -= costs[start]
            start += 1
    return start


def stable_start(
    *,
    system_prompt: str,
    budget_tokens: int,
    recent_messages: Sequence[Message] = (),
    instructions: UsedInstructions | None = None,
) -> list[dict]:
    """The start of the next turn's prompt, known before the user writes: the system
    message and the history of ``recent_messages`` (the conversation so far, unfolded),
    as :func:`build_context` will send them for a message of usual length. A server that
    reads it while the user reads and types reads only the new message when it comes
    (see core.models.prompt_warmer)."""
    system_text = system_message_text(system_prompt, instructions)
    within = history_within(recent_messages, history_room(system_text, budget_tokens))
    return [{"role": "system", "content": system_text}, *within.history]


def history_room(system_prompt: str, budget_tokens: int, asked_tokens: int = 0) -> int:
    """The tokens the history may take in a prompt of ``budget_tokens``: the budget less
    the system message and the turn's share (or the user's message, if that is longer)."""
    turn_room = max(int(budget_tokens * TURN_SHARE), asked_tokens)
    return max(budget_tokens - estimate_message_tokens(system_prompt) - turn_room, 0)


def left_out_of_prompt(messages: Sequence[Message], room: int) -> list[Message]:
    """The sendable messages of a conversation (``messages``, unfolded) that its prompt
    has cut, when the history may take ``room`` tokens: folding them into a summary
    leaves the prompt's start as it is."""
    sendable, _folded = _sendable(messages)
    return [m for m, _text, _cost in sendable[: history_start([c for *_m, c in sendable], room)]]


def _sendable(messages: Sequence[Message]) -> tuple[list[tuple[Message, str, int]], int]:
    """The messages whose words go back to the model, oldest first, with their text in
    the history and its cost, and how many a summary stands for (folded, never sent as
    raw text)."""
    asked_as = {
        m.parent_id: m.sent_content for m in messages if m.role == "assistant" and m.sent_content
    }
    sendable: list[tuple[Message, str, int]] = []
    folded = 0
    for message in sorted(messages, key=lambda m: m.id):
        if message.folded_into is not None:
            folded += 1
            continue
        if message.role not in ("user", "assistant") or message.status not in _SENDABLE:
            continue
        if not message.content.strip():
            continue
        text = history_text(message, asked_as.get(message.id))
        sendable.append((message, text, estimate_message_tokens(text)))
    return sendable, folded


def history_text(message: Message, asked_as: str | None = None) -> str:
    """What a past message says in the history: a user message as the prompt of its
    answer carried it (``asked_as``, its turn's data too), an answer as it was written.
    So each prompt starts with the whole previous prompt and its answer, word for word,
    and a server's prompt cache reads only the new turn (issue 22); sending the user's
    bare words instead changed the prompt right after the last-but-one answer. The data
    costs history room, and :func:`history_start`'s cuts (and the summaries) take it
    into account like the words.

    The answer keeps that form of the question (its ``sent_content``), so the user's
    row is written once; profiles from before kept it on the user's message."""
    if message.role == "user":
        return asked_as or message.sent_content or message.content
    return message.content


@dataclass(frozen=True)
class HistoryWithin:
    """The history a prompt sends (for the chat API) and what it costs; how many
    messages its cuts left out and how many a summary stands for."""

    history: list[dict]
    tokens: int
    cut: int
    folded: int


def history_within(recent_messages: Sequence[Message], room: int) -> HistoryWithin:
    """The conversation's sendable messages from :func:`history_start` on."""
    sendable, folded = _sendable(recent_messages)
    start = history_start([cost for *_sent, cost in sendable], room)
    kept = sendable[start:]
    history = [{"role": message.role, "content": text} for message, text, _cost in kept]
    return HistoryWithin(history, sum(cost for *_sent, cost in kept), start, folded)
