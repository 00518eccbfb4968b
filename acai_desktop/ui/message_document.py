"""One chat message as a QTextDocument: answers rendered from Markdown, user text plain.

An answer is built block by block (see :mod:`acai_desktop.ui.markdown_blocks`): each
prose block is parsed by Qt's Markdown reader (GitHub dialect, **HTML off**, so raw HTML
in an answer is shown as text) and each fenced code block becomes a framed,
highlighted block with its language and a *Copy* link. While an answer streams, the
stable blocks stay in the document and only the tail — the block still growing — is
removed and parsed again, so a long answer costs its last block per update, not its
whole length.

The document never loads a resource: an image in an answer becomes a link with its
alt text (no local file is read, nothing is fetched).
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import (
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextOption,
    QTextTable,
)

from acai_desktop.ui.fonts import fixed_width_font
from acai_desktop.ui.markdown_blocks import Block, split_stable, tail_block
from acai_desktop.ui.syntax import CodeFormats, highlight
from acai_desktop.ui.theme import Theme

MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
#: Links the chat handles itself: "acai-copy:N" copies code block N.
COPY_SCHEME = "acai-copy"
COPY_LABEL = "Copy"
CODE_PADDING = 10
# Marks a code block's header (language and Copy) so a width change can move its tab.
_HEADER = QTextFormat.Property.UserProperty + 1


def _separator_format() -> QTextBlockFormat:
    """An empty block between two rendered blocks takes no room."""
    fmt = QTextBlockFormat()
    fmt.setLineHeight(0, QTextBlockFormat.LineHeightTypes.FixedHeight.value)
    fmt.setTopMargin(0)
    fmt.setBottomMargin(0)
    return fmt


def code_font(body: QFont) -> QFont:
    return fixed_width_font(max(body.pointSizeF() - 1.0, 8.0))


class MessageDocument(QTextDocument):
    def __init__(self, theme: Theme, font: QFont, *, markdown: bool, parent=None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.markdown = markdown
        self.setDocumentMargin(0)
        self.setDefaultFont(font)
        self.setUndoRedoEnabled(False)
        self.source = ""
        #: The code of each code block, in order (what Copy puts on the clipboard).
        self.code_blocks: list[str] = []
        #: Markdown and code blocks parsed since the document was made (tests count).
        self.parses = 0
        self.parsed_chars = 0
        self._code_formats = CodeFormats(theme, code_font(font))
        self._tail_start = 0  # offset in source where the tail begins
        self._stable_end = 0  # document position where the tail's rendering begins
        self._stable_code_blocks = 0
        self._has_frames = False

    # -- what the delegate asks ------------------------------------------------------

    def loadResource(self, type: int, name: QUrl):
        return None  # never read a file or fetch a URL named by a message

    @property
    def is_wide(self) -> bool:
        """Holds a code block or a table, which use the whole width."""
        return self._has_frames

    def set_width(self, width: float) -> None:
        if width == self.textWidth():
            return
        self.setTextWidth(width)
        block = self.begin()
        while block.isValid():
            if block.blockFormat().hasProperty(_HEADER):
                cursor = QTextCursor(block)
                fmt = block.blockFormat()
                fmt.setTabPositions([self._copy_tab()])
                cursor.setBlockFormat(fmt)
            block = block.next()

    # -- content -------------------------------------------------------------------------

    def set_source(self, text: str) -> None:
        if text == self.source:
            return
        if not self.markdown:
            self.setPlainText(text)
            self.source = text
            return
        if not text.startswith(self.source[: self._tail_start]):
            self._reset()
        split = split_stable(text, self._tail_start)
        self._remove_tail()
        for block in split.stable:
            self._append(block)
        self._tail_start = split.tail_start
        self._stable_end = self._end_cursor().position()
        self._stable_code_blocks = len(self.code_blocks)
        tail = tail_block(text[split.tail_start :])
        if tail is not None:
            self._append(tail)
        self.source = text

    def _reset(self) -> None:
        self.clear()
        self.setDocumentMargin(0)
        self.code_blocks.clear()
        self._tail_start = self._stable_end = self._stable_code_blocks = 0
        self._has_frames = False

    def _remove_tail(self) -> None:
        del self.code_blocks[self._stable_code_blocks :]
        if self._stable_end == 0:
            self.clear()
            self.setDocumentMargin(0)
            return
        cursor = QTextCursor(self)
        cursor.setPosition(self._stable_end)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()

    def _end_cursor(self) -> QTextCursor:
        cursor = QTextCursor(self)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        return cursor

    def _start_block(self) -> QTextCursor:
        """A cursor in an empty, zero-height block at the end, for the next block."""
        cursor = self._end_cursor()
        if cursor.block().length() > 1:
            cursor.insertBlock(_separator_format(), QTextCharFormat())
        else:
            cursor.setBlockFormat(_separator_format())
        return cursor

    def _append(self, block: Block) -> None:
        self.parses += 1
        self.parsed_chars += len(block.text)
        if block.kind == "code":
            self._append_code(block)
        else:
            self._append_markdown(block.text)

    def _append_markdown(self, source: str) -> None:
        parsed = QTextDocument()
        parsed.setDefaultFont(self.defaultFont())
        parsed.setMarkdown(source, MARKDOWN_FEATURES)
        self._dress(parsed)
        cursor = self._start_block()
        first = cursor.blockNumber()
        cursor.insertFragment(QTextDocumentFragment(parsed))
        # A paragraph's first line lands in the block the cursor was in, which keeps its
        # own (empty) format: give it the paragraph's (a heading's size, a quote's indent).
        merged = self.findBlockByNumber(first)
        if merged.length() > 1:
            QTextCursor(merged).setBlockFormat(parsed.begin().blockFormat())

    def _dress(self, parsed: QTextDocument) -> None:
        """The theme's look for what Qt's Markdown reader made; images become links."""
        theme = self.theme
        images: list[tuple[int, int, str, str]] = []
        block = parsed.begin()
        while block.isValid():
            block_format = block.blockFormat()
            quote = block_format.intProperty(QTextFormat.Property.BlockQuoteLevel) > 0
            code = block_format.hasProperty(QTextFormat.Property.BlockCodeFence) or (
                block_format.hasProperty(QTextFormat.Property.BlockCodeLanguage)
            )
            if code:
                block_format.setBackground(theme.color("code_bg"))
                QTextCursor(block).setBlockFormat(block_format)
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                fmt = fragment.charFormat()
                change = QTextCharFormat()
                if fmt.isImageFormat():
                    image = fmt.toImageFormat()
                    alt = image.stringProperty(QTextFormat.Property.ImageAltText)
                    images.append((fragment.position(), fragment.length(), alt, image.name()))
                elif fmt.isAnchor():
                    change.setForeground(theme.color("link"))
                elif fmt.fontFixedPitch() and not code:
                    change.setBackground(theme.color("inline_code_bg"))
                elif quote:
                    change.setForeground(theme.color("quote_ink"))
                if change.properties():
                    cursor = QTextCursor(parsed)
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(
                        fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                    )
                    cursor.mergeCharFormat(change)
                fragments += 1
            block = block.next()
        for position, length, alt, url in reversed(images):
            cursor = QTextCursor(parsed)
            cursor.setPosition(position)
            cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
            link = QTextCharFormat()
            link.setAnchor(True)
            link.setAnchorHref(url)
            link.setForeground(theme.color("link"))
            link.setFontUnderline(True)
            cursor.insertText(f"[image: {alt or url}]", link)
        for frame in parsed.rootFrame().childFrames():
            if isinstance(frame, QTextTable):
                self._has_frames = True
                fmt = frame.format().toTableFormat()
                fmt.setBorder(1)
                fmt.setBorderBrush(theme.color("table_border"))
                fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
                fmt.setBorderCollapse(True)
                fmt.setCellPadding(5)
                fmt.setCellSpacing(0)
                fmt.setTopMargin(4)
                fmt.setBottomMargin(4)
                frame.setFormat(fmt)

    def _copy_tab(self) -> QTextOption.Tab:
        width = max(self.textWidth(), 120) - 2 * CODE_PADDING - 2
        return QTextOption.Tab(width, QTextOption.TabType.RightTab)

    def _append_code(self, block: Block) -> None:
        theme, formats = self.theme, self._code_formats
        self._has_frames = True
        number = len(self.code_blocks)
        self.code_blocks.append(block.text)
        cursor = self._start_block()
        frame_format = QTextFrameFormat()
        frame_format.setBackground(theme.color("code_bg"))
        frame_format.setBorder(1)
        frame_format.setBorderBrush(theme.color("code_border"))
        frame_format.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame_format.setPadding(CODE_PADDING)
        frame_format.setTopMargin(6)
        frame_format.setBottomMargin(6)
        frame_format.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        frame = cursor.insertFrame(frame_format)

        header = QTextBlockFormat()
        header.setProperty(_HEADER, True)
        header.setBottomMargin(4)
        header.setTabPositions([self._copy_tab()])
        cursor.setBlockFormat(header)
        label = QTextCharFormat()
        label.setFont(self.defaultFont())
        label.setFontPointSize(max(self.defaultFont().pointSizeF() - 1.5, 7.0))
        label.setForeground(theme.color("code_header_ink"))
        cursor.insertText((block.language or "code") + "\t", label)
        copy = QTextCharFormat(label)
        copy.setFontWeight(QFont.Weight.DemiBold)
        copy.setForeground(theme.color("link"))
        copy.setAnchor(True)
        copy.setAnchorHref(f"{COPY_SCHEME}:{number}")
        copy.setToolTip("Copy the code")
        cursor.insertText(COPY_LABEL, copy)

        line = QTextBlockFormat()
        cursor.insertBlock(line, formats.format())
        for text, fmt in highlight(block.text, block.language, formats):
            for index, part in enumerate(text.split("\n")):
                if index:
                    cursor.insertBlock(line, fmt)
                if part:
                    cursor.insertText(part, fmt)
        after = frame.lastCursorPosition()
        after.movePosition(QTextCursor.MoveOperation.NextCharacter)
        after.setBlockFormat(_separator_format())
