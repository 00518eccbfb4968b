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
_PARTS_PER_BLOCK = 10_000
_COLLAPSE_WINDOW = 256 * 1024
_FEED_CHARACTERS = 1024 * 1024
_SPACES = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
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
        self.blocks: list[str] = []
        self._hidden = 0  # depth inside invisible elements
        self._title: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _INVISIBLE:
            self._hidden += 1
        elif tag in _HEADINGS:
            self._add("\n\n" + "#" * _HEADINGS[tag] + " ")
        elif tag in _BLOCKS:
            self._add("\n\n" if tag != "br" else "\n")
        elif tag in ("td", "th"):
            self._add(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _INVISIBLE:
            self._hidden = max(self._hidden - 1, 0)
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._add("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        if self._hidden:
            return
        self._add(data)

    def _add(self, part: str) -> None:
        self.parts.append(part)
        if len(self.parts) >= _PARTS_PER_BLOCK:
            self.flush()

    def flush(self) -> None:
        """Join the parts so far into one block: millions of small strings (a 50 MB
        page of short elements) would take many times the page in memory."""
        self.blocks.append("".join(self.parts))
        self.parts.clear()

    def text(self) -> str:
        """The text so far (the blocks are let go: it is the only copy)."""
        self.flush()
        text = "".join(self.blocks)
        self.blocks.clear()
        return text


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: paragraphs separated by blank lines, headings
    as Markdown headings."""
    parser = _TextParser()
    # A slice at a time: the parser copies what it is fed into its buffer.
    for start in range(0, len(html), _FEED_CHARACTERS):
        parser.feed(html[start : start + _FEED_CHARACTERS])
    parser.close()
    title = " ".join("".join(parser._title).split())
    return title, _collapse_whitespace(parser.text())


def _collapse_whitespace(text: str) -> str:
    """Whitespace inside a paragraph is layout, not content: each run of it becomes one
    space, or a paragraph break where it holds a blank line. A window of the text at a
    time (each ending after a run of whitespace): splitting a 50 MB page into its
    paragraphs or words would build lists many times its size."""
    pieces, position = [], 0
    while position < len(text):
        run = _SPACES.search(text, position + _COLLAPSE_WINDOW)
        end = run.end() if run else len(text)
        pieces.append(_SPACES.sub(_space_or_break, text[position:end]))
        position = end
    if pieces:  # stripped here, not the joined text: that would be one more copy
        pieces[0] = pieces[0].lstrip()
        pieces[-1] = pieces[-1].rstrip()
    return "".join(pieces)


def _space_or_break(run: re.Match) -> str:
    return "\n\n" if _PARAGRAPH_BREAK.search(run.group()) else " "
