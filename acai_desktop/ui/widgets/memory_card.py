"""How one memory is drawn in the panel's list: a card with its text and badges (kind,
category, confidence, origin, pinned, local only, temporary, edited, conflict)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QListView,
    QStyle,
    QStyleOptionViewItem,
)

from acai_desktop.ui.local_only_text import LOCAL_ONLY_MARK
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.theme import load_theme
from acai_desktop.ui.untrusted import PlainToolTipDelegate

ORIGIN_LABELS = {"user": "by you", "critical_info": "from chat", "summary": "summary"}
CARD_PAD = 10
CARD_GAP = 8
BADGE_H = 18


#: A project badge's longest name, in characters (the card's width is the panel's).
PROJECT_BADGE_CHARS = 24


def project_badge(name: str) -> str:
    """The badge of a memory kept to the project ``name``."""
    if len(name) > PROJECT_BADGE_CHARS:
        name = name[: PROJECT_BADGE_CHARS - 1] + "…"
    return f"▸ {name}"


def badges_of(index: QModelIndex) -> list[tuple[str, str, str]]:
    """(text, foreground, background) for each badge of a memory; colours are theme names."""
    muted = ("muted", "badge_bg")
    badges: list[tuple[str, str, str]] = []
    status = index.data(MemoryRoles.STATUS)
    if status == "conflict":
        badges.append(("⚠ Conflict", "danger", "danger_bg"))
    if index.data(MemoryRoles.PINNED):
        badges.append(("Pinned", "accent_ink", "accent_badge_bg"))
    if index.data(MemoryRoles.LOCAL_ONLY):  # marked, or kept with a local-only chat or project
        badges.append((LOCAL_ONLY_MARK, "local_only_ink", "local_only_bg"))
    if status == "temporary":
        badges.append(("Temporary", "warning_strong", "temporary_bg"))
    project = index.data(MemoryRoles.PROJECT)
    if project:  # only that project's chats see it
        badges.append((project_badge(project), "accent_ink", "accent_badge_bg"))
    badges.append((index.data(MemoryRoles.KIND).capitalize(), *muted))
    if index.data(MemoryRoles.CATEGORY):
        badges.append((index.data(MemoryRoles.CATEGORY), *muted))
    confidence = index.data(MemoryRoles.CONFIDENCE)
    if confidence is not None:
        badges.append((f"{round(confidence * 100)}%", *muted))
    badges.append((ORIGIN_LABELS.get(index.data(MemoryRoles.ORIGIN), "?"), *muted))
    if index.data(MemoryRoles.USER_EDITED):
        badges.append(("Edited", *muted))
    return badges


#: What a card's height depends on besides the width.
_SHOWN_ROLES = (MemoryRoles.ITEM, MemoryRoles.PROJECT, MemoryRoles.LOCAL_ONLY)


def _same(cached: tuple, shown: tuple) -> bool:
    """The same record (by identity: comparing records field by field costs more than
    measuring) and the same badges."""
    return cached[0] is shown[0] and cached[1:] == shown[1:]


class MemoryCardDelegate(PlainToolTipDelegate):
    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.view = view
        self.theme = load_theme()
        #: id: (what the card shows, width, height)
        self._heights: dict[int, tuple[tuple, int, int]] = {}

    def _fonts(self) -> tuple[QFont, QFont]:
        body = QFont(self.view.font())
        small = QFont(body)
        small.setPointSizeF(max(body.pointSizeF(), 10.0) - 1.5)
        return body, small

    def _badge_rows(self, width: int, index: QModelIndex, small: QFontMetrics):
        rows: list[list[tuple[QRect, str, str, str]]] = [[]]
        x = 0
        for text, fg, bg in badges_of(index):
            w = small.horizontalAdvance(text) + 12
            if x and x + w > width:
                rows.append([])
                x = 0
            rows[-1].append((QRect(x, 0, w, BADGE_H), text, fg, bg))
            x += w + 4
        return rows

    def _measure(self, width: int, index: QModelIndex) -> tuple[int, int, list]:
        body, small = self._fonts()
        inner = max(60, width - 2 * CARD_PAD - 2)
        text_h = (
            QFontMetrics(body)
            .boundingRect(
                QRect(0, 0, inner, 10_000),
                Qt.TextFlag.TextWordWrap,
                index.data(MemoryRoles.CONTENT) or "",
            )
            .height()
        )
        rows = self._badge_rows(inner, index, QFontMetrics(small))
        height = CARD_PAD + text_h + 6 + len(rows) * (BADGE_H + 4) + CARD_PAD - 4
        return height + CARD_GAP, text_h, rows

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        width = self.view.viewport().width() - 2
        # Measuring a card takes a font layout; with thousands of cards every insert
        # would measure them all again. A card changes with its record (the model
        # replaces it on every change) and with its project's name and local-only mark,
        # so its height is kept per those and width.
        shown = tuple(index.data(role) for role in _SHOWN_ROLES)
        key = index.data(MemoryRoles.ID)
        cached = self._heights.get(key)
        if cached is not None and _same(cached[0], shown) and cached[1] == width:
            return QSize(width, cached[2])
        height, _, _ = self._measure(width, index)
        self._heights[key] = (shown, width, height)
        return QSize(width, height)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        body, small = self._fonts()
        rect = option.rect.adjusted(1, 0, -1, -CARD_GAP)
        _, text_h, rows = self._measure(option.rect.width() - 2, index)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        conflict = index.data(MemoryRoles.STATUS) == "conflict"
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        path = QPainterPath()
        path.addRoundedRect(rect.adjusted(0, 0, -1, -1), 10, 10)
        theme = self.theme
        painter.fillPath(path, theme.color("accent_soft_bg" if selected else "surface"))
        border = "conflict_border" if conflict else ("accent_border" if selected else "line")
        painter.setPen(QPen(theme.color(border), 1.5 if (selected or conflict) else 1))
        painter.drawPath(path)
        if index.data(MemoryRoles.PINNED):
            painter.fillRect(
                QRect(rect.left(), rect.top() + 10, 3, rect.height() - 20), theme.color("accent")
            )
        text_rect = QRect(
            rect.left() + CARD_PAD, rect.top() + CARD_PAD, rect.width() - 2 * CARD_PAD, text_h
        )
        painter.setFont(body)
        painter.setPen(theme.color("ink"))
        painter.drawText(text_rect, int(Qt.TextFlag.TextWordWrap), index.data(MemoryRoles.CONTENT))
        painter.setFont(small)
        y = text_rect.bottom() + 7
        for row in rows:
            for badge, text, fg, bg in row:
                badge_rect = badge.translated(text_rect.left(), y)
                badge_path = QPainterPath()
                badge_path.addRoundedRect(badge_rect, 9, 9)
                painter.fillPath(badge_path, theme.color(bg))
                painter.setPen(theme.color(fg))
                painter.drawText(badge_rect, Qt.AlignmentFlag.AlignCenter, text)
            y += BADGE_H + 4
        painter.restore()
