"""Waiting between attempts to reach a server that did not answer: each wait doubles,
up to a ceiling, so a server down for the night costs one attempt every half minute,
never a busy loop (issue 27 item 4)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Backoff:
    first: float = 1.0
    factor: float = 2.0
    ceiling: float = 30.0
    _next: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        if self.first <= 0 or self.factor < 1 or self.ceiling < self.first:
            raise ValueError("Backoff needs 0 < first <= ceiling and factor >= 1")
        self._next = self.first

    def next_delay(self) -> float:
        """Seconds to wait before the next attempt (longer each time, up to the ceiling)."""
        delay = self._next
        self._next = min(self.ceiling, self._next * self.factor)
        return delay

    def reset(self) -> None:
        """The server answered: the next outage starts from the first wait again."""
        self._next = self.first
