"""The chat header's row, where the title keeps its room and the model's name gives way.

The title and the model's name are both elided labels (see :mod:`.elided_label`). Left
to itself, a box layout short of room takes the same number of pixels from each, so a
long model name would cut a title that could have been shown whole. This row raises
the title's minimum, at each layout, to as much of its whole width as the room left
once the model's name has shrunk to its least allows, and never below what the title
``keeps``.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QWidget

from acai_desktop.ui.widgets.elided_label import ElidedLabel


class HeaderRow(QWidget):
    def __init__(self, object_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        # Plain QWidgets paint stylesheet backgrounds and borders only with this set.
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.title: ElidedLabel | None = None
        self.yielding: ElidedLabel | None = None

    def keep_title(self, title: ElidedLabel, before: ElidedLabel) -> None:
        """``title`` keeps its room; ``before`` it, the label that gives way first."""
        self.title, self.yielding = title, before

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
            self._fit_title()
        return super().event(event)

    def _fit_title(self) -> None:
        title, yielding, layout = self.title, self.yielding, self.layout()
        if title is None or yielding is None or layout is None:
            return
        whole = title.sizeHint().width()
        least = min(whole, title.keeps)
        title.setMinimumWidth(least)  # so that the row's own hint counts the whole title
        layout.invalidate()
        short = layout.sizeHint().width() - self.width()
        if yielding.isVisible():
            short -= yielding.sizeHint().width() - yielding.minimumSizeHint().width()
        wanted = max(least, min(whole, whole - short))
        if title.minimumWidth() != wanted:
            title.setMinimumWidth(wanted)
