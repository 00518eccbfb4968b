"""The one way an action runs: as a tracked task, once the assistant is open, with a
refusal from the core shown in the status bar."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.session import GuiSession

from acai_desktop.ui.status_text import short

__all__ = ["ActionGroup", "in_background", "short"]

P = ParamSpec("P")
STATUS_MS = 6000


class ActionGroup:
    """A concern's actions (conversations, memories, settings) over one session."""

    def __init__(self, session: GuiSession) -> None:
        self.session = session

    @property
    def window(self) -> MainWindow | None:
        return self.session.window

    def connect(self, window: MainWindow) -> None:
        """Wire the window's requests of this concern to their handlers."""
        raise NotImplementedError

    def window_if_open(self) -> MainWindow | None:
        """The window, once the assistant is open (else the status bar says to wait)."""
        if self.session.assistant_or_say_why() is None:
            return None
        return self.window

    def say(self, text: str) -> None:
        if self.window is not None:
            self.window.show_status(text, STATUS_MS)


def in_background(
    name: str,
) -> Callable[
    [Callable[Concatenate[Any, Assistant, P], Coroutine[Any, Any, Any]]],
    Callable[Concatenate[Any, P], None],
]:
    """Make ``async def handler(self, assistant, *args)`` a slot taking ``*args``: while
    the profile is still opening the status bar says to wait; otherwise the handler runs
    as a task the session tracks (cancelled at shut-down), and an ``AcaiError`` it
    raises (a refusal from the core) is shown in the status bar."""

    def decorate(handler):
        @functools.wraps(handler)
        def slot(self: ActionGroup, *args: Any) -> None:
            assistant = self.session.assistant_or_say_why()
            if assistant is not None:
                self.session.run_reporting(handler(self, assistant, *args), name)

        return slot

    return decorate
