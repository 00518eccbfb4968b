"""What a turn needs of the model that answers it, decided before the turn (no model call).

An image attached needs a model that sees (``vision``); a turn whose words and attached
text pass :data:`LONG_CONTEXT_TOKENS` needs a long window (``long``); otherwise its
words decide (``turn_kinds.text_kind``). The kind the words ask for is kept beside the
kind, so a router can still prefer a coder for a long code review.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.routing.turn_kinds import TurnKind, text_kind

if TYPE_CHECKING:  # numpy's, loaded with the embedder, not at start
    from acai_desktop.core.routing.turn_meaning import TurnMeaning

#: A turn past this many tokens overflows the 8k window many local models have.
LONG_CONTEXT_TOKENS = 8192
IMAGE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".jfif", ".gif", ".webp", ".bmp", ".heic", ".heif", ".tif", ".tiff"}
)


def is_image(path: Path | str) -> bool:
    """An image by its type (what a model must see rather than read)."""
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


@dataclass(frozen=True)
class AttachedFile:
    """A file going with the turn: an image, or text of ``tokens`` estimated tokens."""

    name: str
    is_image: bool = False
    tokens: int = 0


@dataclass(frozen=True)
class TurnNeeds:
    kind: TurnKind
    #: What the words alone ask for (equal to ``kind`` unless an attachment decided).
    text_kind: TurnKind
    #: The message's and its attached texts' estimated tokens.
    prompt_tokens: int
    needs_vision: bool
    #: The chat, its project, or something its prompt holds is local only: only a model
    #: on this computer may read it (known once the prompt is built: turns/privacy.py).
    private: bool = False

    def to_dict(self) -> dict:
        return {
            "kind": self.kind.value,
            "text_kind": self.text_kind.value,
            "prompt_tokens": self.prompt_tokens,
            "needs_vision": self.needs_vision,
            "private": self.private,
        }


def analyse_turn(
    text: str, attachments: tuple[AttachedFile, ...] = (), meaning: TurnMeaning | None = None
) -> TurnNeeds:
    """The kind, size and needs of a turn of ``text`` with ``attachments``; ``meaning``:
    the meaning signal, asked when no rule names the words' kind."""
    words_ask = text_kind(text)
    if words_ask is TurnKind.CHAT and meaning is not None:
        words_ask = meaning.kind_of(text) or TurnKind.CHAT
    tokens = estimate_tokens(text) + sum(file.tokens for file in attachments)
    needs_vision = any(file.is_image for file in attachments)
    if needs_vision:
        kind = TurnKind.VISION
    elif tokens > LONG_CONTEXT_TOKENS:
        kind = TurnKind.LONG
    else:
        kind = words_ask
    return TurnNeeds(kind, words_ask, tokens, needs_vision)
