"""Answers rendered from Markdown in the chat: what the document holds (not pixels),
untrusted HTML and links, Copy on code, selecting text, streaming cost, themes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QObject, QPoint, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QGuiApplication, QKeySequence, QTextFormat

from acai_desktop.core.events import MessageDelta
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.ui.fonts import has_equal_advances
from acai_desktop.ui.markdown_blocks import split_blocks, split_stable
from acai_desktop.ui.message_document import MessageDocument
from acai_desktop.ui.theme import apply_theme, load_theme
from tests.support.gui import shown_main_window

AT = "2026-01-01T00:00:00+00:00"
CODE = 'def greet(name: str) -> str:\n    """Say hello."""\n    return f"Hello, {name}!"'
ANSWER = f"""## Reading the file

Use **bold** and *emphasis*, a [web link](https://example.org/doc) and `inline code`.

- first point
- second point

> A quoted tip.

| Option | Meaning |
|---|---|
| `a` | the first |

```python
{CODE}
```

That's all.
"""


def message(id, role="assistant", content="", status=MessageStatus.COMPLETE, **kw) -> Message:
    return Message(id, 1, role, content, status, AT, **kw)


@pytest.fixture
def window(qtbot, qapp):
    return shown_main_window(qtbot, qapp, size=(1200, 800))


def show(window, *messages: Message) -> None:
    window.show_conversation(1, "Test", list(messages))


def blocks_of(document):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def test_a_markdown_answer_renders_heading_list_table_quote_and_code(window):
    show(window, message(1, "user", "How do I read it?"), message(2, content=ANSWER))
    document = window.chat_view.document_at(1)
    text = document.toPlainText()
    assert "##" not in text and "**" not in text and "```" not in text and "|---" not in text
    heading = next(b for b in blocks_of(document) if b.text() == "Reading the file")
    assert heading.blockFormat().headingLevel() == 2
    assert [b.text() for b in blocks_of(document) if b.textList()] == [
        "first point",
        "second point",
    ]
    quote = next(b for b in blocks_of(document) if b.text() == "A quoted tip.")
    assert quote.blockFormat().intProperty(QTextFormat.Property.BlockQuoteLevel) == 1
    tables = [f for f in document.rootFrame().childFrames() if f.__class__.__name__ == "QTextTable"]
    assert len(tables) == 1 and tables[0].rows() == 2 and tables[0].columns() == 2
    bold = [
        fragment
        for block in blocks_of(document)
        for fragment in _fragments(block)
        if fragment.text() == "bold"
    ]
    assert bold and bold[0].charFormat().fontWeight() >= 600
    # The code block: its language, a Copy link, monospace lines, coloured tokens.
    assert document.code_blocks == [CODE]
    assert "python\tCopy" in text
    code_lines = [b for b in blocks_of(document) if b.text().startswith("def greet")]
    assert code_lines
    fragments = list(_fragments(code_lines[0]))
    # Fixed width as a reader sees it (narrow and wide glyphs take the same room), not
    # Qt's fixedPitch flag, which depends on which fonts the machine has.
    assert all(has_equal_advances(f.charFormat().font()) for f in fragments)
    keyword = next(f for f in fragments if f.text() == "def")
    name = next(f for f in fragments if f.text() == "greet")
    assert keyword.charFormat().foreground().color() != name.charFormat().foreground().color()
    assert keyword.charFormat().foreground().color() == load_theme().color("syntax_keyword")


def _fragments(block):
    iterator = block.begin()
    while not iterator.atEnd():
        yield iterator.fragment()
        iterator += 1


def test_raw_html_in_an_answer_is_shown_as_text(window):
    answer = 'Look: <img src="file:///etc/hostname"> <script>alert(1)</script> <b>bold?</b>'
    show(window, message(1, content=answer))
    document = window.chat_view.document_at(0)
    text = document.toPlainText()
    assert '<img src="file:///etc/hostname">' in text
    assert "<script>alert(1)</script>" in text
    assert "<b>bold?</b>" in text
    formats = [f.charFormat() for b in blocks_of(document) for f in _fragments(b)]
    assert not any(fmt.isImageFormat() for fmt in formats)


def test_user_text_is_plain_never_markdown_or_html(window):
    typed = "# not a heading\n**not bold** <b>not html</b>"
    show(window, message(1, "user", typed))
    document = window.chat_view.document_at(0)
    assert document.toPlainText() == typed
    assert all(b.blockFormat().headingLevel() == 0 for b in blocks_of(document))


def test_a_markdown_image_is_a_link_and_no_file_is_read(window, tmp_path):
    picture = tmp_path / "secret.png"
    picture.write_bytes(b"not really a png")
    show(window, message(1, content=f"![the alt]({QUrl.fromLocalFile(str(picture)).toString()})"))
    document = window.chat_view.document_at(0)
    assert "[image: the alt]" in document.toPlainText()
    assert document.loadResource(2, QUrl.fromLocalFile(str(picture))) is None


class LinkRecorder(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def record(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def opened_links():
    recorder = LinkRecorder()
    schemes = ("http", "https", "mailto", "file", "javascript", "ftp")
    for scheme in schemes:
        QDesktopServices.setUrlHandler(scheme, recorder, "record")
    yield recorder.opened
    for scheme in schemes:
        QDesktopServices.unsetUrlHandler(scheme)


def test_only_web_and_mail_links_are_opened(window, qtbot, opened_links):
    show(window, message(1, content="x"))
    view = window.chat_view
    index = view.model().index(0, 0)
    for href in ("file:///etc/passwd", "javascript:alert(1)", "ftp://example.org/x"):
        with qtbot.waitSignal(view.notice_requested, timeout=1000) as notice:
            view.activate_link(index, href)
        assert "Not opened" in notice.args[0]
    for href in ("https://example.org/a", "http://example.org/b", "mailto:me@example.org"):
        view.activate_link(index, href)
    assert opened_links == [
        "https://example.org/a",
        "http://example.org/b",
        "mailto:me@example.org",
    ]


def test_clicking_a_link_in_the_reader_goes_through_the_same_rules(window, qtbot, opened_links):
    show(window, message(1, content="[bad](file:///etc/passwd) and [good](https://example.org/)"))
    view = window.chat_view
    reader = view.open_reader(view.model().index(0, 0))
    assert reader is not None and reader.document() is view.document_at(0)
    with qtbot.waitSignal(view.notice_requested, timeout=1000):
        reader.anchorClicked.emit(QUrl("file:///etc/passwd"))
    reader.anchorClicked.emit(QUrl("https://example.org/"))
    assert opened_links == ["https://example.org/"]


def test_copy_on_a_code_block_puts_exactly_the_code_on_the_clipboard(window, qtbot):
    second = "SELECT 1;"
    answer = f"Two blocks.\n\n```python\n{CODE}\n```\n\nAnd:\n\n```sql\n{second}\n```\n"
    show(window, message(1, content=answer))
    view = window.chat_view
    QGuiApplication.clipboard().clear()
    # Click the drawn "Copy" link of the second block, as a user would.
    reader = view.open_reader(view.model().index(0, 0))
    document = view.document_at(0)
    headers = [b for b in blocks_of(document) if b.text().endswith("\tCopy")]
    assert len(headers) == 2
    layout = document.documentLayout()
    header = headers[1]
    block_rect = layout.blockBoundingRect(header)
    line = header.layout().lineAt(0)
    x = line.cursorToX(header.length() - 2)[0] + header.layout().position().x()
    point = QPoint(int(x), int(block_rect.top() + line.height() / 2))
    assert layout.anchorAt(point).startswith("acai-copy:")
    with qtbot.waitSignal(view.notice_requested, timeout=1000):
        qtbot.mouseClick(reader.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert QGuiApplication.clipboard().text() == second
    view.activate_link(view.model().index(0, 0), "acai-copy:0")
    assert QGuiApplication.clipboard().text() == CODE


def test_answer_text_is_selectable_with_the_mouse_and_the_keyboard(window, qtbot):
    show(window, message(1, content="Alpha beta gamma delta.\n\nSecond paragraph here."))
    view = window.chat_view
    rect = view.visualRect(view.model().index(0, 0))
    layout = view.delegate.bubble_layout(rect, view.model().index(0, 0))
    # Hovering the text opens the reader over it; a drag there selects.
    qtbot.mouseMove(view.viewport(), layout.text.topLeft() + QPoint(2, 4))
    qtbot.waitUntil(lambda: view.reader() is not None, timeout=1000)
    reader = view.reader()
    assert reader.geometry() == layout.text
    flags = reader.textInteractionFlags()
    assert flags & Qt.TextInteractionFlag.TextSelectableByMouse
    assert flags & Qt.TextInteractionFlag.TextSelectableByKeyboard
    qtbot.mousePress(reader.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(1, 5))
    qtbot.mouseMove(reader.viewport(), QPoint(60, 5))
    qtbot.mouseRelease(reader.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(60, 5))
    assert reader.textCursor().selectedText().startswith("Alpha")
    # Keyboard: Enter on the current message opens it; Ctrl+A, Ctrl+C copy the text.
    view.close_reader()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=1000)
    view.setCurrentIndex(view.model().index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    reader = view.reader()
    assert reader is not None and reader.hasFocus()
    qtbot.keyClick(reader, Qt.Key.Key_End, Qt.KeyboardModifier.ShiftModifier)
    assert reader.textCursor().hasSelection()
    qtbot.keySequence(reader, QKeySequence.StandardKey.SelectAll)
    qtbot.keySequence(reader, QKeySequence.StandardKey.Copy)
    assert QGuiApplication.clipboard().text() == "Alpha beta gamma delta.\nSecond paragraph here."
    qtbot.keyClick(reader, Qt.Key.Key_Escape)
    assert view.reader() is None and view.hasFocus()


def test_streaming_reparses_only_the_tail(qapp):
    theme = load_theme()
    paragraphs = [
        f"Paragraph {n} explains one more thing about the topic, with **bold** words and "
        f"`code` in it, at some length so that the answer grows long.\n\n"
        for n in range(60)
    ]
    answer = "".join(paragraphs) + f"```python\n{CODE}\n```\n\nThe end."
    document = MessageDocument(theme, qapp.font(), markdown=True)
    document.set_width(600)
    updates = 0
    for end in range(24, len(answer) + 24, 24):  # about one batch of tokens each time
        before = document.parsed_chars
        # What was not yet stable before this update (the tail) and the new text.
        unstable = min(end, len(answer)) - split_stable(answer[: max(end - 24, 0)]).tail_start
        document.set_source(answer[:end])
        updates += 1
        # Never more than that: the finished paragraphs are not parsed again.
        assert document.parsed_chars - before <= unstable
    whole = MessageDocument(theme, qapp.font(), markdown=True)
    whole.set_source(answer)
    assert document.toPlainText() == whole.toPlainText()
    assert document.code_blocks == whole.code_blocks == [CODE]
    # Re-parsing the whole answer per update would cost about updates * len / 2.
    assert document.parsed_chars < 6 * len(answer) < updates * len(answer) / 10


def test_a_streamed_answer_is_announced_in_batches_for_its_row_only(window, qtbot):
    show(window, message(1, "user", "hi"), message(2, content="", status=MessageStatus.STREAMING))
    model = window.messages_model
    changes = []
    model.dataChanged.connect(lambda top, bottom, roles: changes.append((top.row(), bottom.row())))
    text = ""
    for word in ["Hello", " there", ", this", " streams", " fast."]:
        text += word
        model.on_message_updated(MessageDelta(2, 1, word, text, MessageStatus.STREAMING))
    assert changes == []
    qtbot.waitUntil(lambda: changes == [(1, 1)], timeout=1000)
    assert window.chat_view.document_at(1).toPlainText() == "Hello there, this streams fast."
    model.on_message_updated(MessageDelta(2, 1, "", text, MessageStatus.COMPLETE))
    assert changes[-1] == (1, 1)


def test_split_blocks_keeps_loose_lists_and_code_together():
    text = (
        "Intro.\n\n1. one\n\n2. two\n\n   more of two\n\nAfter.\n\n"
        "```js\nlet a = 1;\n\nlet b;\n```\n"
    )
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == ["markdown", "markdown", "code"]
    assert blocks[0].text.startswith("Intro.") and "more of two" in blocks[0].text
    assert blocks[2].text == "let a = 1;\n\nlet b;" and blocks[2].language == "js"


def test_regenerate_and_edit_actions(window, qtbot):
    show(
        window,
        message(1, "user", "first question"),
        message(2, content="first answer"),
        message(3, "user", "second question"),
        message(4, content="second answer"),
    )
    view = window.chat_view
    assert view.action_rect(0, "edit") is not None  # every message of the user's
    assert view.action_rect(1, "edit") is None  # never an answer
    with qtbot.waitSignal(window.chat_view.retry_requested, timeout=1000) as blocker:
        qtbot.mouseClick(
            view.viewport(),
            Qt.MouseButton.LeftButton,
            pos=view.action_rect(1, "regenerate").center(),
        )
    assert blocker.args == [2]
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.action_rect(2, "edit").center()
    )
    assert window.composer.text() == "second question"
    assert window.composer.editing_message_id == 3  # sending it branches there


def test_switching_the_theme_recolours_the_chat(window, qtbot, qapp):
    show(window, message(1, content="[a link](https://example.org)\n\n```python\nx = 1\n```"))
    light, dark = load_theme("light"), load_theme("dark")
    assert window.chat_view.document_at(0).theme.name == "light"
    window.set_theme(apply_theme(qapp, "dark"))
    try:
        document = window.chat_view.document_at(0)
        assert document.theme.name == "dark"
        link = next(f for b in blocks_of(document) for f in _fragments(b) if f.text() == "a link")
        assert link.charFormat().foreground().color() == dark.color("link")
        assert qapp.palette().color(qapp.palette().ColorRole.Window) == dark.color("canvas")
        assert window.chat_view.delegate.theme.name == "dark"
    finally:
        window.set_theme(apply_theme(qapp, "light"))
    assert qapp.palette().color(qapp.palette().ColorRole.Window) == light.color("canvas")


def test_themes_define_the_same_colours_and_every_stylesheet_name():
    light, dark = load_theme("light"), load_theme("dark")
    assert set(light.colors) == set(dark.colors)
    assert "@" not in light.stylesheet() and "@" not in dark.stylesheet()
    assert light.stylesheet() != dark.stylesheet()


def test_the_system_colour_scheme_is_followed_live(qapp):
    from acai_desktop.ui.theme import ThemeController

    apply_theme(qapp, "light")
    controller = ThemeController(qapp, "system")
    seen = []
    controller.theme_changed.connect(lambda theme: seen.append(theme.name))
    try:
        controller._on_style_hints_color_scheme_changed(Qt.ColorScheme.Dark)
        assert seen == ["dark"]
        controller.set_choice("light")  # an explicit choice ignores the system
        controller._on_style_hints_color_scheme_changed(Qt.ColorScheme.Dark)
        assert seen == ["dark", "light"]
    finally:
        apply_theme(qapp, "light")
        controller.deleteLater()


def test_a_long_conversation_keeps_a_bounded_document_cache(window, qtbot):
    messages = []
    for n in range(1, 1001):
        role = "user" if n % 2 else "assistant"
        messages.append(message(n, role, f"Message {n} with **some** text."))
    show(window, *messages)
    view = window.chat_view
    view.scrollToTop()
    for _ in range(5):
        view.verticalScrollBar().setValue(view.verticalScrollBar().value() + 3000)
        qtbot.wait(5)
    assert len(view.delegate.documents._documents) <= view.delegate.documents.capacity


def test_a_message_that_changes_entirely_is_rendered_again(qapp):
    document = MessageDocument(load_theme(), qapp.font(), markdown=True)
    document.set_source("# Old\n\nold text")
    document.set_source("New text only")  # a retry restarts the answer
    assert document.toPlainText() == "New text only"
    assert replace(message(1), content="x").content == "x"


def test_messages_are_laid_out_again_when_the_chat_gets_narrower(window, qtbot):
    """A narrower chat wraps an answer on more lines: its row grows and the next
    message moves down instead of being painted over."""
    show(window, message(1, content=ANSWER), message(2, role="user", content="Thanks!"))
    view = window.chat_view
    model = window.messages_model

    def rows():
        return [view.visualRect(model.index(row, 0)) for row in range(2)]

    qtbot.waitUntil(lambda: rows()[0].height() > 0)
    wide = rows()
    sizes = window.splitter.sizes()
    narrower = sizes[1] - 250
    window.splitter.setSizes([sizes[0], narrower, sizes[2] + 250])
    qtbot.waitUntil(lambda: rows()[0].height() > wide[0].height())
    qtbot.waitUntil(lambda: not rows()[0].intersects(rows()[1]))
    assert rows()[1].top() > wide[1].top()
