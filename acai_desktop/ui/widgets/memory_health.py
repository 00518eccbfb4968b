"""Memory health: a window that charts the profile's memory, and runs the memory
evaluations on the user's own model.

Two tabs. *Health* shows :class:`~acai_desktop.core.memory.health.MemoryHealth` as
figures and pyqtgraph charts (see :mod:`.memory_health_charts`), with the definitions of
"never used" and "stale" in words; it asks for fresh figures (``refresh_requested``)
when memories change, at most every :data:`REFRESH_DELAY_MS`, or on Refresh. *Evaluate*
lists the evaluations of :data:`acai_desktop.evaluation.runs.EVALUATIONS`; Run asks for
one (``evaluation_requested``) and Stop (or closing the window) stops it
(``stop_requested``); the :class:`MemoryHealthController` runs it as a tracked
task and reports back through ``evaluation_*`` methods.

Importing this module imports pyqtgraph: the window imports it when the view opens.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.memory.health import NEVER_USED_DEFINITION, STALE_DEFINITION, MemoryHealth
from acai_desktop.ui.theme import Theme
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.memory_health_charts import BarChart, Series
from acai_desktop.ui.widgets.memory_health_eval import EvaluationPanel

TITLE = "Memory health"
#: Memories change in bursts (an answer marks several used): one refresh per burst.
REFRESH_DELAY_MS = 800

KINDS = (("fact", "facts"), ("summary", "summaries"), ("note", "notes"))
#: Bottom to top, each in a theme colour that reads in light and dark alike.
STATUSES = (
    ("active", "accent"),
    ("temporary", "recall_highlight"),
    ("conflict", "danger"),
    ("superseded", "faint"),
    ("forgotten", "soft_ink"),
)


#: The window's size where the screen has room; on a 1366 × 768 laptop it takes what
#: the screen has, its frame included (760 px and a title bar did not fit).
PREFERRED_SIZE = QSize(1080, 700)
#: Room for a window frame and a panel, which the screen's available area may not count.
FRAME_ALLOWANCE = QSize(20, 50)


def fitting_size(parent: QWidget | None) -> QSize:
    screen = parent.screen() if parent is not None else QGuiApplication.primaryScreen()
    if screen is None:
        return PREFERRED_SIZE
    room = screen.availableGeometry().size() - FRAME_ALLOWANCE
    return PREFERRED_SIZE.boundedTo(room)


def human_size(size: int) -> str:
    """``size`` bytes as people read it: "812 bytes", "224.0 KB", "1.3 MB"."""
    if size < 1024:
        return f"{size} bytes"
    value, unit = size / 1024, "KB"
    for bigger in ("MB", "GB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}"


class Figure(QWidget):
    """A number with its caption under it (the health tab's top row)."""

    def __init__(self, caption: str, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.value = QLabel("–")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.value.setFont(font)
        self.caption = plain_label(caption, "SectionLabel")
        self.detail = plain_label("", "DialogNote")
        layout.addWidget(self.value)
        layout.addWidget(self.caption)
        layout.addWidget(self.detail)

    def set(self, value: str, detail: str = "", summary: str = "") -> None:
        """``summary`` shows under the caption; ``detail`` (longer) is the tooltip."""
        self.value.setText(value)
        self.detail.setText(summary)
        self.setToolTip(detail)
        self.setAccessibleName(f"{self.caption.text()}: {value}. {detail}".strip())


class MemoryHealthDialog(QDialog):
    refresh_requested = Signal()
    evaluation_requested = Signal(str, str, int)  # name, dataset path or "", limit or 0
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.setAccessibleName(TITLE)
        self.setModal(False)
        self.resize(fitting_size(parent))
        self.health: MemoryHealth | None = None
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_DELAY_MS)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_health_tab(), "Health")
        self.evaluation = EvaluationPanel()
        self.tabs.addTab(self.evaluation, "Evaluate on your model")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        self.refresh_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Refresh), self)
        self._connect_signals()

    def _build_health_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        figures = QHBoxLayout()
        self.current_figure = Figure("Current memories", "CurrentFigure")
        self.never_used_figure = Figure("Never used", "NeverUsedFigure")
        self.stale_figure = Figure("Stale", "StaleFigure")
        self.database_figure = Figure("Database (file + WAL)", "DatabaseFigure")
        for figure in (self.current_figure, self.never_used_figure, self.stale_figure,
                       self.database_figure):  # fmt: skip
            figures.addWidget(figure, 1)
        layout.addLayout(figures)

        self.kind_status_chart = BarChart("Memories by kind and status")
        self.facts_chart = BarChart("Facts learned per day", dates=True)
        self.uses_chart = BarChart("Memories used in answers per day", dates=True)
        self.use_count_chart = BarChart("Current memories by times used")
        self.neglect_chart = BarChart("Never used and stale")
        self.size_chart = BarChart("Database size (KB)")
        self.charts = [self.kind_status_chart, self.facts_chart, self.uses_chart,
                       self.use_count_chart, self.neglect_chart, self.size_chart]  # fmt: skip
        grid = QVBoxLayout()
        for row in (self.charts[:3], self.charts[3:]):
            line = QHBoxLayout()
            for chart in row:
                line.addWidget(chart, 1)
            grid.addLayout(line, 1)
        layout.addLayout(grid, 1)

        self.definitions = plain_label(f"{NEVER_USED_DEFINITION}\n{STALE_DEFINITION}", "DialogNote")
        self.definitions.setWordWrap(True)
        layout.addWidget(self.definitions)
        bottom = QHBoxLayout()
        self.status_label = plain_label("Reading the figures…", "DialogNote")
        self.status_label.setWordWrap(True)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Read the figures again (F5)")
        self.close_button = QPushButton("Close")
        bottom.addWidget(self.status_label, 1)
        bottom.addWidget(self.refresh_button)
        bottom.addWidget(self.close_button)
        layout.addLayout(bottom)
        return tab

    def _connect_signals(self) -> None:
        self._refresh_timer.timeout.connect(self._on_refresh_timer_timeout)
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.refresh_shortcut.activated.connect(self.refresh_requested)
        self.close_button.clicked.connect(self.close)
        self.evaluation.run_requested.connect(self.evaluation_requested)
        self.evaluation.stop_requested.connect(self.stop_requested)
        self.finished.connect(self._on_finished)

    # -- the figures -------------------------------------------------------------------

    @Slot()
    @Slot(object)
    def schedule_refresh(self, *_changed: object) -> None:
        """Memories changed: read the figures again soon (once per burst of changes)."""
        if self.isVisible():
            self._refresh_timer.start()

    @Slot()
    def _on_refresh_timer_timeout(self) -> None:
        self.refresh_requested.emit()

    def show_health(self, health: MemoryHealth) -> None:
        self.health = health
        by_kind = health.by_kind_and_status
        current_by_kind = ", ".join(
            f"{sum(n for s, n in by_kind.get(k, {}).items() if s.is_current)} {label}"
            for k, label in KINDS
        )
        self.current_figure.set(
            str(health.current), f"{health.total} memories in all", current_by_kind
        )
        share = f"{health.never_used / health.current:.0%} of current" if health.current else ""
        self.never_used_figure.set(str(health.never_used), NEVER_USED_DEFINITION, share)
        self.stale_figure.set(
            str(health.stale),
            STALE_DEFINITION,
            f"{health.superseded_kept} superseded, {health.unused_long} unused "
            f"{health.stale_after_days} days",
        )
        size = health.database
        self.database_figure.set(
            human_size(size.total_bytes),
            "The database file and its write-ahead log (folded back into the file when "
            "ACAI closes)",
            f"file {human_size(size.file_bytes)} + WAL {human_size(size.wal_bytes)}",
        )
        self.kind_status_chart.show_categories(
            [label for _, label in KINDS],
            [
                Series(status, [health.count(kind, status) for kind, _ in KINDS], colour)
                for status, colour in STATUSES
            ],
        )
        self.facts_chart.show_days(
            [d.day for d in health.facts_per_day],
            [Series("facts", [d.count for d in health.facts_per_day], "accent")],
        )
        self.uses_chart.show_days(
            [d.day for d in health.uses_per_day],
            [Series("uses", [d.count for d in health.uses_per_day], "syntax_function")],
        )
        self.use_count_chart.show_categories(
            [label for label, _ in health.use_counts],
            [Series("memories", [n for _, n in health.use_counts], "syntax_builtin")],
        )
        self.neglect_chart.show_categories(
            ["never used", f"unused {health.stale_after_days} d", "superseded"],
            [
                Series(
                    "memories",
                    [health.never_used, health.unused_long, health.superseded_kept],
                    "stopped",
                )
            ],
        )
        self.size_chart.show_categories(
            ["file", "WAL"],
            [Series("KB", [size.file_bytes / 1024, size.wal_bytes / 1024], "muted")],
        )
        self.status_label.setText(
            f"Read at {health.read_at.astimezone():%H:%M:%S}; refreshed when memories change."
        )

    def show_health_error(self, text: str) -> None:
        self.status_label.setText(text)

    # -- evaluations (the panel does the showing) --------------------------------------

    def set_running(self, running: bool) -> None:
        self.evaluation.set_running(running)

    def evaluation_begun(self, total: int, unit: str, budget: str) -> None:
        self.evaluation.begun(total, unit, budget)

    def evaluation_stepped(self) -> None:
        self.evaluation.stepped()

    def evaluation_finished(self, text: str, *, stopped: bool = False) -> None:
        self.evaluation.finished(text, stopped=stopped)

    def evaluation_stopping(self, *, at_once: bool) -> None:
        self.evaluation.stopping(at_once=at_once)

    def evaluation_stopped(self) -> None:
        self.evaluation.stopped()

    def evaluation_failed(self, text: str) -> None:
        self.evaluation.failed(text)

    # -- look --------------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        for chart in self.charts:
            chart.set_theme(theme)

    @Slot(int)
    def _on_finished(self, _result: int) -> None:
        # Closing the window stops a run: nobody would see its figures.
        self._refresh_timer.stop()
        if self.evaluation.running:
            self.stop_requested.emit()
