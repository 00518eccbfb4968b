"""The documents' dialogs show what comes from the user's files as literal text, and a
quoted passage's link asks for that passage."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl

from acai_desktop.core.documents.model import (
    Document,
    DocumentScope,
    DocumentStatus,
    EvidenceSource,
    Passage,
    ScopeMode,
)
from acai_desktop.ui.widgets.document_dialogs import (
    PASSAGE_GONE,
    DocumentScopeDialog,
    PassageDialog,
)
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog

HOSTILE = '<img src="file:///etc/passwd"><b>Q3</b>'


def evidence(rank: int, name: str, page: int | None, snippet: str) -> EvidenceSource:
    return EvidenceSource(
        message_id=5,
        rank=rank,
        chunk_id=40 + rank,
        document_id=3,
        document_name=name,
        page=page,
        score=0.5,
        reasons=["lexical"],
        snippet=snippet,
    )


def test_the_sources_list_passages_literally_and_a_click_asks_for_one(qtbot):
    dialog = ProvenanceDialog(5)
    qtbot.addWidget(dialog)
    quoted = [
        evidence(1, f"{HOSTILE}.pdf", 12, f"Revenue {HOSTILE}"),
        evidence(2, "a.md", None, "x"),
    ]
    dialog.set_sources([], quoted)
    text = dialog.browser.toPlainText()
    assert f"Sources: {HOSTILE}.pdf, p. 12" in text and f"Revenue {HOSTILE}" in text
    assert "Sources: a.md\n" in text  # no page: just the name
    assert "<img" not in dialog.browser.toHtml().replace("&lt;img", "")
    assert "No memory was put into this answer's prompt." in text

    with qtbot.waitSignal(dialog.passage_open_requested, timeout=1000) as asked:
        dialog.browser.anchorClicked.emit(QUrl("acai-passage:2"))
    assert asked.args == [quoted[1]]
    with qtbot.assertNotEmitted(dialog.passage_open_requested):
        dialog.browser.anchorClicked.emit(QUrl("acai-passage:9"))  # no such rank


def test_a_passage_is_plain_text_and_a_gone_one_shows_what_was_kept(qtbot):
    dialog = PassageDialog("manual.pdf, p. 3")
    qtbot.addWidget(dialog)
    passage = Passage(41, 3, f"{HOSTILE}.pdf", 0, 3, f"Intro > {HOSTILE}", f"Body {HOSTILE}")
    dialog.show_passage(passage)
    assert dialog.where.text() == f"{HOSTILE}.pdf, p. 3"
    assert dialog.heading.text() == f"Intro > {HOSTILE}" and not dialog.heading.isHidden()
    assert dialog.text.toPlainText() == f"Body {HOSTILE}" and dialog.text.isReadOnly()
    for label in (dialog.where, dialog.heading):
        assert label.textFormat() == Qt.TextFormat.PlainText
    dialog.show_gone("what the answer kept")
    assert dialog.heading.text() == PASSAGE_GONE
    assert dialog.text.toPlainText() == "what the answer kept"


def test_the_scope_picker_gives_the_ticked_documents_or_none(qtbot):
    documents = [
        Document(n, f"/d/{n}.md", f"{HOSTILE}{n}.md", 10, "markdown", DocumentStatus.READY, "t")
        for n in (1, 2, 3)
    ]
    dialog = DocumentScopeDialog(documents, (2,))
    qtbot.addWidget(dialog)
    assert dialog.list.item(0).text() == f"{HOSTILE}1.md"
    assert dialog.ticked() == (2,)
    dialog.list.item(2).setCheckState(Qt.CheckState.Checked)
    with qtbot.waitSignal(dialog.scope_chosen, timeout=1000) as chosen:
        dialog.buttons.accepted.emit()
    assert chosen.args == [DocumentScope(ScopeMode.SOME, (2, 3))]

    dialog = DocumentScopeDialog(documents, ())
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.scope_chosen, timeout=1000) as chosen:
        dialog.buttons.accepted.emit()
    assert chosen.args == [DocumentScope(ScopeMode.NONE)]
