"""Why a memory or a message fed a replayed answer or not (a passage:
:mod:`.passage_causes`), cause by cause, in the order they bind:
used (the answer's recorded sources) -> withheld as local only -> newer than the
question -> its status (forgotten, superseded, temporary, a conflict) -> its scope
(another project, a temporary chat, another branch, a document not chosen) -> changed
since -> the budget (pinned and bearing facts, the chat's history) -> the ranking: under
the relevance floor, over its kind's share of the budget, past the depth the turn read,
or never reached.

The ranking's causes come from the replay's own searches (core/why_not/replay.py): the
place, score and floor reading the turn's ranking gave the item, or, for one it did not
return, the same search read deeper."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.explain import explain
from acai_desktop.core.memory.retrieval import (
    Retrieved,
    RetrievedMemory,
    RetrievedMessage,
    floor,
)
from acai_desktop.core.records.conversations import AnswerSource, Conversation, Message
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus
from acai_desktop.core.why_not import fixes, words
from acai_desktop.core.why_not.replay import Replay
from acai_desktop.core.why_not.result import Fix, Reason
from acai_desktop.core.why_not.words import Ranked


@dataclass(frozen=True)
class Finding:
    reason: Reason
    sentence: str
    ranked: Ranked | None = None
    fixes: tuple[Fix, ...] = ()
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Recorded:
    """What the answer recorded as its sources."""

    sources: Sequence[AnswerSource]
    evidence: Sequence[EvidenceSource]


class Lookups(Protocol):
    """What deciding needs to read beside the replay."""

    async def project_name(self, project_id: int) -> str: ...
    async def conversation(self, conversation_id: int) -> Conversation: ...
    async def memory(self, memory_id: int) -> MemoryItem | None: ...
    async def memories_from(self, message_id: int) -> list[MemoryItem]: ...
    async def evidence_scope(self, conversation_id: int) -> tuple[list[int] | None, list[int]]: ...


def used(
    rank: int, score: float, reasons: list[str], question: str, text: str, label: str = "#"
) -> Finding:
    """``label``: how Sources numbers it ("#2" a memory or message, "[1]" a passage)."""
    why = explain(score, reasons, question, text).plain()
    number = f"[{rank}]" if label == "[" else f"#{rank}"
    return Finding(
        Reason.USED,
        f"It was used: {number} of this answer's sources" + (f" ({why})." if why else "."),
        Ranked(rank, score, True),
    )


def withheld(replay: Replay) -> Finding:
    because = replay.withheld_reason or "withheld: local only"
    return Finding(
        Reason.WITHHELD,
        f"It was in the prompt, then {because}: local-only items never reach a model "
        "that runs elsewhere.",
    )


def when(at: str) -> str:
    return at[:16].replace("T", " ")


async def scope_words(replay: Replay, lookups: Lookups, project_id: int) -> str:
    """ "It is kept to the project “X”; this chat is outside any project"."""
    chat = replay.conversation
    here = (
        f"is in the project “{await lookups.project_name(chat.project_id)}”"
        if chat.project_id is not None
        else "is outside any project"
    )
    return f"the project “{await lookups.project_name(project_id)}”, and this chat {here}"


async def move_fixes(replay: Replay, lookups: Lookups, **item: int) -> tuple[Fix, ...]:
    chat_project = replay.conversation.project_id
    found = [fixes.every_chat(**item)]
    if chat_project is not None:
        name = await lookups.project_name(chat_project)
        found.insert(0, fixes.move_here(chat_project, name, **item))
    return tuple(found)


def ranked_in(
    hits: Sequence[Retrieved], is_it: Callable[[Retrieved], bool], sure_within: int
) -> Ranked | None:
    """Where ``hits`` (a ranking, best first) put the item ``is_it`` names: its place
    among its tier (memories, messages) and the bar it had to reach there: past the
    first ``sure_within`` of its tier, strong evidence (as floor.within_first counts)."""
    seen = {True: 0, False: 0}
    for hit in hits:
        tier = isinstance(hit, RetrievedMessage)
        seen[tier] += 1
        if is_it(hit):
            bar = 1.0 if seen[tier] <= sure_within else floor.STRONG_SUPPORT
            return Ranked.read(seen[tier], hit.score, hit.relevant, hit.floor_item, bar)
    return None


async def _by_ranking(
    replay: Replay,
    is_it: Callable[[Retrieved], bool],
    kind: str,
    text: str,
    share: float,
    fix_list: tuple[Fix, ...],
    over_fixes: tuple[Fix, ...],
) -> Finding:
    """The ranking's causes for a memory or a message the earlier causes let through
    (``over_fixes``: what helps one the budget left out; ``fix_list``, the others)."""
    question = replay.question.content
    ranked = ranked_in(replay.hits, is_it, replay.retrieval_k)
    if ranked is not None:
        if ranked.relevant:
            sentence = words.share_full(ranked, kind, share, replay.budget_tokens)
            return Finding(Reason.OVER_BUDGET, sentence, ranked, over_fixes)
        sentence = words.below_floor(question, text, ranked, kind, replay.retrieval_k)
        return Finding(Reason.BELOW_FLOOR, sentence, ranked, fix_list)
    ranked = ranked_in(await replay.deeper(), is_it, replay.retrieval_k)
    if ranked is not None:
        if ranked.relevant:
            sentence = words.past_reach(ranked, kind, replay.reach, replay.budget_tokens)
            return Finding(Reason.OVER_BUDGET, sentence, ranked, over_fixes)
        sentence = words.below_floor(question, text, ranked, kind, replay.retrieval_k)
        return Finding(Reason.BELOW_FLOOR, sentence, ranked, fix_list)
    return Finding(Reason.NOT_FOUND, words.not_reached(question, text, kind), None, fix_list)


async def why_memory(
    replay: Replay, memory: MemoryItem, recorded: Recorded, lookups: Lookups
) -> Finding:
    question, chat = replay.question.content, replay.conversation
    source = next((s for s in recorded.sources if s.memory_id == memory.id), None)
    if source is not None:
        return used(source.rank, source.score, source.reasons, question, memory.content)
    if memory.id in replay.withheld.memory_ids:
        return withheld(replay)
    if parse_utc(memory.created_at) > replay.as_of:
        return Finding(
            Reason.NOT_FOUND,
            f"It was remembered after this question was asked ({when(memory.created_at)}): "
            "this answer could not have used it. Regenerate the answer to use it now.",
        )
    status = memory.status
    if status == MemoryStatus.FORGOTTEN:
        sentence = (
            f"You forgot it ({when(memory.updated_at)}): a forgotten memory never enters "
            "a prompt, until you restore it."
        )
        return Finding(Reason.FORGOTTEN, sentence, fixes=(fixes.restore(memory.id),))
    if status == MemoryStatus.SUPERSEDED:
        newer = await lookups.memory(memory.superseded_by) if memory.superseded_by else None
        by = f": “{newer.content}” (memory #{newer.id})" if newer is not None else ""
        return Finding(
            Reason.SUPERSEDED,
            f"A newer memory replaced it{by}; the replaced one is kept as history only.",
        )
    if status == MemoryStatus.CONFLICT:
        other = memory.meta.get("conflicts_with")
        which = f"memory #{other}" if other else "a memory"
        return Finding(
            Reason.OTHER_SCOPE,
            f"It contradicts {which}, which you pinned or edited: until you choose Use new "
            "or Keep old in the memory panel, that one stands and this one waits.",
        )
    if status == MemoryStatus.TEMPORARY:
        return Finding(
            Reason.OTHER_SCOPE,
            "It was kept as temporary (it seemed passing when it was learned): the memory "
            "panel shows it, but it is never put in a prompt.",
            fixes=(fixes.pin(memory.id),),
        )
    if memory.project_id is not None and memory.project_id != chat.project_id:
        where = await scope_words(replay, lookups, memory.project_id)
        return Finding(
            Reason.OTHER_SCOPE,
            f"It is kept to {where}: a chat sees its own project's memories and those of "
            "every chat.",
            fixes=await move_fixes(replay, lookups, memory_id=memory.id),
        )
    if parse_utc(memory.updated_at) > replay.as_of:
        return Finding(
            Reason.NOT_FOUND,
            f"It changed after this question was asked ({when(memory.updated_at)}: edited, "
            "pinned, moved or said again), so the replay can't rank it as it was. "
            "Regenerate the answer to use it as it is now.",
        )
    pin_fix = () if memory.pinned else (fixes.pin(memory.id),)
    if memory.id in {m.id for m in replay.ranking.pinned_seen}:
        return Finding(
            Reason.OVER_BUDGET,
            "It is pinned, and pinned memories go in first, but this chat's "
            f"{replay.budget_tokens:,}-token budget had no room left for it.",
        )
    bearing = dict((m.id, tells) for m, tells in replay.ranking.bearing)
    if memory.id in bearing:
        return Finding(
            Reason.OVER_BUDGET,
            f"It bears on this kind of request ({bearing[memory.id]}), but the budget had no "
            "room left for it.",
            fixes=pin_fix,
        )
    ranked_ids = {h.memory.id for h in replay.hits if isinstance(h, RetrievedMemory)}
    if memory.id in replay.offered and memory.id not in ranked_ids:
        return Finding(
            Reason.OVER_BUDGET,
            "It is a summary of this chat: summaries go in last, and the budget had no room "
            "left for it.",
            fixes=pin_fix,
        )
    note = (
        (fixes.note(question, memory.content, chat.id),)
        if fixes.adds_words(question, memory.content)
        else ()
    )
    return await _by_ranking(
        replay,
        lambda h: isinstance(h, RetrievedMemory) and h.memory.id == memory.id,
        "memory",
        memory.content,
        replay.memory_share,
        pin_fix + note,
        pin_fix,
    )


def _in_history(replay: Replay, message: Message) -> bool:
    """Whether the replayed prompt's history carries ``message`` (a user message as its
    answer's prompt sent it: the turn's data, then the words)."""
    for sent in replay.context.messages[1:-1]:
        content = sent.get("content")
        if (
            sent.get("role") == message.role
            and isinstance(content, str)
            and (content == message.content or content.endswith("\n" + message.content))
        ):
            return True
    return False


def _recallable(message: Message) -> bool:
    """What recall indexes (store: the ``recallable_messages`` view), the chat aside."""
    return (
        message.role in ("user", "assistant")
        and message.status.value in ("complete", "stopped")
        and bool(message.content)
    )


async def why_message(
    replay: Replay, message: Message, recorded: Recorded, lookups: Lookups
) -> Finding:
    question, chat = replay.question.content, replay.conversation
    if message.id == replay.question.id:
        raise InvalidInputError("That is the question this answer answers.")
    if message.id == replay.answer.id:
        raise InvalidInputError("That is the answer itself.")
    source = next((s for s in recorded.sources if s.recalled_message_id == message.id), None)
    if source is not None:
        return used(source.rank, source.score, source.reasons, question, message.content)
    if message.id in replay.withheld.message_ids:
        return withheld(replay)
    if parse_utc(message.created_at) > replay.as_of or (
        message.conversation_id == chat.id and message.id > replay.question.id
    ):
        return Finding(Reason.NOT_FOUND, "It was written after this question was asked.")
    note = (fixes.note(question, message.content, chat.id),)
    if message.conversation_id == chat.id:
        own = await _own_chat_message(replay, message, recorded)
        if own is not None:
            return own
    else:
        conversation = await lookups.conversation(message.conversation_id)
        if conversation.temporary:
            return Finding(
                Reason.OTHER_SCOPE,
                "It was said in a temporary chat: nothing said there is remembered or recalled.",
                fixes=note,
            )
        if conversation.project_id is not None and conversation.project_id != chat.project_id:
            where = await scope_words(replay, lookups, conversation.project_id)
            return Finding(
                Reason.OTHER_SCOPE,
                f"It was said in a chat of {where}: a chat recalls its own project's chats "
                "and those outside any project.",
                fixes=note,
            )
        if message.hidden:
            return Finding(
                Reason.OTHER_SCOPE,
                "It is on a branch of its chat that is not shown (a message was edited or an "
                "answer regenerated there): only what a chat shows is recalled.",
            )
    if not _recallable(message):
        return Finding(
            Reason.NOT_FOUND,
            "Only what you and ACAI said, written out in full, is recalled; this message "
            "is not such a message (a note of the app, a failed answer, or empty).",
        )
    forgotten = [
        m for m in await lookups.memories_from(message.id) if m.status == MemoryStatus.FORGOTTEN
    ]
    if forgotten:
        first = forgotten[0]
        return Finding(
            Reason.FORGOTTEN,
            f"You forgot a memory learned from it (“{first.content}”, memory #{first.id}), "
            "so what it came from is not recalled either.",
            fixes=tuple(fixes.restore(m.id, m.content) for m in forgotten[:3]),
        )
    return await _by_ranking(
        replay,
        lambda h: isinstance(h, RetrievedMessage) and h.message.id == message.id,
        "message",
        message.content,
        replay.recall_share,
        note,
        note,
    )


async def _own_chat_message(replay: Replay, message: Message, recorded: Recorded) -> Finding | None:
    """The causes of a message of the answer's own chat, before the question (None:
    it was folded into a summary and may have been recalled: the ranking decides)."""
    if message.hidden:
        return Finding(
            Reason.OTHER_SCOPE,
            "It is on another branch of this chat: a prompt sees only its own branch.",
        )
    if _in_history(replay, message):
        return Finding(
            Reason.USED,
            "It was in this chat's history, which the prompt carries as the conversation "
            "so far (not as a recalled source).",
        )
    if message.folded_into is not None:
        summary = message.folded_into
        if any(s.memory_id == summary for s in recorded.sources):
            return Finding(
                Reason.USED,
                f"A summary of this chat stands for it (memory #{summary}), and that summary "
                "was used.",
            )
        return None
    if not _recallable(message):
        return Finding(Reason.NOT_FOUND, "Only what you and ACAI said goes back to the model.")
    return Finding(
        Reason.OVER_BUDGET,
        "This chat's history was cut to fit the budget: its oldest messages left the prompt "
        f"(this chat's budget is {replay.budget_tokens:,} tokens; a summary will stand for "
        "them).",
    )
