"""The memory health view's charts, drawn with pyqtgraph.

This module imports pyqtgraph, so only the memory health dialog imports it, when it
opens (the window's start-up never pays for the library). Each chart is a
:class:`BarChart`: bars over categories or over days, stacked when there are several
series, in the theme's colours; the data it shows is kept on its bar items
(``chart.bars[name].opts``) and said in words as its accessible description.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSizePolicy

from acai_desktop.ui.theme import Theme

DAY_SECONDS = 86_400.0
BAR_WIDTH = 0.7
MAX_DAY_LABELS = 6
#: Below this many units on the y axis, ticks are whole numbers one apart.
WHOLE_TICKS_UP_TO = 12


@dataclass(frozen=True)
class Series:
    """One set of bars: ``heights[i]`` at ``x[i]``, painted in the theme colour ``colour``."""

    name: str
    heights: Sequence[float]
    colour: str


def day_x(day: date) -> float:
    """Where ``day``'s bar stands on a date axis: local noon (the axis shows local time)."""
    return datetime.combine(day, time(12)).timestamp()


class BarChart(pg.PlotWidget):
    def __init__(self, title: str, *, dates: bool = False) -> None:
        super().__init__()
        self.title = title
        self.dates = dates
        self.setAccessibleName(f"{title} (chart)")
        self.setMinimumSize(260, 190)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # reachable, for its description
        # A picture of figures, not an instrument: no panning, zooming or context menu.
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.getPlotItem().showGrid(x=False, y=True, alpha=0.25)
        self.getAxis("left").setZValue(-1)  # the grid lines behind the bars, not across
        self.bars: dict[str, pg.BarGraphItem] = {}
        # Said in the middle of an empty chart (bars of nothing would look broken).
        self.empty_text = pg.TextItem("none yet", anchor=(0.5, 0.5))
        self.empty_text.setParentItem(self.getPlotItem().getViewBox())
        self.getPlotItem().getViewBox().sigResized.connect(self._place_empty_text)
        self.legend: pg.LegendItem | None = None
        self._series: list[Series] = []
        self._x: list[float] = []
        self._labels: dict[float, str] = {}
        self._theme: Theme | None = None

    # -- data --------------------------------------------------------------------------

    def show_categories(self, labels: Sequence[str], series: Sequence[Series]) -> None:
        """Bars over named categories (stacked, bottom to top, in ``series`` order)."""
        self._x = [float(i) for i in range(len(labels))]
        self._labels = dict(zip(self._x, labels, strict=True))
        self.getAxis("bottom").setTicks([list(zip(self._x, labels, strict=True))])
        self._draw(series, BAR_WIDTH)
        self.setXRange(-0.6, len(labels) - 0.4, padding=0)

    def show_days(self, days: Sequence[date], series: Sequence[Series]) -> None:
        """Bars over days (one bar per day that has any)."""
        self._x = [day_x(day) for day in days]
        self._labels = {}
        self._draw(series, BAR_WIDTH * DAY_SECONDS)
        if not days:
            self.getAxis("bottom").setTicks([[]])
            return
        # At least a week wide, so one day's bar isn't a wall.
        first, last = min(days), max(days)
        span = max((last - first).days + 2, 7)
        start = first - timedelta(days=(span - (last - first).days) // 2)
        self.setXRange(day_x(start) - DAY_SECONDS / 2, day_x(start) + span * DAY_SECONDS, padding=0)
        # A date under every few days, "3 Nov", at most MAX_DAY_LABELS of them.
        every = max(1, -(-span // MAX_DAY_LABELS))
        ticks = [start + timedelta(days=i) for i in range(0, span + 1, every)]
        self.getAxis("bottom").setTicks([[(day_x(d), f"{d.day} {d:%b}") for d in ticks]])

    def _draw(self, series: Sequence[Series], width: float) -> None:
        for item in self.bars.values():
            self.removeItem(item)
        self.bars.clear()
        self._series = list(series)
        if self.legend is None and len(series) > 1:
            # A row of its own under the bottom axis (the plot item's rows 0-3 are the
            # title, the axes and the plot): laid over the plot, it covered the
            # tallest bars and the top ticks.
            self.legend = pg.LegendItem(colCount=3, labelTextSize="8pt")
            self.getPlotItem().layout.addItem(self.legend, 4, 1)
        if self.legend is not None:
            self.legend.clear()
        base = [0.0] * len(self._x)
        for one in series:
            item = pg.BarGraphItem(
                x=self._x, height=list(one.heights), width=width, y0=list(base), name=one.name
            )
            self.bars[one.name] = item
            self.addItem(item)
            if self.legend is not None:
                self.legend.addItem(item, one.name)
            base = [b + h for b, h in zip(base, one.heights, strict=True)]
        top = max(base, default=0)
        # A little room above the bars; whole-number ticks for small counts.
        self.setYRange(0, max(top * 1.1, 1), padding=0)
        self.getAxis("left").setTickSpacing(*((1, 1) if top <= WHOLE_TICKS_UP_TO else ()))
        self.empty_text.setVisible(top == 0)
        self.setAccessibleDescription(self.describe())
        self._paint()

    def _place_empty_text(self) -> None:
        box = self.getPlotItem().getViewBox().boundingRect()
        self.empty_text.setPos(box.center())

    def describe(self) -> str:
        """The chart in words: each series' non-zero values (screen readers, tooltips)."""
        parts = []
        for one in self._series:
            values = [
                f"{self._labels.get(x) or self._day_text(x)}: {height:g}"
                for x, height in zip(self._x, one.heights, strict=True)
                if height
            ]
            parts.append(f"{one.name}: {', '.join(values) or 'none'}")
        return f"{self.title}. " + "; ".join(parts)

    def _day_text(self, x: float) -> str:
        return datetime.fromtimestamp(x).date().isoformat() if self.dates else f"{x:g}"

    # -- colours -----------------------------------------------------------------------

    def set_theme(self, theme: Theme) -> None:
        self._theme = theme
        self._paint()

    def _paint(self) -> None:
        theme = self._theme
        if theme is None:
            return
        self.setBackground(theme.color("surface"))
        self.setTitle(self.title, color=theme.colors["ink"], size="10pt")
        for name in ("left", "bottom"):
            axis = self.getAxis(name)
            axis.setPen(pg.mkPen(theme.color("line")))
            axis.setTextPen(pg.mkPen(theme.color("muted")))
        for one in self._series:
            self.bars[one.name].setOpts(
                brush=pg.mkBrush(theme.color(one.colour)), pen=pg.mkPen(theme.color("surface"))
            )
        self.empty_text.setColor(theme.color("faint"))
        if self.legend is not None:
            self.legend.setLabelTextColor(theme.color("soft_ink"))
            self.legend.setBrush(pg.mkBrush(theme.color("surface")))
            self.legend.setPen(pg.mkPen(theme.color("line")))
