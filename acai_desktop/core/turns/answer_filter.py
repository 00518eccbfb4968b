"""Keep the prompt's own delimiters out of an answer.

The prompt frames memories and document passages in tagged blocks (``<memories>`` …
``</memories>``, ``<documents>`` … ``</documents>``). A small model sometimes echoes its
prompt, tags and all; the user should never see the plumbing. :class:`DelimiterFilter`
drops those tags (any case, spaces inside, the look-alike brackets the prompt builders
neutralise) from a streamed answer. A tag may arrive split over several chunks ("<mem",
"ories>"), so the filter holds back a tail that could still become a tag and lets it go
as soon as it can't. :class:`PromptFrameFilter` drops the answer's lines that copy the
prompt's frame (the header before the user's words, a block's section header or its
first clause, a sentence of the system prompt, a recalled message's quoted line).
"""

from __future__ import annotations

import re

from acai_desktop.core.documents.prompt_block import EVIDENCE_PREAMBLE
from acai_desktop.core.memory import prompt_lines as cb
from acai_desktop.core.rules.prompt_quoting import USER_MESSAGE_HEADER

#: The words inside the prompt's block tags (see context_builder and prompt_block).
DELIMITER_WORDS = ("memories", "documents")
_OPENING = "<\uff1c\ufe64\u2329\u27e8\u3008"
_CLOSING = ">\uff1e\ufe65\u232a\u27e9\u3009"
_TAG = re.compile(
    rf"[{_OPENING}]\s*/?\s*(?:{'|'.join(DELIMITER_WORDS)})\s*[{_CLOSING}]", re.IGNORECASE
)
#: An unfinished tag: an opening bracket, maybe a slash, part of a word, maybe spaces.
_UNFINISHED = re.compile(rf"[{_OPENING}]\s*/?\s*([a-z]*)(\s*)\Z", re.IGNORECASE)
#: The longest tail held back (a bracket, spaces, a slash and a word fit in it).
_MAX_HELD = 32


def strip_delimiters(text: str) -> str:
    """``text`` without any of the prompt's block tags."""
    return _TAG.sub("", text)


def _could_become_tag(tail: str) -> bool:
    match = _UNFINISHED.match(tail)
    if match is None or len(tail) > _MAX_HELD:
        return False
    word, spaces = match.group(1).lower(), match.group(2)
    if spaces and word:  # "<memories " may still close; "<mem " can't
        return word in DELIMITER_WORDS
    return any(full.startswith(word) for full in DELIMITER_WORDS)


