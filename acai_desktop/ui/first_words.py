"""The time left for a model's first words, in the status bar.

A local model may load for a minute before it says anything, and the user sees only
"Writing…". While the answer has no words yet the status bar counts down to the client's
deadline for them (``first_token_timeout_seconds``, by default 120 s local, 60 s cloud),
so the wait has an end the user can see; it goes as soon as the first words arrive or
the answer ends.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

TICK_MS = 1000


def waiting_text(seconds_left: int) -> str:
    return f"Waiting for the model's first words… {seconds_left} s left"


class FirstWordsCountdown(QObject):
    def __init__(
        self, show: Callable[[str, int], None], clear: Callable[[], None], parent=None
    ) -> None:
        super().__init__(parent)
        self._show, self._clear = show, clear
        self.message_id: int | None = None
        self._deadline = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self, message_id: int, seconds: float) -> None:
        """The answer ``message_id`` was asked for now; its first words are due within
        ``seconds``."""
        self.message_id = message_id
        self._deadline = time.monotonic() + seconds
        self._timer.start()
        self._on_timer_timeout()

    def on_message_updated(self, delta) -> None:
        """A streamed chunk (``events.MessageDelta``): words, or the answer's end."""
        if delta.message_id == self.message_id and (delta.delta or delta.status != "streaming"):
            self.stop()

    def stop(self) -> None:
        if self.message_id is None:
            return
        self.message_id = None
        self._timer.stop()
        self._clear()

    def _on_timer_timeout(self) -> None:
        left = math.ceil(self._deadline - time.monotonic())
        if left <= 0:
            self.stop()  # the client's deadline passed: its error says so in the answer
            return
        self._show(waiting_text(left), TICK_MS + 500)
