"""Spin and combo boxes that ignore the mouse wheel until the user clicks or tabs into
them (issue 40): scrolling a form past one must scroll the form, never change a
setting the user didn't look at.

:func:`ignore_wheel_unless_focused` works on any widget: its wheel events go to the
parent (the form's scroll area) while it has no focus, and the wheel no longer gives
it focus (``Qt.StrongFocus``: a click or Tab does).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget


class _WheelGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Wheel
            and isinstance(watched, QWidget)
            and not watched.hasFocus()
        ):
            # Filtered and not accepted: Qt hands the wheel to the parent widgets.
            event.ignore()
            return True
        return False


def ignore_wheel_unless_focused(widget: QWidget) -> QWidget:
    """Make ``widget`` (a spin box, a combo box) deaf to the wheel until focused;
    returns it, for use where it is built."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    guard = _WheelGuard(widget)  # owned by the widget: lives and dies with it
    widget.installEventFilter(guard)
    return widget
