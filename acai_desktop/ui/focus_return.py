"""Where the focus goes when a dialog closes: back to the control that opened it.

Left to itself, Qt gives the focus back to whatever held it before: a tool button
pressed with the mouse takes no focus, so after ⚙ or Settings the focus landed on the
last answer in the chat, far from where the user was. The buttons that open dialogs
are watched (:meth:`FocusReturn.watch`); a dialog opened after one was pressed gives
the focus back to it, any other to what held the focus when it opened, and to the
composer when that control is gone (hidden or disabled meanwhile).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialog, QWidget


def _usable(widget: QWidget | None) -> bool:
    return (
        widget is not None
        and shiboken6.isValid(widget)
        and widget.isVisible()
        and widget.isEnabled()
        and widget.focusPolicy() != Qt.FocusPolicy.NoFocus
    )


class FocusReturn:
    def __init__(self, window: QWidget, fallback: QWidget) -> None:
        self._window = window
        self._fallback = fallback
        #: The watched button pressed last, until a dialog opens for it.
        self._opener: QAbstractButton | None = None

    def watch(self, *buttons: QAbstractButton) -> None:
        """Buttons that open dialogs (a press is remembered as the next dialog's opener)."""
        for button in buttons:
            button.pressed.connect(lambda button=button: self._pressed(button))

    def _pressed(self, button: QAbstractButton) -> None:
        self._opener = button

    def opened(self, dialog: QDialog) -> None:
        """``dialog`` is being shown: when it closes, the focus goes back to its opener."""
        opener: QWidget | None = self._opener
        self._opener = None
        if opener is None:
            focused = QApplication.focusWidget()
            if focused is not None and focused.window() is self._window:
                opener = focused
        dialog.finished.connect(
            lambda _result: self._give_back(opener), Qt.ConnectionType.SingleShotConnection
        )

    def _give_back(self, opener: QWidget | None) -> None:
        # After Qt's own restoring, which runs as the window is activated again.
        QTimer.singleShot(0, lambda: self._focus(opener))

    def _focus(self, opener: QWidget | None) -> None:
        if not shiboken6.isValid(self._window):
            return
        target = opener if _usable(opener) else self._fallback
        if shiboken6.isValid(target):
            target.setFocus(Qt.FocusReason.OtherFocusReason)
