"""The chat header's row, where the title keeps its room and the model's name gives way.

The title and the model's name are both elided labels (see :mod:`.elided_label`). Left
to itself, a box layout short of room takes the same number of pixels from each, so a
long model name could cut a title to a few letters. This row shares the room at each
layout: the title gets up to ``room`` pixels (or its whole text, when shorter) before
the model's name loses any, then the model's name shrinks to its least, and only then
the title goes below that, never below what it ``keeps``. A title longer than ``room``
is cut with the model's name whole.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QWidget

from acai_desktop.ui.widgets.elided_label import ElidedLabel

#: Qt's "no maximum" (QWIDGETSIZE_MAX, which PySide6 does not export).
NO_MAXIMUM = (1 << 24) - 1


class HeaderRow(QWidget):
    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        # Plain QWidgets paint stylesheet backgrounds and borders only with this set.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.title: ElidedLabel | None = None
        self.yielding: ElidedLabel | None = None
        self.room = 0

    def keep_title(self, title: ElidedLabel, before: ElidedLabel, room: int) -> None:
        """``title`` keeps its room (``room`` px); ``before`` it, the label giving way."""
        self.title, self.yielding, self.room = title, before, room

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
            self._share_room()
        return super().event(event)

    def _share_room(self) -> None:
        title, yielding, layout = self.title, self.yielding, self.layout()
        if title is None or yielding is None or layout is None:
            return
        whole = title.sizeHint().width()
        least = min(whole, title.keeps)
        # The name is held back with a maximum, never the title pushed with a minimum:
        # the row's (and the window's) least width stays what the title keeps.
        name, name_least = yielding.sizeHint().width(), yielding.minimumSizeHint().width()
        shown_name = min(name, yielding.maximumWidth()) if yielding.isVisible() else 0
        others = layout.sizeHint().width() - max(whole, title.minimumWidth()) - shown_name
        free = self.width() - others  # for the title and the name
        target = min(whole, self.room)
        # The name whole while the title has its room; else the title's room first.
        cap = NO_MAXIMUM if free >= target + name else max(name_least, free - target)
        if title.minimumWidth() != least:
            title.setMinimumWidth(least)
        if yielding.maximumWidth() != cap:
            yielding.setMaximumWidth(cap)
