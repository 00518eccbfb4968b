"""Run Python's cyclic garbage collector on the Qt thread only.

Left alone, the collector runs in whichever thread happens to allocate when a
threshold is crossed: often the database thread or an HTTP worker. If a reference
cycle it frees holds a Qt object (qasync's timers are QObjects), Qt then destroys that
object from the wrong thread ("Timers cannot be stopped from another thread") and can
crash. So automatic collection is switched off while the window runs, and a Qt timer
collects on the Qt thread, as often as the thresholds would have.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 500


class MainThreadGarbageCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self._thresholds = gc.get_threshold()
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self, *, collect: bool = True) -> None:
        """Hand collection back to Python; ``collect=False`` when the process ends right
        after (``gui`` ends with ``os._exit``): a last full collection there frees nothing
        anyone sees and cost a tenth of the whole start measured from outside (issue 22)."""
        self._timer.stop()
        if collect:
            gc.collect()  # what is left of the session goes now, on this thread
        if self._was_enabled:
            gc.enable()

    def _on_timer_timeout(self) -> None:
        counts = gc.get_count()
        # The highest generation whose count passed its threshold, like gc itself does.
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return
