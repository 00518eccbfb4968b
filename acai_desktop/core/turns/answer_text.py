"""An answer's text while it streams: kept in memory, capped, and joined sparingly.

A model may stream far more than anyone can read (a runaway loop, a hostile server): a
40 MB answer once ran for minutes and left a 21 MB row. The text is capped at a size in
bytes (UTF-8, as stored); past it the rest of the stream is not read, and the answer
carries a note saying where it was cut.

Streaming cost stays linear in the answer's size: the pieces are kept in a list and
joined only when the whole text is needed (an event for the window, a save), and a
join is asked for only when the text grew by a fair share since the last one, or a
moment has passed (so a slow stream still shows every word promptly).
"""

from __future__ import annotations

import time

#: Default size limit of one answer, in megabytes of UTF-8 text.
DEFAULT_MAX_ANSWER_MB = 1.0
#: A slow stream is shown at least this often.
SHOW_EVERY_SECONDS = 0.05
#: ... and a fast one whenever it grew by this share of its length since last shown,
#: so the joins of an answer of n bytes copy at most about (1 + 1/share) * n bytes.
SHOW_GROWTH_SHARE = 1 / 8


def megabytes_text(limit_bytes: int) -> str:
    megabytes = limit_bytes / 1_000_000
    return f"{megabytes:g} MB" if megabytes >= 0.1 else f"{limit_bytes:,} bytes"


_CUT_NOTE_START = "The answer was cut at "


def cut_note(limit_bytes: int) -> str:
    """The note saved with (and shown under) an answer cut at the limit."""
    return (
        f"{_CUT_NOTE_START}{megabytes_text(limit_bytes)}, the size limit of one answer; "
        "the rest was not kept. Ask for a shorter answer, or raise the limit "
        "(max_answer_mb in the model settings)."
    )


def was_cut(note: str | None) -> bool:
    """Whether an answer's note says it was cut at the size limit."""
    return bool(note) and note.startswith(_CUT_NOTE_START)


class AnswerText:
    """The streamed text of one answer, up to ``limit_bytes`` of UTF-8."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        self.size_bytes = 0
        #: True once a piece went past the limit: the stream should stop.
        self.cut = False
        self._pieces: list[str] = []
        self._length = 0  # characters
        self._unshown: list[str] = []  # the pieces added since the last show()
        self._shown_length = 0
        self._shown_at = float("-inf")

    def add(self, piece: str) -> str:
        """Keep ``piece`` (or the part of it within the limit); returns what was kept."""
        if self.cut or not piece:
            return ""
        size = len(piece.encode("utf-8"))
        if self.size_bytes + size > self.limit_bytes:
            room = self.limit_bytes - self.size_bytes
            # Cut on a character boundary: a split multi-byte character is dropped.
            piece = piece.encode("utf-8")[:room].decode("utf-8", errors="ignore")
            size = len(piece.encode("utf-8"))
            self.cut = True
        self.size_bytes += size
        if piece:
            self._pieces.append(piece)
            self._length += len(piece)
            self._unshown.append(piece)
        return piece

    def text(self) -> str:
        """The whole text so far (one join; the pieces become that one string)."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def due_to_show(self, now: float | None = None) -> bool:
        """Whether the text grew enough, or long enough ago, to be shown again."""
        if not self._unshown:
            return False
        now = time.monotonic() if now is None else now
        grown = self._length - self._shown_length
        return grown >= SHOW_GROWTH_SHARE * self._length or now - self._shown_at >= (
            SHOW_EVERY_SECONDS
        )

    def show(self, now: float | None = None) -> tuple[str, str]:
        """``(new text since the last show, whole text)``, and mark it shown."""
        added, self._unshown = "".join(self._unshown), []
        self._shown_length = self._length
        self._shown_at = time.monotonic() if now is None else now
        return added, self.text()
