"""Opening a link found in a message: only web and mail links leave the app.

A model's answer is untrusted text; a ``file:``, ``javascript:`` or custom-scheme link
in it could run or reveal something, so only http, https and mailto are handed to the
desktop (the browser or the mail client). Everything else is refused, and the caller
says so.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

OPENABLE_SCHEMES = frozenset({"http", "https", "mailto"})
REFUSED_TEXT = "Not opened: only web (http, https) and email links open from the chat."


def is_openable(url: QUrl | str) -> bool:
    url = QUrl(url) if isinstance(url, str) else url
    return (
        url.isValid()
        and url.scheme().lower() in OPENABLE_SCHEMES
        and bool(url.host() or url.scheme().lower() == "mailto")
    )


def open_link(url: QUrl | str) -> bool:
    """Hand ``url`` to the desktop if it is a web or mail link; False if refused."""
    url = QUrl(url) if isinstance(url, str) else url
    if not is_openable(url):
        return False
    return QDesktopServices.openUrl(url)
