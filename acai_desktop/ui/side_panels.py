"""Which side panels the window shows: those the user wants (the saved choice, or a
toggle), folded to leave the chat room when the window is narrow. Folding is not the
user's choice: it is never saved, and a panel comes back when there is room again."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

#: The narrowest the chat may get while a side panel shows beside it; below that the
#: side panels fold by themselves (the memory panel first) and come back with room.
CHAT_MIN_WIDTH = 480
#: The side panels' widths as the window opens them (the splitter's first sizes).
SIDEBAR_WIDTH, SIDE_PANEL_WIDTH = 250, 330
CONVERSATIONS, MEMORY = "conversations", "memory"


class SidePanels:
    def __init__(
        self,
        sidebar: QWidget,
        side_tabs: QWidget,
        conversations_action: QAction,
        memory_action: QAction,
    ) -> None:
        self._panes = {CONVERSATIONS: sidebar, MEMORY: side_tabs}
        #: The toggles say what shows (checked: shown), folded or not.
        self._actions = {CONVERSATIONS: conversations_action, MEMORY: memory_action}
        self._wanted = {CONVERSATIONS: True, MEMORY: True}
        #: The panel the user opened last: the one kept when only one fits.
        self._last_opened: str | None = None

    def wanted(self) -> tuple[bool, bool]:
        """The panels the user wants: conversations shown, memory panel shown."""
        return self._wanted[CONVERSATIONS], self._wanted[MEMORY]

    def want(self, conversations: bool, memory: bool, width: int) -> None:
        """The saved choice, shown as ``width`` allows."""
        self._wanted = {CONVERSATIONS: conversations, MEMORY: memory}
        self.fit(width)

    def toggled(self, action: QAction, shown: bool, width: int) -> None:
        """The user showed or hid the panel of ``action``: it shows, the other folds
        if both don't fit."""
        panel = CONVERSATIONS if action is self._actions[CONVERSATIONS] else MEMORY
        self._wanted[panel] = shown
        if shown:
            self._last_opened = panel
        self.fit(width)

    def resized(self, width: int) -> None:
        self._last_opened = None  # a panel opened by hand lasts until the next resize
        self.fit(width)

    def that_fit(self, width: int) -> dict[str, bool]:
        """Which wanted side panels show in a window ``width`` wide: those that fit, at
        their usual width, beside a chat of CHAT_MIN_WIDTH; the memory panel folds first.
        The panel the user has just opened (since the last resize) shows anyway: the
        other one folds for it."""
        minimum = {CONVERSATIONS: SIDEBAR_WIDTH, MEMORY: SIDE_PANEL_WIDTH}
        shown = dict(self._wanted)
        for panel in (MEMORY, CONVERSATIONS):
            needed = CHAT_MIN_WIDTH + sum(minimum[p] for p, on in shown.items() if on)
            if needed > width and panel != self._last_opened:
                shown[panel] = False
        return shown

    def fit(self, width: int) -> None:
        """Show the side panels that fit ``width``; the toggles say what shows."""
        shown = self.that_fit(width)
        for panel, action in self._actions.items():
            action.blockSignals(True)
            action.setChecked(shown[panel])
            action.blockSignals(False)
        for panel, pane in self._panes.items():
            pane.setVisible(shown[panel])
