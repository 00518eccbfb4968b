"""Settings → Your models with a model's figures open, the window 640, 1024 and 1440
pixels wide, as a user's screen shows it (to look at, not for the docs).

Run by ``scripts/screenshot-widths OUTPUT_DIR --your-models`` under a virtual X server
with a window manager (Qt's xcb platform). A throw-away profile talks to a scripted
Ollama on 127.0.0.1 (``acai_lab``: the repository, not the installed app) that lists a
few models, with the user's own figures for one of them in ``model-table.json``;
detection finds nothing else, so the pictures are the same on every machine. Saves
``your-models/window-WIDTH.png`` in the output folder: the screen around the window,
Settings and the figures dialog.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QRect, QTimer
from PySide6.QtGui import QGuiApplication

from acai_desktop.core.models.detection import DetectionReport
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.routing.model_table import FILE_NAME
from acai_desktop.ui.app import create_application
from acai_desktop.ui.app_controller import AppController
from acai_lab.scripted_openai import FakeOpenAIServer

WIDTHS = (640, 1024, 1440)
HEIGHT = 800
MODELS = ["llama3.2:latest", "qwen2.5-coder:7b", "llava:7b", "nomic-embed-text:latest"]
#: The model whose figures are open in the pictures, with the user's own for it.
EDITED = "qwen2.5-coder:7b"


async def found_nothing() -> DetectionReport:
    return DetectionReport([], False, False, None, None)


def main(output_dir: Path) -> int:
    folder = output_dir / "your-models"
    folder.mkdir(parents=True, exist_ok=True)
    ollama = FakeOpenAIServer().start()
    ollama.models = MODELS
    profile = Profile.at(Path(tempfile.mkdtemp(prefix="acai-your-models-")) / "p").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            "ollama",
            base_url=ollama.base_url,
            models=RoleModels.same("llama3.2", embedding="nomic-embed-text"),
        ),
    )
    figures = {"quality": 4, "window_tokens": 65_536, "strong_at": ["code"]}
    (profile.data_dir / FILE_NAME).write_text(json.dumps({"models": {EDITED: figures}}))

    import qasync  # after PySide6: qasync binds to the Qt already loaded

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=60_000, detect=found_nothing)
    saved: list[str] = []
    widths = list(WIDTHS)

    def later(step, *args, ms: int = 100) -> None:
        QTimer.singleShot(ms, lambda: step(*args))

    def next_width() -> None:
        if not widths:
            session.request_quit()
            return
        session.window.resize(widths[0], HEIGHT)
        session.settings.open_dialog()
        later(list_models)

    def list_models() -> None:
        dialog = session.window.dialogs.settings
        if dialog is None or not dialog.isVisible():
            later(list_models)
            return
        dialog.provider_fields.api_key.setText("")
        dialog.models_list.list_button.click()
        later(open_figures, dialog)

    def open_figures(dialog) -> None:
        models = dialog.models_list
        if not models.list_button.isEnabled():
            later(open_figures, dialog)
            return
        dialog.fit_height()
        row = next(r for r, c in enumerate(models.listing.candidates) if c.model == EDITED)
        models.list.setCurrentRow(row)
        dialog.scroll.ensureWidgetVisible(models, 0, 0)
        models.edit_figures(models.listing.candidates[row])
        later(grab, dialog, ms=900)

    def grab(dialog) -> None:
        width = widths.pop(0)
        editor = dialog.models_list.editor
        area = QRect()
        for shown in (session.window, dialog, editor):
            area = area.united(shown.frameGeometry())
        screen = session.window.screen() or QGuiApplication.primaryScreen()
        picture = screen.grabWindow(0, area.x(), area.y(), area.width(), area.height())
        path = folder / f"window-{width}.png"
        if picture.save(str(path)):
            saved.append(str(path))
        print(
            f"{width}: settings {dialog.width()} x {dialog.height()}, "
            f"figures {editor.width()} x {editor.height()}"
        )
        editor.reject()
        dialog.reject()
        later(next_width, ms=300)

    def when_loaded() -> None:
        busy = session.tasks.get("open") or session.tasks.get("check-model")
        if session.assistant is None or busy is not None:
            later(when_loaded)
            return
        session.window.show_status("Ready")
        later(next_width, ms=600)

    later(when_loaded, ms=200)
    loop.run_until_complete(session.run())
    loop.close()
    ollama.stop()
    if len(saved) != len(WIDTHS):
        print(f"screenshot-widths --your-models: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
