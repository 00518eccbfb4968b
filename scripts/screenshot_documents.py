"""The Documents tab and an answer's quoted passage, as a picture (docs/screenshots/documents.png).

Run by ``scripts/screenshot-documents`` (or directly, with the project importable):
a throw-away profile gets a few real documents — Markdown, a text PDF, source code and
one binary file that is refused with its reason — indexed by the real indexing job (the
local WordLlama embedder, offline), and a conversation whose answer quoted a passage.
The real window is started offscreen with the Documents tab shown; the answer's sources
and the passage opened from them are real dialogs, drawn over the window where they
would open.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.documents.model import DocumentScope, EvidenceSource, ScopeMode
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app import create_application
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.document_dialogs import PassageDialog
from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog
from benchmarks.pdf_writer import write_text_pdf

HANDBOOK = """# Team handbook

## Deployment

Deployments happen on Tuesdays after the stand-up. Announce them in #releases one day
ahead, and keep the previous build ready for a rollback.

## Holidays

Book holidays two weeks ahead in the HR portal. Summer weeks are shared fairly: no more
than two people of a team away at once.
"""
CODE = '''"""Deploy the site: build, upload, switch the symlink."""

import subprocess


def deploy(build_dir: str, host: str) -> None:
    subprocess.run(["rsync", "-a", build_dir, f"{host}:/srv/site/next"], check=True)
    subprocess.run(["ssh", host, "ln -sfn /srv/site/next /srv/site/current"], check=True)
'''
MANUAL_PAGES = [
    [
        f"Orion 117 pump - service manual, page {n}",
        "",
        *(
            [
                "Intake valve: replace it every 2,000 operating hours or once a year,",
                "whichever comes first. Use gasket kit OR-117-G and torque to 12 Nm.",
            ]
            if n == 12
            else [f"Section {n}: checks, wiring and parts of the Orion 117 pump."]
        ),
    ]
    for n in range(1, 25)
]
QUESTION = "How often should I replace the intake valve on the Orion 117?"
ANSWER = (
    "Replace the intake valve **every 2,000 operating hours or once a year**, whichever "
    "comes first (service manual, p. 12). Use gasket kit OR-117-G and torque it to 12 Nm."
)


async def populate(profile: Profile, files: Path) -> int:
    """Index the documents and write a chat whose answer quoted the manual; returns
    the answer's id."""
    (files / "team-handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (files / "deploy.py").write_text(CODE, encoding="utf-8")
    write_text_pdf(files / "orion-117-manual.pdf", MANUAL_PAGES)
    (files / "camera-export.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 40)
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        names = ["team-handbook.md", "orion-117-manual.pdf", "deploy.py", "camera-export.txt"]
        report = await assistant.documents.add([files / name for name in names])
        await assistant.documents.index_now(report.job_ids)
        conversation = await assistant.conversations.create("Orion pump maintenance")
        await assistant.conversations.add_message(conversation.id, "user", QUESTION)
        answer = await assistant.conversations.add_message(conversation.id, "assistant", ANSWER)
        hits = await assistant.documents.search(QUESTION, k=2)
        evidence = [
            EvidenceSource(
                message_id=answer.id,
                rank=hit.rank,
                chunk_id=hit.passage.chunk_id,
                document_id=hit.passage.document_id,
                document_name=hit.passage.document_name,
                page=hit.passage.page,
                score=hit.score,
                reasons=list(hit.reasons),
                snippet=" ".join(hit.passage.content.split())[:200],
            )
            for hit in hits
        ]
        await assistant._provenance.record_evidence(answer.id, evidence)
        # This chat quotes the manual and the handbook, not the code.
        quoted = [d.id for d in report.queued if d.name != "deploy.py"]
        await assistant.documents.set_scope(
            conversation.id, DocumentScope(ScopeMode.SOME, tuple(quoted[:2]))
        )
        await assistant.memories.remember(
            "The user maintains Orion 117 pumps at work", category="Professional", explicit=True
        )
        return answer.id
    finally:
        await assistant.close()


def draw_window(painter: QPainter, dialog, at: QPoint, theme) -> None:
    """Draw ``dialog`` at ``at`` with a plain title bar and border: offscreen, no window
    manager draws them."""
    body = dialog.grab()
    bar = 30
    frame = QRect(at.x(), at.y(), body.width() + 2, body.height() + bar + 1)
    painter.fillRect(frame.translated(4, 6), QColor(0, 0, 0, 28))  # a soft shadow
    painter.fillRect(frame, theme.color("line"))
    painter.setPen(theme.color("ink"))
    title = QRect(frame.x() + 12, frame.y(), frame.width() - 24, bar)
    painter.drawText(title, int(Qt.AlignmentFlag.AlignVCenter), dialog.windowTitle())
    painter.drawPixmap(QPoint(at.x() + 1, at.y() + bar), body)


def main(output: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="acai-shot-"))
    try:
        shoot(work, output)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def shoot(work: Path, output: str) -> None:
    profile = Profile.at(work / "profile").ensure()
    files = work / "files"
    files.mkdir()
    # An Ollama profile: the client connects lazily, so no server is needed to show it.
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            "ollama", models=RoleModels.same("llama3.2", embedding="nomic-embed-text")
        ),
    )
    answer_id = asyncio.run(populate(profile, files))
    import qasync  # after PySide6: qasync binds to the Qt binding already loaded

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=30_000)
    saved: list[bool] = []

    def when_loaded() -> None:
        window = session.window
        if session.assistant is None or session.tasks.get("open") is not None:
            QTimer.singleShot(100, when_loaded)
            return
        if window.documents_model.rowCount() < 4:
            QTimer.singleShot(100, when_loaded)
            return
        window.documents_action.trigger()
        panel = window.documents_panel
        model = window.documents_model
        rows = range(model.rowCount())
        error_row = next(r for r in rows if model.document_at(r).status == "error")
        panel.list.setCurrentIndex(model.index(error_row))
        window.show_status("Ready")
        session.turns.show_sources(answer_id)
        QTimer.singleShot(600, open_passage)

    def open_passage() -> None:
        sources = session.window.findChild(ProvenanceDialog)
        if sources is None or not sources.evidence:
            QTimer.singleShot(100, open_passage)
            return
        sources.passage_open_requested.emit(sources.evidence[0])
        QTimer.singleShot(600, grab)

    def grab() -> None:
        window = session.window
        sources = window.findChild(ProvenanceDialog)
        passage = window.findChild(PassageDialog)
        sources.resize(500, 330)
        passage.resize(470, 250)
        picture = window.grab()
        painter = QPainter(picture)
        # Where they would open: the sources over the chat, the passage over them.
        for dialog, at in ((sources, QPoint(290, 64)), (passage, QPoint(440, 300))):
            draw_window(painter, dialog, at, session.theme.theme)
        painter.end()
        saved.append(picture.save(output))
        session.request_quit()

    QTimer.singleShot(200, when_loaded)
    loop.run_until_complete(session.run())
    loop.close()
    if saved != [True]:
        sys.exit(f"screenshot: could not save {output}")
    print(f"saved {output}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/documents.png")
