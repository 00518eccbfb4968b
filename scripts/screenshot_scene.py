"""What the screenshot scenes share: a throw-away profile on the scripted model server,
the real window run until a scene quits it, and a picture of part of the screen.

A scene (``scripts/screenshot_review.py``, ``screenshot_why_not.py``,
``screenshot_local_only.py``) fills the profile, then gets the session once the profile
is open and its model checked, and asks it to quit when its pictures are taken. (The
older scenes still build their own; move one here when it changes.)
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QRect, QTimer
from PySide6.QtGui import QGuiApplication

from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import FakeOpenAIServer

MODEL = "gpt-4o-mini"


@contextmanager
def scripted_profile(prefix: str) -> Iterator[tuple[FakeOpenAIServer, Profile]]:
    """A fresh profile whose every role is ``MODEL`` on a scripted server (the fake
    model answers; the model is listed, so the header says ready)."""
    server = FakeOpenAIServer().start()
    server.responder = fake_model
    server.models = [MODEL]
    try:
        profile = Profile.at(Path(tempfile.mkdtemp(prefix=prefix)) / "profile").ensure()
        save_model_settings(
            profile.settings_path,
            ModelSettings.for_preset(
                "custom", base_url=server.base_url, models=RoleModels.same(MODEL)
            ),
        )
        yield server, profile
    finally:
        server.stop()


def run_window(profile: Profile, ready: Callable, *, quit_after_ms: int = 60_000) -> None:
    """The real window on ``profile`` until it quits; ``ready(session)`` once the profile
    is open and its model checked."""
    import qasync  # after PySide6: qasync binds to the Qt already loaded

    from acai_desktop.ui.app import create_application
    from acai_desktop.ui.app_controller import AppController

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=quit_after_ms)

    def when_loaded() -> None:
        busy = session.tasks.get("open") or session.tasks.get("check-model")
        if session.assistant is None or busy is not None:
            QTimer.singleShot(100, when_loaded)
            return
        session.window.show_status("Ready")
        QTimer.singleShot(600, lambda: ready(session))

    QTimer.singleShot(200, when_loaded)
    loop.run_until_complete(session.run())
    loop.close()


def grab(path: Path, *widgets) -> bool:
    """A picture of the screen under ``widgets``' frames (one rectangle holding them all)."""
    area = QRect()
    for widget in widgets:
        area = area.united(widget.frameGeometry())
    screen = widgets[0].screen() or QGuiApplication.primaryScreen()
    picture = screen.grabWindow(0, area.x(), area.y(), area.width(), area.height())
    return picture.save(str(path))
