"""The documents list model translates the core's document events; qtmodeltester checks it."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from acai_desktop.core.documents.model import Document, DocumentStatus
from acai_desktop.ui.models.documents_model import DocumentRoles, DocumentsModel, size_text

AT = "2025-01-01T10:00:00+00:00"


def document(id: int, name: str = "notes.md", **fields) -> Document:
    values = dict(
        id=id,
        path=f"/tmp/{name}",
        name=name,
        size=12_345,
        kind="markdown",
        status=DocumentStatus.QUEUED,
        added_at=AT,
    )
    values.update(fields)
    return Document(**values)


def test_documents_model_follows_added_changed_progress_and_removed(qtmodeltester, qtbot):
    model = DocumentsModel()
    model.set_documents([document(1, "a.md", status=DocumentStatus.READY, chunk_count=4)])
    # check() stays connected and checks every later change of the model too.
    qtmodeltester.check(model, force_py=True)
    assert model.index(0).data() == "a.md\n12.3 KB · 4 chunks · ready"

    with qtbot.waitSignal(model.rowsInserted, timeout=1000):
        model.on_document_added(document(2, "manual.pdf", kind="pdf"))
    assert model.rowCount() == 2 and model.index(1).data(DocumentRoles.STATUS) == "queued"

    changes = []
    model.dataChanged.connect(lambda top, bottom, roles: changes.append((top.row(), roles)))
    indexing = document(2, "manual.pdf", status=DocumentStatus.INDEXING)
    model.on_document_changed(indexing)
    model.on_indexing_progress(2, "embedding", 30, 120)
    assert changes[-1] == (1, [Qt.ItemDataRole.DisplayRole, DocumentRoles.PROGRESS])
    assert "indexing: embedding 30/120" in model.index(1).data()

    ready = replace(indexing, status=DocumentStatus.READY, chunk_count=1, page_count=3)
    model.on_document_changed(ready)
    assert model.index(1).data() == "manual.pdf\n12.3 KB · 1 chunk · 3 pages · ready"
    assert model.index(1).data(DocumentRoles.PROGRESS) == ""

    failed = replace(ready, status=DocumentStatus.ERROR, error="It is a binary file.")
    model.on_document_changed(failed)
    assert model.index(1).data().endswith("\nIt is a binary file.")
    assert (
        model.index(1).data(Qt.ItemDataRole.ToolTipRole) == "/tmp/manual.pdf\nIt is a binary file."
    )

    # A document added by another process arrives as a change: it is added.
    model.on_document_changed(document(7, "other.txt"))
    assert model.row_of(7) == 2
    model.on_document_added(document(7, "other.txt"))  # read already: no second row
    assert model.rowCount() == 3

    with qtbot.waitSignal(model.rowsRemoved, timeout=1000):
        model.on_document_removed(1)
    assert [model.index(r).data(DocumentRoles.ID) for r in range(model.rowCount())] == [2, 7]
    assert model.row_of(7) == 1
    model.on_document_removed(99)  # unknown: nothing happens
    model.on_indexing_progress(99, "reading", 0, 1)
    assert model.rowCount() == 2


def test_sizes_read_like_a_file_manager():
    assert [size_text(n) for n in (0, 999, 1000, 12_345, 5_200_000, 200_000_000)] == [
        "0 B",
        "999 B",
        "1.0 KB",
        "12.3 KB",
        "5.2 MB",
        "200 MB",
    ]


def test_a_chats_attachment_is_not_listed_with_the_library(qtmodeltester):
    model = DocumentsModel()
    model.set_documents([document(1, "a.md")])
    qtmodeltester.check(model, force_py=True)
    attached = document(2, "notes.txt", attachment=True, conversation_id=7)
    model.on_document_added(attached)
    model.on_document_changed(replace(attached, status=DocumentStatus.READY))
    assert [model.index(r).data(DocumentRoles.NAME) for r in range(model.rowCount())] == ["a.md"]
