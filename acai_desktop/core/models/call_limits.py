"""How long a model call may take.

The read timeout only bounds silence: a proxy sending keep-alive comments, or a reply
trickling in a byte at a time, never trips it. So every call also has a deadline for the
whole of it (:class:`CallDeadlines`, from the settings): a chat answer must start within
one and, from its first words, end within another (what arrived is kept by the caller),
and a reply that is not streamed — retries included — must be complete within a third.
"""

from __future__ import annotations

from dataclasses import dataclass

import openai

from acai_desktop.core.errors import ModelTimeoutError
from acai_desktop.core.models.settings import ModelSettings


@dataclass(frozen=True)
class ClientTimeouts:
    connect: float = 5.0
    #: Longest silence between two reads of a reply (also bounds a non-streamed answer).
    read: float = 120.0
    write: float = 30.0
    pool: float = 10.0

    def as_openai(self) -> openai.Timeout:
        return openai.Timeout(
            connect=self.connect, read=self.read, write=self.write, pool=self.pool
        )


@dataclass(frozen=True)
class CallDeadlines:
    """How long a whole call may take, in seconds, however steadily bytes arrive."""

    #: A streamed answer's first words, from the request (see settings' defaults).
    first_token: float = 120.0
    #: A streamed answer, from its first words to its end.
    answer: float = 300.0
    #: A reply that is not streamed, retries included.
    reply: float = 300.0

    @classmethod
    def from_settings(cls, settings: ModelSettings) -> CallDeadlines:
        return cls(
            first_token=settings.resolved_first_token_timeout(),
            answer=settings.resolved_answer_timeout(),
            reply=settings.reply_timeout_seconds,
        )

    def reply_overdue(self, subject: str) -> ModelTimeoutError:
        """``subject`` (the server and model) took longer than ``reply`` over a reply."""
        return ModelTimeoutError(
            f"{subject} did not finish its reply within "
            f"{self.reply:g} s (it kept the connection open, or sent too slowly). "
            "Retry later; if it keeps happening, check the model server, or raise "
            "reply_timeout_seconds in the settings file."
        )

    def answer_overdue(self, subject: str, where: str, *, started: bool) -> ModelTimeoutError:
        """A streamed answer that had not ``started`` within ``first_token``, or had not
        ended within ``answer`` of its first words."""
        if not started:
            return ModelTimeoutError(
                f"{subject} did not start its answer within "
                f"{self.first_token:g} s (the connection stayed open, but no words "
                "came). Retry; if it keeps happening, check the model server, or raise "
                "first_token_timeout_seconds in the settings file."
            )
        return ModelTimeoutError(
            f"The answer from {where} was still coming after "
            f"{self.answer:g} s and was stopped there; the part that arrived is "
            "kept. Retry, or raise answer_timeout_seconds in the settings file."
        )
