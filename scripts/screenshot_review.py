"""The Review (issue 43, item 1) as pictures: the memory panel asking "Still true?"
about the facts past their lifetime, at 640, 1024 and 1440 pixels wide.

Run by ``scripts/screenshot-widths OUTPUT_DIR --review`` under a virtual X server with a
window manager. A throw-away profile holds facts learned two years ago (a job, a home,
a plan; a name, which never ages) and a recent one. Saved in the output folder:
``review-640.png``, ``review-1024.png`` and ``review-1440.png``.
"""

from __future__ import annotations

import asyncio
import sqlite3
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
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import FakeOpenAIServer

WIDTHS = (640, 1024, 1440)
HEIGHT = 800
AGED = [
    ("The user works as a nurse at Santa Maria hospital", "Professional"),
    ("The user lives in Lisbon, in Alfama", "Location"),
    ("The user's name is Marta", "Personal"),
]
RECENT = [("The user prefers quiet places over big cities", "Preference")]
TWO_YEARS_AGO = "2024-11-20T09:00:00+00:00"


async def populate(profile: Profile) -> None:
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        aged = [
            await assistant.memories.remember(fact, category=category, explicit=True)
            for fact, category in AGED
        ]
        for fact, category in RECENT:
            await assistant.memories.remember(fact, category=category, explicit=True)
    finally:
        await assistant.close()
    with sqlite3.connect(profile.database_path) as db:
        db.executemany(
            "UPDATE memories SET created_at = ? WHERE id = ?",
            [(TWO_YEARS_AGO, memory.id) for memory in aged],
        )


def main(output_dir: Path) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    server = FakeOpenAIServer().start()
    server.responder = fake_model
    server.models = ["gpt-4o-mini"]
    profile = Profile.at(Path(tempfile.mkdtemp(prefix="acai-review-")) / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            "custom", base_url=server.base_url, models=RoleModels.same("gpt-4o-mini")
        ),
    )
    asyncio.run(populate(profile))

    import qasync  # after PySide6: qasync binds to the Qt already loaded

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=60_000)
    widths, saved = list(WIDTHS), []

    def next_width() -> None:
        if not widths:
            session.request_quit()
            return
        window = session.window
        window.resize(widths[0], HEIGHT)
        window.set_panels(widths[0] != 640, True)
        window.show_memory_tab()
        QTimer.singleShot(900, grab_width)

    def grab_width() -> None:
        width = widths.pop(0)
        window = session.window
        frame = window.frameGeometry()
        screen = window.screen() or QGuiApplication.primaryScreen()
        picture = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        path = output_dir / f"review-{width}.png"
        if picture.save(str(path)):
            saved.append(str(path))
        next_width()

    def when_loaded() -> None:
        busy = session.tasks.get("open") or session.tasks.get("check-model")
        if (
            session.assistant is None
            or busy is not None
            or not session.window.memory_panel.review.due
        ):
            QTimer.singleShot(100, when_loaded)
            return
        session.window.show_status("Ready")
        QTimer.singleShot(600, next_width)

    QTimer.singleShot(200, when_loaded)
    loop.run_until_complete(session.run())
    loop.close()
    server.stop()
    if len(saved) != len(WIDTHS):
        print(f"screenshot review: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
