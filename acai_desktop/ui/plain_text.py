"""An answer's Markdown as plain text, for *Copy text*: what a reader sees, without the
marks (``**``, ``#``, fences, link targets); list items keep a bullet or their number,
a table's cells are separated by tabs, paragraphs by a blank line."""

from __future__ import annotations

from PySide6.QtGui import QTextBlock, QTextCursor, QTextDocument, QTextListFormat

from acai_desktop.ui.message_document import MARKDOWN_FEATURES

_NUMBERED = {
    QTextListFormat.Style.ListDecimal,
    QTextListFormat.Style.ListLowerAlpha,
    QTextListFormat.Style.ListUpperAlpha,
    QTextListFormat.Style.ListLowerRoman,
    QTextListFormat.Style.ListUpperRoman,
}


def plain_text_of(markdown: str) -> str:
    """``markdown`` rendered the way the chat renders it (GitHub dialect, no HTML),
    then read back as text."""
    document = QTextDocument()
    document.setMarkdown(markdown, MARKDOWN_FEATURES)
    parts: list[str] = []
    previous_group = None
    block = document.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None:
            group, text = ("table", table.firstPosition()), _table_text(table)
            block = table.lastCursorPosition().block().next()
        else:
            group, text = _group_of(block), _block_text(block)
            block = block.next()
        if parts:
            # Lines of one list or one code block stay together; anything else is a
            # new paragraph.
            together = group is not None and group == previous_group
            parts.append("\n" if together else "\n\n")
        parts.append(text)
        previous_group = group
    return "".join(parts).strip()


def _group_of(block: QTextBlock):
    if block.textList() is not None:
        return ("list", block.textList().item(0).position())
    if block.blockFormat().nonBreakableLines():  # a code block's line
        return ("code",)
    return None


def _block_text(block: QTextBlock) -> str:
    text = block.text().replace("\u2028", "\n").replace("\u00a0", " ")
    text_list = block.textList()
    if text_list is None:
        return text
    style = text_list.format().style()
    marker = text_list.itemText(block) if style in _NUMBERED else "-"
    indent = "  " * max(0, text_list.format().indent() - 1)
    return f"{indent}{marker} {text}"


def _table_text(table) -> str:
    rows = []
    for row in range(table.rows()):
        cells = []
        for column in range(table.columns()):
            cell = table.cellAt(row, column)
            start, end = cell.firstCursorPosition(), cell.lastCursorPosition()
            start.setPosition(end.position(), QTextCursor.MoveMode.KeepAnchor)
            cells.append(start.selectedText().replace("\u2029", " ").strip())
        rows.append("\t".join(cells))
    return "\n".join(rows)