class DelimiterFilter:
    """Feed it an answer's chunks in order; it returns what may be shown of each."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = strip_delimiters(self._held + chunk)
        start = max(text.rfind(bracket) for bracket in _OPENING)
        if start >= 0 and _could_become_tag(text[start:]):
            self._held = text[start:]
            return text[:start]
        self._held = ""
        return text

    def flush(self) -> str:
        """The end of the answer: what was held back was not a tag after all."""
        held, self._held = self._held, ""
        return held


# --- The prompt's frame lines --------------------------------------------------------
#
# Besides its tags, a small model echoes the prompt's frame: the line that introduces the
# user's words ("The user's message:"), a memory block's section headers, a sentence of
# the system prompt ("only what follows that line is what the user wrote"). An answer line
# that starts with one of those is dropped whole. While the line being streamed could
# still become one, it is held back (only that line); as soon as it can't, it goes out.

#: Pieces of the system prompt shorter than this are not frames (too common to drop).
MIN_FRAME = 20
_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
#: Markup a model puts before a copied line: bullets, quotes, emphasis, headings.
_LEADING_MARKUP = re.compile(r"^[\s>*_#`\-\u2022\"']+")
_SPACES = re.compile(r"\s+")
_PIECE_END = re.compile(r"(?<=[.;:!?])\s+")


def _normal(text: str) -> str:
    text = _LEADING_MARKUP.sub("", text.translate(_CURLY).casefold())
    return _SPACES.sub(" ", text)


def prompt_frames(system_prompt: str = "") -> tuple[str, ...]:
    """The lines of the prompt's frame an answer must not show, normalised: the header
    before the user's words, the memory and evidence blocks' headers and preambles, the
    custom instructions' headers, and the system prompt's lines, sentences and clauses."""
    pieces = [
        USER_MESSAGE_HEADER,
        cb.INSTRUCTIONS_HEADER,
        cb.INSTRUCTIONS_RESPOND,
        cb.INSTRUCTIONS_ABOUT,
        cb.PINNED_HEADER,
        cb.BEARING_HEADER,
        cb.RETRIEVED_HEADER,
        cb.SUMMARY_HEADER,
        cb.RECALLED_HEADER,
        cb.MEMORY_BLOCK_PREAMBLE,
        EVIDENCE_PREAMBLE,
    ]
    # A header's first clause alone too: "Quoted data about the user from past
    # conversations:" was copied with the model's own words after it.
    pieces += [clause for header in list(pieces) for clause in _PIECE_END.split(header)]
    pieces += system_prompt.splitlines()
    for paragraph in system_prompt.split("\n\n"):
        pieces += _PIECE_END.split(" ".join(paragraph.split()))
    frames: dict[str, None] = {}
    for piece in pieces:
        frame = _normal(piece).strip()
        if len(frame) < MIN_FRAME and frame != _normal(USER_MESSAGE_HEADER):
            continue
        frames[frame] = None
        # "only what follows this line": the model says it of the line it copied.
        frames[re.sub(r"\bthat\b", "this", frame)] = None
    return tuple(frames)


#: A recalled message's line as the prompt quotes it ("- [1] [2026-12-07, chat "Trip"]
#: You: …", context_builder.recalled_line), after its citation number(s), digits as 0:
#: a model that copies one shows the prompt's plumbing, not an answer.
RECALLED_SHAPE = '[0000-00-00, chat "'
_CITATIONS = re.compile(r"^(?:\[\d+\]\s*)+")
_CITATION_ARRIVING = re.compile(r"\[\d*\]?\s*")


def _recalled(text: str) -> str | None:
    """For a line (normalised) that opens with citation numbers: "drop" when it goes on
    as a recalled message's quoted line, "open" while it still could; None otherwise."""
    numbers = _CITATIONS.match(text)
    rest = text[numbers.end() :] if numbers else text
    if numbers is not None:
        zeroed = re.sub(r"\d", "0", rest)
        if zeroed.startswith(RECALLED_SHAPE):
            return "drop"
        if RECALLED_SHAPE.startswith(zeroed):
            return "open"
    # A citation number still arriving ("[", "[1", "[1]").
    return "open" if _CITATION_ARRIVING.fullmatch(rest) else None


class PromptFrameFilter:
    """Feed it an answer's chunks in order (after :class:`DelimiterFilter`); it returns
    what may be shown of each, without the lines that copy the prompt's frame."""

    def __init__(self, frames: tuple[str, ...]) -> None:
        self.frames = frames
        self._line = ""  # the current line, held back while it could still be a frame
        self._state = "open"  # "open": undecided; "pass": shown; "drop": a frame
        self._after_drop = False

    def _decide(self, line: str, *, ended: bool) -> str:
        text = _normal(line)
        if ended:
            text = text.rstrip()
        recalled = _recalled(text)
        if recalled == "drop" or any(text.startswith(frame) for frame in self.frames):
            return "drop"
        if recalled == "open" and not ended:
            return "open"
        if any(frame.startswith(text) for frame in self.frames):
            if not ended:
                return "open"
            if not text and self._after_drop:
                return "drop"  # the blank line that followed a dropped frame
        return "pass"

    def feed(self, chunk: str) -> str:
        shown: list[str] = []
        while chunk:
            head, newline, chunk = chunk.partition("\n")
            if self._state == "pass":
                shown.append(head + newline)
            elif self._state == "open":
                self._line += head
                self._state = self._decide(self._line, ended=bool(newline))
                if self._state == "pass":
                    shown.append(self._line + newline)
                    self._after_drop = False
                if self._state != "open":
                    self._line = ""
            if newline:
                if self._state == "drop":
                    self._after_drop = True
                self._state = "open"
        return "".join(shown)

    def flush(self) -> str:
        """The end of the answer: the held line goes out unless it is a frame."""
        line, self._line = self._line, ""
        if self._state == "open" and line and self._decide(line, ended=True) == "pass":
            return line
        return ""
