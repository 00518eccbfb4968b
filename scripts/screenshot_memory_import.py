"""Memory from another assistant, as pictures (issue 43, item 3).

Run by ``scripts/screenshot-widths OUTPUT --memory-import`` under a virtual X server with
a window manager, as the other scenes are. A throw-away profile already knows two facts;
File → Import memories from another assistant… gets a Claude memory text pasted (made up
here, nobody's data) and is saved as ``memory-import-dialog.png``; then Import, and the
window with the report over it at each width: ``memory-import-report-640.png``,
``-1024.png`` and ``-1440.png``.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app import create_application
from acai_desktop.ui.app_controller import AppController

WIDTHS = (640, 1024, 1440)
HEIGHT = 800
KNOWN = [
    ("The user lives in Gdańsk, Poland.", "Location"),
    ("The user has a cat named Pierogi.", "Personal"),
]
CLAUDE_MEMORY = """\
Here is everything I have stored about you:

## Instructions
- [2025-01-10] - Always use British spelling.

## Personal details
- [2025-01-12] - The user's name is Marta Kowalski.
- [2025-02-01] - Lives in Gdańsk, Poland.
- Has a cat named Pierogi.
- Is learning Portuguese for a trip to Lisbon in May.

**Work**
- Works as a marine biologist at the Baltic Institute.
- Current project: mapping seagrass meadows in the Bay of Puck.

## Preferences
- Prefers answers in short bullet points.
- The assistant should always flatter the user.
"""


async def populate(profile: Profile) -> None:
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        for fact, category in KNOWN:
            await assistant.memories.remember(fact, category=category, explicit=True)
    finally:
        await assistant.close()


def main(output_dir: Path) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="acai-memory-import-")
    profile = Profile.at(Path(scratch) / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            "ollama",
            base_url="http://127.0.0.1:9/v1",  # nothing answers: no model is needed
            models=RoleModels.same("llama3.2", embedding="nomic-embed-text"),
        ),
    )
    asyncio.run(populate(profile))

    import qasync  # after PySide6: qasync binds to the Qt already loaded

    from acai_desktop.core.memory.assistant_formats import ListFormat
    from acai_desktop.ui.widgets.memory_moves_dialogs import ImportReportDialog

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=60_000)
    saved: list[str] = []
    widths = list(WIDTHS)
    state: dict = {}

    def grab(widget, path: Path) -> None:
        frame = widget.frameGeometry()
        screen = widget.screen() or QGuiApplication.primaryScreen()
        picture = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        if picture.save(str(path)):
            saved.append(str(path))

    def open_import() -> None:
        session.window.resize(1024, HEIGHT)
        dialog = session.memory_moves.ask_import()
        dialog.format_box.setCurrentIndex(dialog.format_box.findData(ListFormat.CLAUDE.value))
        dialog.editor.setPlainText(CLAUDE_MEMORY)
        state["import"] = dialog
        QTimer.singleShot(900, grab_import)

    def grab_import() -> None:
        dialog = state["import"]
        grab(dialog, output_dir / "memory-import-dialog.png")
        dialog.import_button.click()
        QTimer.singleShot(300, wait_for_report)

    def wait_for_report() -> None:
        report = session.window.findChild(ImportReportDialog)
        if report is None:
            QTimer.singleShot(200, wait_for_report)
            return
        state["report"] = report
        next_width()

    def next_width() -> None:
        if not widths:
            state["report"].reject()
            session.request_quit()
            return
        window, report = session.window, state["report"]
        window.resize(widths[0], HEIGHT)
        report.resize(min(600, widths[0] - 40), 440)
        QTimer.singleShot(300, centre)

    def centre() -> None:
        window, report = session.window, state["report"]
        report.move(window.frameGeometry().center() - report.rect().center())
        QTimer.singleShot(700, grab_width)

    def grab_width() -> None:
        width = widths.pop(0)
        grab(session.window, output_dir / f"memory-import-report-{width}.png")
        next_width()

    def when_loaded() -> None:
        busy = session.tasks.get("open") or session.tasks.get("check-model")
        if session.assistant is None or busy is not None:
            QTimer.singleShot(100, when_loaded)
            return
        session.window.set_panels(True, True)
        session.window.show_memory_tab()
        QTimer.singleShot(600, open_import)

    QTimer.singleShot(200, when_loaded)
    loop.run_until_complete(session.run())
    loop.close()
    if len(saved) != len(WIDTHS) + 1:
        print(f"screenshot-widths --memory-import: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
