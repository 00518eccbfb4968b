"""A progress line on the terminal for long evaluations: "messages 12/46" redrawn in
place on a terminal, a line every tenth of the way elsewhere (a log stays short)."""

from __future__ import annotations

import sys
from typing import TextIO


class TerminalProgress:
    def __init__(self, total: int, unit: str, stream: TextIO | None = None) -> None:
        self.total, self.unit, self.count = total, unit, 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self._next_line = 0

    def step(self) -> None:
        self.count += 1
        text = f"{self.unit} {self.count}/{self.total}"
        if self.live:
            self.stream.write("\r" + text)
            self.stream.flush()
        elif self.count >= self._next_line:
            self.stream.write(text + "\n")
            self._next_line = self.count + max(1, self.total // 10)

    def done(self) -> None:
        if self.live and self.count:
            self.stream.write("\n")
            self.stream.flush()
