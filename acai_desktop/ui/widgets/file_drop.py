"""Files dropped (or pasted) from the file manager: their local paths, and one event
filter that turns a drop onto any widget it watches into ``files_dropped``.

The chat (its transcript, its empty state and the composer) uses the filter: a file
dropped there is attached to the chat. The Documents tab has its own drop (to the
library), with the same :func:`local_paths`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMimeData, QObject, Signal
from PySide6.QtWidgets import QWidget


def local_paths(mime: QMimeData | None) -> list[str]:
    """The local files (and folders) ``mime`` carries; none for text or remote URLs."""
    if mime is None or not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]


class FileDropFilter(QObject):
    """Watches widgets for drops of local files and says which were dropped; anything
    else dropped (text) goes on to the widget as usual."""

    files_dropped = Signal(list)  # local paths

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.setAcceptDrops(True)
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            paths = local_paths(event.mimeData())
            if not paths:
                return False
            event.acceptProposedAction()
            if kind == QEvent.Type.Drop:
                self.files_dropped.emit(paths)
            return True
        return False
