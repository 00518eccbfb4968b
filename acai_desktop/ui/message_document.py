"""One chat message as a QTextDocument: answers rendered from Markdown, user text plain.

An answer is built block by block (see :mod:`acai_desktop.ui.markdown_blocks`): each
prose block is parsed by Qt's Markdown reader (GitHub dialect, **HTML off**, so raw HTML
in an answer is shown as text) and each fenced code block becomes a framed,
highlighted block with its language and a *Copy* link. While an answer streams, the
stable blocks stay in the document and only the tail — the block still growing — is
removed and parsed again, so a long answer costs its last block per update, not its
whole length.

Its cost is bounded whatever the answer: a block past a size limit is a *plain run*
(see :mod:`~acai_desktop.ui.markdown_blocks`), shown as text with a *Show as table*
or *Copy* link, and only the first :data:`SHOWN_ANSWER_CHARS` of an answer are laid
out in the chat, with a *Show the whole answer* link for the rest.

A user's long message (a paste) shows folded, with *Show more* (and *Show less* once
unfolded), and a note on what the prompt budget means for it (see
:mod:`acai_desktop.ui.long_message`).

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
)

from acai_desktop.ui.fonts import fixed_width_font
from acai_desktop.ui.long_message import budget_note, folded_part, is_long
from acai_desktop.ui.markdown_blocks import (
    CODE,
    TABLE,
    Block,
    PlainRun,
    split_stable,
    tail_block,
)
from acai_desktop.ui.markdown_look import dress_markdown, small_point_size
from acai_desktop.ui.message_links import (
    COPY_SCHEME,
    LONG_CODE_SCHEME,
    MORE_SCHEME,
    TABLE_SCHEME,
    WHOLE_ANSWER_SCHEME,
)
from acai_desktop.ui.syntax import CodeFormats, highlight
from acai_desktop.ui.theme import Theme

MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
COPY_LABEL = "Copy"
SHOW_MORE_LABEL = "Show more"
SHOW_LESS_LABEL = "Show less"
SHOW_ALL_LABEL = "Show all of it"
SHOW_TABLE_LABEL = "Show as table"
SHOW_WHOLE_LABEL = "Show the whole answer"
#: How much of an answer the chat lays out (some 60 ms to build and lay out on a busy
#: 2-core machine, measured with `bench ui`): the rest is a link
#: to a viewer, so no answer, however long, stalls the window.
SHOWN_ANSWER_CHARS = 24_000
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
        self._plain: PlainRun | None = None  # the plain run the tail continues
        self._shown = ""  # the part of source laid out (all of it, or its first part)
        self._note_start = -1  # document position of the "goes on" note, -1: none
        #: A user's long message: shown whole (up to the chat's limit) or folded.
        self.unfolded = False
        #: The prompt budget (tokens) a user's message is measured against; None: unknown.
        self.budget_tokens: int | None = None
        #: An answer's citation chips' tooltips, by number (plain text, made safe), and
        #: its text with the chips, for the (text, citations) it was made from.
        self.chip_tooltips: dict[int, str] = {}
        self.cited: tuple[tuple, str] | None = None

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

    def set_view(self, *, unfolded: bool, budget_tokens: int | None) -> None:
        """How a user's message shows: unfolded or not, and the budget it is measured
        against (its text is laid out again when either changes)."""
        if (unfolded, budget_tokens) != (self.unfolded, self.budget_tokens):
            self.unfolded, self.budget_tokens = unfolded, budget_tokens
            if not self.markdown and self.source:
                self._set_user_text(self.source)

    def set_source(self, text: str) -> None:
        if text == self.source:
            return
        if not self.markdown:
            self._set_user_text(text)
            self.source = text
            return
        shown = shown_part(text)
        self._remove_note()
        if shown != self._shown:
            self._render(shown)
        if len(shown) < len(text):
            self._add_note(len(text))
        self.source = text

    def _render(self, text: str) -> None:
        if not text.startswith(self._shown[: self._tail_start]):
            self._reset()
        split = split_stable(text, self._tail_start, self._plain)
        self._remove_tail()
        for block in split.stable:
            self._append(block)
        self._tail_start, self._plain = split.tail_start, split.plain
        self._stable_end = self._end_cursor().position()
        self._stable_code_blocks = len(self.code_blocks)
        tail = tail_block(text[split.tail_start :], split.plain)
        if tail is not None:
            self._append(tail)
        self._shown = text

    def _reset(self) -> None:
        self.clear()
        self.setDocumentMargin(0)
        self.code_blocks.clear()
        self._tail_start = self._stable_end = self._stable_code_blocks = 0
        self._has_frames = False
        self._plain = None
        self._shown = ""

    def _remove_tail(self) -> None:
        del self.code_blocks[self._stable_code_blocks :]
        if self._stable_end == 0:
            self.clear()
            self.setDocumentMargin(0)
            return
        self._remove_from(self._stable_end)

    def _remove_from(self, position: int) -> None:
        cursor = QTextCursor(self)
        cursor.setPosition(position)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()

    # -- a user's long message ---------------------------------------------------------

    def _set_user_text(self, text: str) -> None:
        """The user's words as plain text; a long message folded (or unfolded up to the
        chat's limit) with its links, and what the prompt budget means for it."""
        long = is_long(text)
        if not long:
            shown = text
        elif self.unfolded:
            shown = shown_part(text)
        else:
            shown = folded_part(text)
        self.setPlainText(shown if shown == text else shown.rstrip() + " …")
        self.setDocumentMargin(0)
        note = budget_note(text, self.budget_tokens)
        if not long and note is None:
            return
        ink = self._user_note_format()
        if long:
            cursor = self._start_block()
            cursor.setBlockFormat(self._note_block_format())
            cursor.insertText(f"{len(shown):,} of {len(text):,} characters shown  ", ink)
            if self.unfolded:
                cursor.insertText(SHOW_LESS_LABEL, self._user_link(f"{MORE_SCHEME}:fold"))
                if len(shown) < len(text):
                    cursor.insertText("  ·  ", ink)
                    whole = self._user_link(f"{WHOLE_ANSWER_SCHEME}:whole")
                    cursor.insertText(SHOW_ALL_LABEL, whole)
            else:
                cursor.insertText(SHOW_MORE_LABEL, self._user_link(f"{MORE_SCHEME}:unfold"))
        if note is not None:
            cursor = self._start_block()
            cursor.setBlockFormat(self._note_block_format())
            cursor.insertText(note, ink)

    def _note_block_format(self) -> QTextBlockFormat:
        block = QTextBlockFormat()
        block.setTopMargin(6)
        return block

    def _user_note_format(self) -> QTextCharFormat:
        # On the user's bubble, in its own ink (the answer's grey and link colours
        # don't read on it).
        note = QTextCharFormat()
        note.setFont(self.defaultFont())
        note.setFontPointSize(small_point_size(self.defaultFont()))
        note.setFontItalic(True)
        note.setForeground(self.theme.color("bubble_user_ink"))
        return note

    def _user_link(self, href: str) -> QTextCharFormat:
        link = self._user_note_format()
        link.setFontItalic(False)
        link.setFontWeight(QFont.Weight.DemiBold)
        link.setFontUnderline(True)
        link.setAnchor(True)
        link.setAnchorHref(href)
        return link

    # -- the parts of a long answer ---------------------------------------------------

    def _add_note(self, total_chars: int) -> None:
        """Under the part shown: that the answer goes on, and a link to all of it."""
        self._note_start = self._end_cursor().position()
        cursor = self._start_block()
        cursor.setBlockFormat(self._header_format())
        label = self._label_format()
        label.setFontItalic(True)
        cursor.insertText(
            f"The answer goes on: {_size_text(total_chars)} in all, the first "
            f"{_size_text(SHOWN_ANSWER_CHARS)} shown here.\t",
            label,
        )
        cursor.insertText(SHOW_WHOLE_LABEL, self._link_format(f"{WHOLE_ANSWER_SCHEME}:whole"))

    def _remove_note(self) -> None:
        if self._note_start >= 0:
            self._remove_from(self._note_start)
            self._note_start = -1

    def _append_plain(self, block: Block) -> None:
        """A piece of a plain run: its first piece starts it with a header line."""
        mono = block.run in (TABLE, CODE)
        text_format = QTextCharFormat()
        text_format.setFont(self._code_formats.font if mono else self.defaultFont())
        line = QTextBlockFormat()
        if mono:
            self._has_frames = True  # as wide as a table or code would be
            line.setBackground(self.theme.color("code_bg"))
        if block.starts_run and not mono:
            # Prose needs no header: it reads as the text it is.
            cursor = self._start_block()
            cursor.setBlockFormat(line)
        elif block.starts_run:
            cursor = self._start_block()
            header = self._header_format()
            header.setTopMargin(6)
            if mono:
                header.setBackground(self.theme.color("code_bg"))
            cursor.setBlockFormat(header)
            cursor.insertText(_run_title(block) + "\t", self._label_format())
            if block.run == TABLE:
                link = self._link_format(f"{TABLE_SCHEME}:{block.offset}")
                cursor.insertText(SHOW_TABLE_LABEL, link)
            elif block.run == CODE:
                link = self._link_format(f"{LONG_CODE_SCHEME}:{block.offset}")
                link.setToolTip("Copy the code")
                cursor.insertText(COPY_LABEL, link)
            cursor.insertBlock(line, text_format)
        else:
            # Continues the run: the last block may have been dressed as a separator.
            cursor = self._end_cursor()
            cursor.setBlockFormat(line)
        cursor.insertText(block.text, text_format)

    def _header_format(self) -> QTextBlockFormat:
        header = QTextBlockFormat()
        header.setProperty(_HEADER, True)
        header.setBottomMargin(4)
        header.setTabPositions([self._copy_tab()])
        return header

    def _label_format(self) -> QTextCharFormat:
        label = QTextCharFormat()
        label.setFont(self.defaultFont())
        label.setFontPointSize(small_point_size(self.defaultFont()))
        label.setForeground(self.theme.color("code_header_ink"))
        return label

    def _link_format(self, href: str) -> QTextCharFormat:
        link = self._label_format()
        link.setFontWeight(QFont.Weight.DemiBold)
        link.setForeground(self.theme.color("link"))
        link.setAnchor(True)
        link.setAnchorHref(href)
        return link

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
        elif block.kind == "plain":
            self._append_plain(block)
        else:
            self._append_markdown(block.text)

    def _append_markdown(self, source: str) -> None:
        parsed = QTextDocument()
        parsed.setDefaultFont(self.defaultFont())
        parsed.setMarkdown(source, MARKDOWN_FEATURES)
        if dress_markdown(parsed, self.theme):
            self._has_frames = True  # a table uses the whole width
        cursor = self._start_block()
        first = cursor.blockNumber()
        cursor.insertFragment(QTextDocumentFragment(parsed))
        # A paragraph's first line lands in the block the cursor was in, which keeps its
        # own (empty) format: give it the paragraph's (a heading's size, a quote's indent).
        merged = self.findBlockByNumber(first)
        if merged.length() > 1:
            QTextCursor(merged).setBlockFormat(parsed.begin().blockFormat())

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

        cursor.setBlockFormat(self._header_format())
        cursor.insertText((block.language or "code") + "\t", self._label_format())
        copy = self._link_format(f"{COPY_SCHEME}:{number}")
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


def shown_part(text: str) -> str:
    """The part of an answer the chat lays out: all of it up to SHOWN_ANSWER_CHARS, else
    its first SHOWN_ANSWER_CHARS cut after a line (so the part stays the same while
    the answer streams on)."""
    if len(text) <= SHOWN_ANSWER_CHARS:
        return text
    cut = text.rfind("\n", 0, SHOWN_ANSWER_CHARS) + 1
    return text[: cut or SHOWN_ANSWER_CHARS]


def _size_text(chars: int) -> str:
    """About how much text: "40 KB", "1.0 MB" (a character counted as a byte)."""
    if chars >= 999_500:
        return f"{chars / 1_000_000:.1f} MB"
    return f"{max(1, round(chars / 1000)):,} KB"


def _run_title(block: Block) -> str:
    if block.run == TABLE:
        return "A large table, shown as text"
    return f"{block.language or 'code'} · long, shown without colours"
