"""HTML to plain text with the standard library's parser.

Headings become Markdown headings ("## Setup"), so the chunker cuts an HTML page by
its sections as it cuts a Markdown file; block elements end a paragraph; scripts,
styles and other invisible parts are dropped. Character references are decoded by
the parser (``convert_charrefs``)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_INVISIBLE = frozenset({"script", "style", "noscript", "template", "head", "svg"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "aside", "nav",
        "li", "ul", "ol", "table", "tr", "blockquote", "pre", "br", "hr", "dt", "dd",
        "figure", "figcaption", "form", "fieldset", "details", "summary", "title",
    }
)  # fmt: skip


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0  # depth inside invisible elements
        self._title: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _INVISIBLE:
            self._hidden += 1
        elif tag in _HEADINGS:
            self.parts.append("\n\n" + "#" * _HEADINGS[tag] + " ")
        elif tag in _BLOCKS:
            self.parts.append("\n\n" if tag != "br" else "\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _INVISIBLE:
            self._hidden = max(self._hidden - 1, 0)
        elif tag in _HEADINGS or tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        if self._hidden:
            return
        self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: paragraphs separated by blank lines, headings
    as Markdown headings."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    # Whitespace inside a paragraph is layout, not content; keep paragraph breaks.
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    title = " ".join("".join(parser._title).split())
    return title, "\n\n".join(p for p in paragraphs if p)
