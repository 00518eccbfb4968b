"""How a row of the Documents tab is drawn: the model's plain item text, and a document
that could not be indexed with its state and reason in the theme's danger colour."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QListView, QStyle, QStyleOptionViewItem

from acai_desktop.ui.models.documents_model import DocumentRoles
from acai_desktop.ui.theme import load_theme
from acai_desktop.ui.untrusted import PlainToolTipDelegate


class DocumentRowDelegate(PlainToolTipDelegate):
    """Rows as plain item text; a document that could not be indexed in the theme's
    danger colour, so its reason stands out."""

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.theme = load_theme()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        if index.data(DocumentRoles.STATUS) != "error":
            super().paint(painter, option, index)
            return
        # The stylesheet sets the items' text colour, so this row's text is drawn here
        # (with drawText: plain text, whatever the name holds), below the name.
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        style = item.widget.style() if item.widget is not None else QApplication.style()
        element = QStyle.SubElement.SE_ItemViewItemText
        # Inset as Qt's own item text is (the focus frame's margin and one pixel).
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, item.widget) + 1
        text_rect = style.subElementRect(element, item, item.widget).adjusted(margin, 0, -margin, 0)
        name, _, rest = str(index.data()).partition("\n")
        item.text = ""
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, item.widget)
        painter.save()
        painter.setFont(item.font)
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        line = painter.fontMetrics().lineSpacing()
        painter.setPen(self.theme.color("ink"))
        painter.drawText(text_rect, flags | int(Qt.TextFlag.TextSingleLine), name)
        painter.setPen(self.theme.color("danger"))
        wrapped = flags | int(Qt.TextFlag.TextWordWrap)
        painter.drawText(text_rect.adjusted(0, line, 0, 0), wrapped, rest)
        painter.restore()
