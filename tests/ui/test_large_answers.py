"""Large answers stay cheap to render: a big table, long code or a huge answer is shown
(in part) as plain text with a link to the whole of it, and streaming one costs each
line once. What the documents hold and what the links open, not timings (`bench ui`
prints those)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextTable

from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.ui.markdown_blocks import (
    TABLE_MAX_CELLS,
    split_blocks,
    split_stable,
    tail_block,
)
from acai_desktop.ui.message_document import (
    SHOW_TABLE_LABEL,
    SHOW_WHOLE_LABEL,
    SHOWN_ANSWER_CHARS,
    MessageDocument,
)
from acai_desktop.ui.theme import load_theme
from acai_desktop.ui.widgets.large_answer_dialogs import TableDialog, WholeAnswerDialog
from tests.support.gui import shown_main_window

AT = "2026-01-01T00:00:00+00:00"


def table(rows: int, columns: int) -> str:
    head = "| " + " | ".join(f"Column {c}" for c in range(columns)) + " |\n"
    rule = "|" + "|".join("---" for _ in range(columns)) + "|\n"
    body = "".join(
        "| " + " | ".join(f"r{r}c{c}" for c in range(columns)) + " |\n" for r in range(rows)
    )
    return head + rule + body


@pytest.fixture
def window(qtbot, qapp):
    return shown_main_window(qtbot, qapp, size=(1200, 800))


def show_answer(window, content: str) -> MessageDocument:
    answer = Message(1, 1, "assistant", content, MessageStatus.COMPLETE, AT)
    window.show_conversation(1, "Test", [answer])
    return window.chat_view.document_at(0)


def tables_of(document) -> list:
    return [f for f in document.rootFrame().childFrames() if isinstance(f, QTextTable)]


def links_of(document) -> dict[str, str]:
    """Each link's text and target."""
    found = {}
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fmt = fragments.fragment().charFormat()
            if fmt.isAnchor():
                found[fragments.fragment().text()] = fmt.anchorHref()
            fragments += 1
        block = block.next()
    return found


def test_a_table_too_large_to_lay_out_is_text_with_show_as_table(window, qtbot, qtmodeltester):
    content = "The table you asked for:\n\n" + table(500, 30) + "\nThat is all.\n"
    document = show_answer(window, content)
    assert tables_of(document) == []  # no rich-text table of 15,000 cells
    text = document.toPlainText()
    assert "| Column 0 | Column 1 |" in text and "| r0c0 | r0c1 |" in text
    assert "The table you asked for:" in text
    href = links_of(document)[SHOW_TABLE_LABEL]
    window.chat_view.activate_link(window.chat_view.model().index(0, 0), href)
    dialog = window.chat_view.findChild(TableDialog)
    assert dialog is not None and dialog.isVisible()
    model = dialog.model
    qtmodeltester.check(model)
    assert (model.rowCount(), model.columnCount()) == (500, 30)
    assert model.headerData(29, Qt.Orientation.Horizontal) == "Column 29"
    assert model.index(499, 29).data() == "r499c29"
    dialog.close()


def test_a_small_table_is_still_a_table(window):
    rows = TABLE_MAX_CELLS // 3 - 2  # header and rows of 3 columns, under the limit
    document = show_answer(window, table(rows, 3))
    (only,) = tables_of(document)
    assert (only.rows(), only.columns()) == (rows + 1, 3)
    assert SHOW_TABLE_LABEL not in links_of(document)


def test_long_code_is_plain_monospace_and_copy_gives_exactly_the_code(window, qtbot):
    code = "\n".join(f"def step_{n}(value):\n    return value + {n}\n" for n in range(400))
    content = f"Here:\n\n```python\n{code}\n```\n\nDone."
    document = show_answer(window, content)
    text = document.toPlainText()
    assert "python · long, shown without colours" in text and "```" not in text
    assert "def step_399(value):" in text and text.rstrip().endswith("Done.")
    colours = set()
    block = document.begin()
    while block.isValid():
        if block.text().startswith("    return value"):
            fragments = block.begin()
            while not fragments.atEnd():
                colours.add(fragments.fragment().charFormat().foreground().color().name())
                fragments += 1
        block = block.next()
    assert len(colours) == 1  # not coloured token by token
    QGuiApplication.clipboard().clear()
    href = links_of(document)["Copy"]
    with qtbot.waitSignal(window.chat_view.notice_requested, timeout=1000):
        window.chat_view.activate_link(window.chat_view.model().index(0, 0), href)
    assert QGuiApplication.clipboard().text() == code


