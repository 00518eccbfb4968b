"""The window's one Tab order: the sidebar, the chat (its header, banners and
transcript), the composer, the side panel, then the status bar's buttons; Shift+Tab
goes back the same way.

Qt's own chain is the order widgets were created in, and widgets made later (a
suggestion's buttons, a panel's bar shown on selection) join at its very end: from the
composer, Tab went through the panel, the header and the chips before it reached the
conversations. So the window computes the next stop itself, from each area's controls
in the order they are seen (:class:`TabArea`). A control the area does not name still
gets a stop, after the named ones of its area, so nothing focusable is ever skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QWidget

if TYPE_CHECKING:
    from acai_desktop.ui.window_parts import WindowParts


@dataclass(frozen=True)
class TabArea:
    #: The area's widget: every focusable control inside it belongs to the area.
    root: QWidget
    #: Its controls in the order they are seen (called each time: some change).
    named: Callable[[], Sequence[QWidget]]


def takes_tab(widget: QWidget) -> bool:
    """Whether Tab may stop at ``widget`` now (shown, enabled, accepts Tab focus)."""
    return (
        shiboken6.isValid(widget)
        and widget.isVisible()
        and widget.isEnabled()
        and bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
        and widget.focusProxy() is None
    )


def _controls_within(root: QWidget) -> list[QWidget]:
    """The widgets inside ``root``, in the order they were made (``findChildren`` is
    depth-first in child order). Walking Qt's focus chain from Python instead
    (``nextInFocusChain``) was seen to leave the main window's status bar deleted
    mid-session (PySide6 6.x), so it is not walked."""
    return root.findChildren(QWidget)


def _home(widget: QWidget, roots: Sequence[QWidget]) -> QWidget | None:
    """The innermost area root holding ``widget`` (the composer sits inside the chat's
    pane, yet is an area of its own)."""
    parent = widget.parentWidget()
    while parent is not None:
        if any(parent is root for root in roots):
            return parent
        parent = parent.parentWidget()
    return None


def tab_chain(areas: Sequence[TabArea]) -> list[QWidget]:
    """Every control Tab stops at now, in the window's order."""
    chain: list[QWidget] = []
    seen: set[int] = set()
    roots = [area.root for area in areas]
    for area in areas:
        named = [w for w in area.named() if shiboken6.isValid(w)]
        others = [
            w
            for w in _controls_within(area.root)
            if w not in named and _home(w, roots) is area.root
        ]
        for widget in (*named, *others):
            if id(widget) not in seen and takes_tab(widget):
                seen.add(id(widget))
                chain.append(widget)
    return chain


def next_stop(chain: Sequence[QWidget], current: QWidget | None, forward: bool) -> QWidget | None:
    """The control after (or before) ``current`` in ``chain``, wrapping around; from a
    control outside the chain (inside one of its controls, say), the first one found
    among its ancestors decides."""
    if not chain:
        return None
    position = None
    widget = current
    while widget is not None and position is None:
        for index, candidate in enumerate(chain):
            if candidate is widget:
                position = index
                break
        widget = widget.parentWidget()
    if position is None:
        return chain[0] if forward else chain[-1]
    step = 1 if forward else -1
    return chain[(position + step) % len(chain)]


def window_tab_areas(window: WindowParts) -> list[TabArea]:
    """The one Tab order (docs/user-guide.md, Keyboard): the sidebar, the chat, the
    composer, the side panel, the status bar."""
    memory, documents = window.memory_panel, window.documents_panel
    composer = window.composer
    return [
        TabArea(
            window.sidebar,
            lambda: [
                window.new_chat_button,
                window.temporary_chat_button,
                window.search_button,
                window.new_project_button,
                window.conversation_list,
                window.memory_health_button,
                window.settings_button,
            ],
        ),
        TabArea(
            window.chat_pane,
            lambda: [
                window.conversations_toggle,
                window.chat_settings_button,
                window.memory_toggle,
                window.banner_settings_button,
                window.reconnect_button,
                window.store_settings_button,
                window.store_retry_button,
                window.chat_view,
                *window.suggestion_buttons,
            ],
        ),
        TabArea(
            composer,
            lambda: [
                composer.input,
                composer.cancel_edit_button,
                composer.attach_button,
                composer.stop_button,
                composer.send_button,
            ],
        ),
        TabArea(
            window.side_tabs,
            lambda: [
                window.side_tabs.tabBar(),
                memory.add_note_button,
                memory.instructions_box.edit_button,
                memory.search,
                memory.filter_box,
                memory.project_box,
                memory.list,
                *memory.suggestions.findChildren(QAbstractButton),
                memory.conflict_bar.use_new_button,
                memory.conflict_bar.keep_old_button,
                *memory.actions_bar.findChildren(QAbstractButton),
                *documents.focus_chain(),
            ],
        ),
        TabArea(window.statusBar(), lambda: []),
    ]
