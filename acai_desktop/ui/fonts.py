"""The fixed-width face for code: one whose glyphs really all have the same advance.

``QFontDatabase.systemFont(FixedFont)`` names what the desktop calls monospace, and
fontconfig may map that to a face Qt doesn't report as fixed-pitch (Noto Sans Mono on
Debian) or, on a machine with odd fonts, to a proportional one. Qt's own ``fixedPitch``
flag is no guide either: it reads a table entry some monospace fonts leave unset. What
a reader sees is the glyphs' advances, so that is what is checked: "iii" as wide as
"WWW". The first face that passes wins: the desktop's choice, then well-known monospace
families, then any family the font database lists as fixed-pitch.
"""

from __future__ import annotations

import functools
import logging

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QFontMetricsF

log = logging.getLogger(__name__)

#: Tried after the desktop's own monospace face, in this order.
KNOWN_MONOSPACE_FAMILIES = (
    "DejaVu Sans Mono",
    "Noto Sans Mono",
    "Liberation Mono",
    "Ubuntu Mono",
    "Cascadia Mono",
    "Consolas",
    "Menlo",
    "SF Mono",
    "Courier New",
)


def has_equal_advances(font: QFont) -> bool:
    """Whether narrow and wide glyphs take the same room: the property code needs."""
    metrics = QFontMetricsF(font)
    narrow, wide = metrics.horizontalAdvance("iii"), metrics.horizontalAdvance("WWW")
    return narrow > 0 and abs(narrow - wide) < 0.01


@functools.cache
def fixed_width_family(preferred: str) -> str:
    """``preferred`` if its glyphs have equal advances, else the first family that has."""
    if has_equal_advances(QFont(preferred)):
        return QFontInfo(QFont(preferred)).family()
    listed = QFontDatabase.families()
    candidates = [f for f in KNOWN_MONOSPACE_FAMILIES if f in listed]
    candidates += [f for f in listed if QFontDatabase.isFixedPitch(f)]
    for family in candidates:
        font = QFont(family)
        if QFontInfo(font).family() == family and has_equal_advances(font):
            return family
    log.warning("no fixed-width font found; code is shown in %s", preferred)
    return preferred


def fixed_width_font(point_size: float | None = None) -> QFont:
    """A fixed-width font (at ``point_size`` if given) for code and tables of figures."""
    desktop_choice = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font = QFont(fixed_width_family(QFontInfo(desktop_choice).family()))
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    if point_size is not None:
        font.setPointSizeF(point_size)
    return font
