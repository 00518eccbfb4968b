"""The local-only boundary of a turn (issue 42, item 4): what the user marked local only
(core/store/local_only.py) never reaches the prompt of a model that runs elsewhere.

A turn is private when its chat is local only (itself or by its project: every
message of it is), or when its prompt holds a local-only memory, recalled message or
document passage. A private turn goes to a model on this computer when one can do it.
When none can, a chat that is local only is refused (its own words can't be left out),
with what to do; otherwise the local-only items are withheld: the prompt is made again
without them (others take their places) and the answer's Sources say which were
withheld and why ("withheld: local only; the answering model runs in the cloud
(OpenAI)").

A model pinned by hand for the chat is never rerouted, so a local-only chat whose
pinned model runs elsewhere is refused too.
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.errors import AcaiError
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.routing.selection import Where
from acai_desktop.core.store.local_only import NOTHING, LocalOnly


class LocalOnlyRefused(AcaiError):
    """A local-only chat's turn with no model on this computer to answer it."""


@dataclass(frozen=True)
class TurnPrivacy:
    """What of a turn is local only."""

    #: The chat is local only (itself or by its project).
    chat: bool = False
    #: The local-only items among those its prompt holds.
    in_prompt: LocalOnly = NOTHING
    #: Everything local only in the profile (what a remote model's prompt leaves out).
    marked: LocalOnly = NOTHING
    #: The message carries an image marked local only (core/turns/turn_images.py).
    image: bool = False

    @property
    def private(self) -> bool:
        return self.whole or bool(self.in_prompt)

    @property
    def whole(self) -> bool:
        """What is local only is the message itself (the chat's words, its image): it
        can't be withheld, so only a model on this computer may answer."""
        return self.chat or self.image


def local_only_in(context: BuiltContext, marked: LocalOnly) -> LocalOnly:
    """The items of ``context`` that ``marked`` holds."""
    if not marked:
        return NOTHING
    return LocalOnly(
        frozenset(u.memory_id for u in context.used if u.memory_id in marked.memory_ids),
        frozenset(u.message_id for u in context.used if u.message_id in marked.message_ids),
        frozenset(
            e.hit.passage.document_id
            for e in context.evidence
            if e.hit.passage.document_id in marked.document_ids
        ),
    )


def withheld_record(in_prompt: LocalOnly, provider: str, where: Where) -> dict:
    """What the answer keeps of the withheld items (its plan's ``withheld``): their
    ids by kind and the reason, for Sources."""
    place = "on the local network" if where is Where.LOCAL_NETWORK else "in the cloud"
    return {
        "reason": f"withheld: local only; the answering model runs {place} ({provider})",
        "memory_ids": sorted(in_prompt.memory_ids),
        "message_ids": sorted(in_prompt.message_ids),
        "document_ids": sorted(in_prompt.document_ids),
    }


def refusal(model: str, provider: str, *, pinned: bool, image: bool = False) -> LocalOnlyRefused:
    """Why a local-only chat's turn (``image``: a turn with a local-only image) can't be
    answered, and what to do."""
    what = "its image" if image else "the chat"
    if pinned:
        step = f"choose a model on this computer in the chat's ⚙, or unmark {what} as local only"
    else:
        step = (
            "start a model server on this computer (Ollama, LM Studio or the built-in "
            f"model), or unmark {what} as local only"
        )
    subject = "This message's image is local only" if image else "This chat is local only"
    return LocalOnlyRefused(
        f"{subject}, and its model {model} runs at {provider}, not on this computer; no "
        f"model on this computer can answer it. Your message is kept: {step}, then try again."
    )
