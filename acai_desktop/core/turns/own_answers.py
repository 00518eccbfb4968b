"""The app's own answers, for the built-in model: a memory command ("What do you know
about me?", "Remember that …", "Forget that …") is answered from memory, not by the
model (core.turns.memory_commands)."""

from __future__ import annotations

import functools
from datetime import datetime

from acai_desktop.core.learning.plain_statements import memory_requests
from acai_desktop.core.memory.prompt_lines import bearing_reason
from acai_desktop.core.memory.retrieval import HybridRetriever
from acai_desktop.core.records.conversations import AnswerSource, Conversation, Message
from acai_desktop.core.records.projects import ProjectScope
from acai_desktop.core.rules.bearings import ABOUT_YOU, asks_what_is_known
from acai_desktop.core.turns.memory_commands import MOST_LISTED, known_answer, requests_answer
from acai_desktop.core.turns.prompt_assembly import known_at
from acai_desktop.core.turns.turn_result import TurnResult


async def own_answer(
    retriever: HybridRetriever,
    conversation: Conversation,
    user_message: Message,
    result: TurnResult,
    as_of: datetime | None,
) -> str | None:
    """The app's answer to a memory command (None: the message is none; the model
    answers). A question about the user lists what is known of them, as of ``as_of``,
    and records what it listed as the answer's sources in ``result``."""
    content = user_message.content
    if asks_what_is_known(content):
        known_then = functools.partial(known_at, as_of)
        scope = ProjectScope(conversation.project_id)
        known = [m for m in await retriever.known_facts(scope) if known_then(m)]
        listed = known[:MOST_LISTED]
        reason = bearing_reason(ABOUT_YOU.name)
        result.memories_used = [
            AnswerSource(result.answer.id, memory.id, rank, 1.0, [reason])
            for rank, memory in enumerate(listed, start=1)
        ]
        result.used_contents = {m.id: m.content for m in listed}
        result.used_kinds = {m.id: m.kind.value for m in listed}
        return known_answer(listed, len(known))
    if requests := memory_requests(content):
        return requests_answer(requests, temporary=conversation.temporary)
    return None
