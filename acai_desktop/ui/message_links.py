"""The links in a message that the chat handles itself (web links open in the browser):
written by :class:`~acai_desktop.ui.message_document.MessageDocument`, followed by the
chat view. A citation chip's scheme is :mod:`acai_desktop.ui.citation_chips`'s."""

from __future__ import annotations

from PySide6.QtCore import QUrl

#: "acai-copy:N" copies code block N.
COPY_SCHEME = "acai-copy"
#: "acai-code:OFFSET" copies the long code whose fence is at OFFSET in the answer;
#: "acai-table:OFFSET" shows the large table whose header is there as a table;
#: "acai-answer:whole" shows the whole of an answer too long for the chat.
LONG_CODE_SCHEME = "acai-code"
TABLE_SCHEME = "acai-table"
WHOLE_ANSWER_SCHEME = "acai-answer"
#: "acai-more:unfold" / "acai-more:fold" show a user's long message whole or folded.
MORE_SCHEME = "acai-more"


def offset_in(url: QUrl) -> int:
    """The number a link carries (a code block's, or an offset in the message's text);
    -1 for none, as in a link the message's own text made up."""
    return int(url.path()) if url.path().isdigit() else -1
