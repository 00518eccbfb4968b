"""Forgetting what the user asked to forget in their own words ("Forget that I have a
dog"): the memories a chat sees that hold every word of the request, a few at most, each
undoable, and the news said whatever came of it."""

from __future__ import annotations

import logging

from acai_desktop.core import events as ev
from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.memory.query import topic_stems
from acai_desktop.core.records.memories import Actor, MemoryItem, MemoryKind
from acai_desktop.core.rules.user_subject import about_the_user

log = logging.getLogger(__name__)

#: The memories nearest in meaning that are read, and the most that one request forgets
#: (more match: the request is too loose to act on).
FORGET_CANDIDATES = 50
MAX_FORGOTTEN_ON_REQUEST = 3


async def forget_on_request(
    memory: Memory, what: str, wanted: frozenset[str], project_id: int | None
) -> list[MemoryItem]:
    """Forget, for the user, the memories a chat of ``project_id`` sees that hold every
    word of what they asked to forget (``wanted``: its stems) — at most
    :data:`MAX_FORGOTTEN_ON_REQUEST`; more is too loose a request to act on. Undo (or
    ``memories restore``) brings a memory back. Stems on both sides come from one rule
    (``rules.words.stem``), which undoes the verb endings the built-in rules write ("I
    live" / "The user lives"). The news is announced whatever came of it; the memories
    forgotten are returned."""
    if not wanted:
        return []
    near = await memory.similar(
        about_the_user(what) or what,
        k=FORGET_CANDIDATES,
        kinds=[MemoryKind.FACT, MemoryKind.NOTE],
        include_temporary=True,
    )
    chosen = [
        item
        for item, _ in near
        if item.status.is_current
        and item.project_id in (None, project_id)
        and wanted <= topic_stems(item.content)
    ]
    matching = len(chosen)
    if matching > MAX_FORGOTTEN_ON_REQUEST:
        log.info("asked to forget %r: %d memories match, none forgotten", what, matching)
        chosen = []  # too loose a request: the user picks in the panel instead
    forgotten = []
    for item in chosen:
        try:
            forgotten.append(await memory.forget(item.id, actor=Actor.USER))
        except (InvalidInputError, NotFoundError) as error:
            log.info("memory %d changed before it could be forgotten: %s", item.id, error)
    # Said whatever came of it: a request that forgot nothing must not look as if it had
    # worked (the window offers the panel's search then).
    memory.events.emit(ev.ForgottenOnRequest(tuple(forgotten), what, matching))
    return forgotten