def test_a_huge_answer_shows_its_first_part_and_a_link_to_all_of_it(window):
    paragraph = "A sentence of a very long answer, which goes on and on. " * 8 + "\n\n"
    content = paragraph * (1_000_000 // len(paragraph))
    document = show_answer(window, content)
    shown = document.toPlainText()
    assert SHOWN_ANSWER_CHARS * 0.9 < len(shown) < SHOWN_ANSWER_CHARS + 500
    first = SHOWN_ANSWER_CHARS // 1000
    assert f"The answer goes on: 1.0 MB in all, the first {first} KB shown here." in shown
    window.chat_view.activate_link(
        window.chat_view.model().index(0, 0), links_of(document)[SHOW_WHOLE_LABEL]
    )
    dialog = window.chat_view.findChild(WholeAnswerDialog)
    assert dialog is not None and dialog.text.toPlainText() == content
    dialog.close()


def _stream(document: MessageDocument, text: str, step: int, start: int = 0) -> int:
    updates = 0
    for end in range(start + step, len(text) + step, step):
        document.set_source(text[:end])
        updates += 1
    return updates


def test_streaming_a_large_table_parses_each_line_once(qapp):
    content = "Rows:\n\n" + table(60, 30) + "\nEnd of rows.\n"  # about 17,000 characters
    streamed = MessageDocument(load_theme(), qapp.font(), markdown=True)
    streamed.set_width(700)
    _stream(streamed, content, 200)
    whole = MessageDocument(load_theme(), qapp.font(), markdown=True)
    whole.set_width(700)
    whole.set_source(content)
    assert streamed.toPlainText() == whole.toPlainText()
    assert tables_of(streamed) == []
    # Re-parsing the table as it grows would cost about updates * length / 2 (1.4 million
    # characters here); a line of a plain run is handled once, the unfinished one again.
    assert streamed.parsed_chars < 3 * len(content)


def test_a_huge_streamed_answer_stops_growing_the_document_at_the_shown_part(qapp):
    content = "```python\n" + "x = compute(1)\n" * 70_000 + "```\n"  # a 1 MB code answer
    document = MessageDocument(load_theme(), qapp.font(), markdown=True)
    document.set_width(700)
    _stream(document, content[:200_000], 4_000)
    parsed = document.parsed_chars
    characters = document.characterCount()
    _stream(document, content, 4_000, start=200_000)  # 200 more updates past the shown part
    assert document.parsed_chars == parsed
    assert abs(document.characterCount() - characters) < 200  # only the note changes
    assert document.characterCount() < SHOWN_ANSWER_CHARS + 500


def test_plain_runs_split_the_same_streamed_or_whole():
    text = "Intro.\n\n" + table(20, 30) + "\nAfter.\n\n```python\n" + "x = 1\n" * 1000 + "```\nEnd."
    pieces, start, plain = [], 0, None
    for end in range(1, len(text) + 1, 37):
        split = split_stable(text[:end], start, plain)
        pieces += split.stable
        start, plain = split.tail_start, split.plain
    split = split_stable(text, start, plain)
    last = tail_block(text[split.tail_start :], split.plain)
    pieces += [*split.stable, *([last] if last else [])]

    def joined(blocks):
        out = []
        for b in blocks:
            if b.kind == "plain" and not b.starts_run and out and out[-1][0] == "plain":
                out[-1] = ("plain", out[-1][1] + b.text, out[-1][2])
            else:
                out.append((b.kind, b.text, b.run))
        return out

    whole = split_blocks(text)
    assert joined(pieces) == joined(whole)
    assert [(kind, run) for kind, _, run in joined(whole)] == [
        ("markdown", ""),
        ("plain", "table"),
        ("markdown", ""),
        ("plain", "code"),
        ("markdown", ""),
    ]
