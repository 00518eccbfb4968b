"""An answer's citations as chips: ``[1]`` links after the paragraph that used a source.

The answer's ``[n]`` markers are placed by the core's one rule
(:func:`acai_desktop.core.turns.citations.place_citations`): each paragraph's real numbers
come back at its end as Markdown links to ``acai-cite:N``, which the chat view opens
(the passage, or the chat at the recalled message); invented numbers are gone. The
link's text is the bracketed number, escaped so Markdown reads it as text. A chip's
tooltip is the source's label, shown as plain text (:func:`tooltip_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QUrl

from acai_desktop.core.turns.citations import Citation, place_citations
from acai_desktop.ui.untrusted import tooltip_text

#: "acai-cite:N" opens the answer's source number N.
CITE_SCHEME = "acai-cite"


def chip_href(number: int) -> str:
    return f"{CITE_SCHEME}:{number}"


def cited_number(href: str) -> int | None:
    """The number a chip's link names (None: not a chip's link)."""
    url = QUrl(href)
    if url.scheme() != CITE_SCHEME or not url.path().isdigit():
        return None
    return int(url.path())


def _chips(numbers: Sequence[int]) -> str:
    return "".join(f" [\\[{n}\\]]({chip_href(n)})" for n in numbers)


def with_chips(text: str, citations: Sequence[Citation]) -> str:
    """``text`` (Markdown) with its paragraphs' citations as chip links; as written when
    its turn had no numbered source."""
    if not citations:
        return text
    return place_citations(text, {c.number for c in citations}, _chips)


def chip_tooltips(citations: Sequence[Citation]) -> dict[int, str]:
    """Each chip's tooltip, by number: the source's label as plain text."""
    return {c.number: tooltip_text(c.label) for c in citations}
