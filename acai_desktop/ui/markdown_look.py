"""The theme's look on what Qt's Markdown reader made of an answer's prose block: code
on its tint, links and quotes in their inks, citation chips as small tinted links,
tables ruled; an image becomes a link with its alt text (nothing is loaded)."""

from __future__ import annotations

from PySide6.QtGui import (
    QFont,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextTable,
)

from acai_desktop.ui.citation_chips import CITE_SCHEME
from acai_desktop.ui.theme import Theme


def small_point_size(font: QFont) -> float:
    """A note's, a label's or a chip's size beside text in ``font``."""
    return max(font.pointSizeF() - 1.5, 7.0)


def dress_markdown(parsed: QTextDocument, theme: Theme) -> bool:
    """Give ``parsed`` (fresh from ``setMarkdown``) the theme's look; True when it holds
    a table (which takes the whole width)."""
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
            elif fmt.isAnchor() and fmt.anchorHref().startswith(f"{CITE_SCHEME}:"):
                # A citation chip: a small tinted link (see ui.citation_chips).
                change.setForeground(theme.color("link"))
                change.setBackground(theme.color("inline_code_bg"))
                change.setFontWeight(QFont.Weight.DemiBold)
                change.setFontPointSize(small_point_size(parsed.defaultFont()))
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
    has_table = False
    for frame in parsed.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            has_table = True
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
    return has_table
