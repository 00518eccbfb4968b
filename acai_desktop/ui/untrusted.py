"""Showing untrusted text — memories, messages, conversation titles, imported files,
a model server's error body — as the literal text it is, never as rich text.

Qt guesses the format of a QLabel's, a QMessageBox's and every tooltip's text
(``Qt.mightBeRichText``): a memory reading ``<img src="file:///…">`` would be rendered,
and the image loaded from disk. So:

* a label or message box that may show such text is plain (:func:`plain_label`,
  :func:`make_plain`);
* a tooltip is always rich-text-detected (QToolTip has no format setting), so its text
  is escaped and wrapped in one paragraph that renders as exactly the original text
  (:func:`tooltip_text`);
* an item view's tooltips (``ToolTipRole``, whatever the model puts there) go through
  :class:`PlainToolTipDelegate`;
* HTML that a dialog builds itself (a QTextBrowser) escapes every untrusted piece with
  ``html.escape`` where it is inserted.
"""

from __future__ import annotations

import html
from typing import TypeVar

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QMessageBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
)

PlainWidget = TypeVar("PlainWidget", QLabel, QMessageBox)


def make_plain(widget: PlainWidget) -> PlainWidget:
    """Show ``widget``'s text as plain text from now on; returns the widget."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def plain_label(text: str = "", object_name: str | None = None) -> QLabel:
    """A QLabel that shows its text literally, whatever it contains."""
    label = make_plain(QLabel())
    label.setText(text)
    if object_name:
        label.setObjectName(object_name)
    return label


def tooltip_text(text: str | None) -> str:
    """``text`` as a tooltip that shows it literally ("" for no tooltip).

    Escaping alone is not enough: escaped text with no tag left is shown as plain text,
    entities and all. One paragraph keeping the line breaks makes Qt read it as rich text
    that renders to exactly ``text`` (and lets a long tooltip wrap)."""
    if not text:
        return ""
    return f'<p style="white-space:pre-wrap">{html.escape(text)}</p>'


class PlainToolTipDelegate(QStyledItemDelegate):
    """An item delegate whose tooltips show the model's ``ToolTipRole`` as plain text."""

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        if event is None or view is None or event.type() != QEvent.Type.ToolTip:
            return super().helpEvent(event, view, option, index)
        text = tooltip_text(index.data(Qt.ItemDataRole.ToolTipRole) if index.isValid() else None)
        if not text:
            QToolTip.hideText()
            event.ignore()
            return False
        QToolTip.showText(event.globalPos(), text, view, option.rect)
        return True
