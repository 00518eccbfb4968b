"""Is the Qt binding losing references to ``None``? Measured on the window's own hot paths.

PySide6 6.12.0 on Python 3.11 drops one reference to ``None`` on every Qt call that
returns void and every time a Python ``data()`` returns ``None``. Before Python 3.12
``None`` is an ordinary object with a count, so after enough painting or typing the count
reaches zero and the interpreter aborts (``Fatal Python error: none_dealloc``). From
3.12 ``None`` is immortal: its count never changes, and the same binding is harmless.

:func:`watch_none_refcount` runs an action many times and compares
``sys.getrefcount(None)`` before and after. So that a faulty binding makes the check
*fail* instead of killing the process, it holds a large ballast of extra references to
``None`` while it measures, checks after every few runs and stops at the first loss, and
gives back what was lost (with ``Py_IncRef``) before it lets go of the ballast.

:func:`window_paths` builds the actions: painting the chat while scrolling, typing in
the memory search, reading every role of every Qt model. ``--self-test`` and the tests
use the same ones.
"""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

#: Extra references held while measuring: far more than a faulty binding can lose
#: between two checks, so ``None`` is never freed mid-measurement.
BALLAST = 2_000_000
#: Runs before measuring, so caches and lazy imports filled on first use don't count.
WARM_UP_RUNS = 3
#: Rows of a model read per run (a panel with 100k memories is read a page at a time).
ROWS_PER_READ = 200
#: Roles past every model's own, which each model answers with None.
UNKNOWN_ROLES = (int(Qt.ItemDataRole.UserRole) + 500, int(Qt.ItemDataRole.UserRole) + 501)
SEARCH_WORDS = ("green tea", "lyon", "python", "zzq")


def none_is_immortal() -> bool:
    """True when taking references to ``None`` does not change its count (Python 3.12+)."""
    before = sys.getrefcount(None)
    extra = [None] * 1000
    after = sys.getrefcount(None)
    del extra
    return after == before


@dataclass(frozen=True)
class NoneRefcountResult:
    path: str
    planned_runs: int
    runs: int  # fewer than planned when it stopped at the first loss
    lost: int  # references to None lost; 0 when healthy
    immortal: bool

    @property
    def ok(self) -> bool:
        return self.lost <= 0 and self.runs == self.planned_runs

    def describe(self) -> str:
        if self.lost > 0:
            return (
                f"sys.getrefcount(None) fell by {self.lost} over {self.runs} runs "
                f"(about {self.lost / max(self.runs, 1):.0f} per run). This Qt binding "
                "(PySide6 " + _pyside_version() + ") drops references to None; on Python "
                "before 3.12 the app will abort with 'Fatal Python error: none_dealloc'."
            )
        immortal = " (None is immortal on this Python: a lost reference could not crash)"
        return f"sys.getrefcount(None) did not fall over {self.runs} runs" + (
            immortal if self.immortal else ""
        )


def _pyside_version() -> str:
    import PySide6

    return PySide6.__version__


def _give_back(count: int) -> None:
    """Restore references a faulty binding took, so the process can still exit cleanly."""
    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]
    incref.restype = None
    for _ in range(count):
        incref(None)


class SpareNoneReferences:
    """While open, hold :data:`BALLAST` extra references to ``None``; on close, give back
    whatever the code run meanwhile took, then let go.

    A faulty binding can then run for a long while without freeing ``None``, and the
    process goes on (to report, or to the next test) afterwards. Giving back too many
    (when objects holding ``None`` were freed meanwhile) is harmless: ``None`` is never
    freed anyway; too few is not."""

    def __enter__(self) -> SpareNoneReferences:
        self.immortal = none_is_immortal()
        self._ballast = [None] * BALLAST
        self.start = sys.getrefcount(None)
        return self

    def __exit__(self, *exc_info: object) -> None:
        taken = self.start - sys.getrefcount(None)
        if taken > 0 and not self.immortal:
            _give_back(taken)
        del self._ballast


def watch_none_refcount(
    path: str, action: Callable[[], object], runs: int, *, check_every: int = 10
) -> NoneRefcountResult:
    """Run ``action`` ``runs`` times; report whether ``sys.getrefcount(None)`` fell."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # a collection mid-way would free objects holding None: a false loss
    lost, done = 0, 0
    try:
        with SpareNoneReferences() as spare:
            # Caches filled on first use may be replaced once; that is not the fault.
            for _ in range(WARM_UP_RUNS):
                action()
            before = sys.getrefcount(None)
            while done < runs:
                for _ in range(min(check_every, runs - done)):
                    action()
                    done += 1
                lost = before - sys.getrefcount(None)
                if lost > 0:
                    break  # one loss is the fault; more runs would only risk the process
    finally:
        if was_enabled:
            gc.enable()
    return NoneRefcountResult(path, runs, done, max(lost, 0), spare.immortal)


# -- the window's hot paths ------------------------------------------------------------


def paint_while_scrolling(view: QAbstractItemView, steps: int = 12) -> Callable[[], None]:
    """One run: scroll the list one step further (wrapping round) and paint it."""
    position = {"step": 0}

    def run() -> None:
        bar = view.verticalScrollBar()
        step = position["step"] = (position["step"] + 1) % (steps + 1)
        bar.setValue(bar.minimum() + (bar.maximum() - bar.minimum()) * step // steps)
        view.viewport().grab()  # a full paint of what is visible, delegate included

    return run


def type_in(line_edit: QLineEdit, words: tuple[str, ...] = SEARCH_WORDS) -> Callable[[], None]:
    """One run: one keystroke. Types each word a letter at a time, then erases it."""
    keys: list[tuple[int, str]] = []
    for word in words:
        keys += [(Qt.Key.Key_Space if c == " " else Qt.Key(ord(c.upper())), c) for c in word]
        keys += [(Qt.Key.Key_Backspace, "")] * len(word)
    position = {"key": 0}

    def run() -> None:
        key, text = keys[position["key"] % len(keys)]
        position["key"] += 1
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            event = QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text)
            QCoreApplication.sendEvent(line_edit, event)

    return run


def read_every_role(model) -> Callable[[], None]:
    """One run: every role the model names (and two it doesn't) of its first rows."""
    roles = [
        int(Qt.ItemDataRole.DisplayRole),
        int(Qt.ItemDataRole.ToolTipRole),
        int(Qt.ItemDataRole.DecorationRole),
        *(int(role) for role in model.roleNames()),
        *UNKNOWN_ROLES,
    ]

    def run() -> None:
        for row in range(min(model.rowCount(QModelIndex()), ROWS_PER_READ)):
            index = model.index(row, 0)
            for role in roles:
                index.data(role)

    return run


def window_paths(window) -> dict[str, Callable[[], None]]:
    """The paths that crashed in real use, as actions on a :class:`MainWindow`."""
    return {
        "chat painting": paint_while_scrolling(window.chat_view),
        "memory search typing": type_in(window.memory_search),
        "memory panel painting": paint_while_scrolling(window.memory_panel.list),
        "Qt models data()": _read_models(window),
    }


def _read_models(window) -> Callable[[], None]:
    readers = [
        read_every_role(model)
        for model in (window.messages_model, window.memories_model, window.conversations_model)
    ]

    def run() -> None:
        for reader in readers:
            reader()

    return run
