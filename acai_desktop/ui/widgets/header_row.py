"""The chat header's row, where the title keeps its room and the model's name gives way.

The title and the model's name are both elided labels (see :mod:`.elided_label`). Left
to itself, a box layout short of room takes the same number of pixels from each, so a
long model name could cut a title to a few letters. This row shares the room at each
layout: the title gets up to ``room`` pixels (or its whole text, when shorter) before
the model's name loses any, then the model's name shrinks to its least, and only then
the title goes below that, never below what it ``keeps``. A title longer than ``room``
is cut with the model's name whole.

Below ``compact_below`` pixels (a 640 px window with a side panel open) there is no room
for both: the row turns compact, and its owner hides the model's name (the state beside
it still says whether it answers, and names the model in its tooltip), narrows the
margins and shows glyphs on the panel buttons, so the title and the buttons are never
drawn over each other or cut to "C…s", whatever the fonts. So it does when the row in
full needs more than its width (a chat both temporary and local only shows two badges):
what the compact row saves is measured once it has settled, and the row turns full again
only where the full row fits.
"""

from __future__ import annotations

from collections.abc import Callable

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
        #: Narrower than this, the row is compact (0: never).
        self.compact_below = 0
        self.compact = False
        self._on_compact: Callable[[bool], None] | None = None
        #: The full row's least width, as it was when the row turned compact (None: the
        #: compact row's saving is measured already, or the row is full).
        self._full_least: int | None = None
        #: How much narrower the compact row's least width is than the full row's.
        self._saving = 0

    def turn_compact_below(self, width: int, on_compact: Callable[[bool], None]) -> None:
        """Below ``width`` px call ``on_compact(True)`` (and ``False`` above it again)."""
        self.compact_below, self._on_compact = width, on_compact

    def keep_title(self, title: ElidedLabel, before: ElidedLabel, room: int) -> None:
        """``title`` keeps its room (``room`` px); ``before`` it, the label giving way."""
        self.title, self.yielding, self.room = title, before, room

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
            self._fit_compact()  # a badge shown or hidden changes what the row needs
            self._share_room()
        return super().event(event)

    def _fit_compact(self) -> None:
        layout = self.layout()
        if self._on_compact is None or layout is None:
            return
        least = layout.minimumSize().width()
        if self.compact and self._full_least is not None:
            # The first look at the compact row, settled (the title's least is set by
            # _share_room after the switch): what it saves holds while it is compact.
            self._saving, self._full_least = max(0, self._full_least - least), None
        full_least = least + self._saving if self.compact else least
        compact = self.width() < max(self.compact_below, full_least)
        if compact != self.compact:
            self.compact = compact
            self._full_least = least if compact else None
            self._on_compact(compact)

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
