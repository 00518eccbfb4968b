"""Answers this process could not finish saving because the memory's server went away
(issue 39 G10), kept until this process opens that store again.

The window reconnects by closing the assistant and opening the profile again. The answer
being written when the connection dropped is still ``streaming`` on the server, and its
last words were never saved: the user saw them, so they are held here by the store's
address (its URL without the password). The reopened store writes them, stopped, with
the real reason (``store/interrupted_answers.recover_interrupted_answers``); a process that
ends first takes them with it, and the next start's reason says it may have been either.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Store address -> answer id -> the answer's whole text as it was shown.
_held: dict[str, dict[int, str]] = {}


def hold(location: object, answer_id: int, text: str) -> None:
    """``answer_id``'s text could not be saved to the store at ``location``."""
    _held.setdefault(str(location), {})[answer_id] = text


def held(location: object) -> dict[int, str]:
    """The answers held for the store at ``location`` (a copy)."""
    return dict(_held.get(str(location), {}))


def saved(location: object, answer_ids: Iterable[int]) -> None:
    """These answers are written now: hold them no longer."""
    answers = _held.get(str(location), {})
    for answer_id in answer_ids:
        answers.pop(answer_id, None)
    if not answers:
        _held.pop(str(location), None)
