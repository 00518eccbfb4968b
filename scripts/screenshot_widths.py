"""The window at 640, 1024 and 1440 pixels wide, as a user's screen shows it.

Run by ``scripts/screenshot-widths`` under a virtual X server with a window manager (Qt's
xcb platform, so the window has its frame and the manager places it). A throw-away
profile holds a short conversation and a few memories; the profile's model (an Ollama
address where nothing answers) shows the model status as a user would see it with the
server down. Each picture is the window as the screen shows it, frame included:
``window-640.png``, ``window-1024.png``, ``window-1440.png`` in the output folder, and
``first-start.png``: the first start's question, with Ollama found running, a key in the
environment and the built-in demo model.

With ``--every-panel`` it saves instead each width with each side panel open in turn
(chats, memory, documents), in the light and the dark theme, and the memory health
window at 1024 × 768: ``panels/window-WIDTH-PANEL-THEME.png`` and
``panels/memory-health-768.png`` (to look at, not for the docs).

With ``--images`` the chat carries a photo sent with a question (its thumbnail under the
message) and another waiting in the composer as a chip, beside a draft that asks about
it: ``images-WIDTH.png`` at each width (the pictures are drawn here, nothing is fetched).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QImage, QLinearGradient, QPainter, QPolygonF

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app import create_application
from acai_desktop.ui.app_controller import AppController

WIDTHS = (640, 1024, 1440)
HEIGHT = 800
PANELS = ("chats", "memory", "documents")
THEMES = ("light", "dark")
CONVERSATION = [
    ("user", "I'm planning a trip to Japan in April. I prefer quiet places, and I'm vegetarian."),
    (
        "assistant",
        "April is cherry-blossom season. For quiet places, look at **Kanazawa**, the Kiso "
        "Valley (the Magome–Tsumago trail) and the temples of northern Kyoto early in the "
        "morning. Try *shōjin ryōri*, the Buddhist temple cuisine: vegetarian by tradition.",
    ),
    ("user", "Which of those would suit a three-day stop?"),
    (
        "assistant",
        "Kanazawa:\n\n- **Day 1:** Kenroku-en garden and the samurai district.\n"
        "- **Day 2:** the thatched village of Shirakawa-gō.\n"
        "- **Day 3:** the 21st Century Museum and Ōmichō market.",
    ),
]
FACTS = [
    ("The user is planning a trip to Japan in April", "Plan"),
    ("The user prefers quiet places over big cities", "Preference"),
    ("The user is vegetarian", "Diet"),
]


PHOTO_QUESTION = "Here's the view from my hotel window in Kawaguchiko. Which mountain is that?"
PHOTO_ANSWER = (
    "That's **Mount Fuji** (3,776 m), seen from the north across Lake Kawaguchi. In April "
    "the cherry trees along the lake's northern shore usually bloom in the middle of the "
    "month, and the early morning gives the clearest view."
)
DRAFT = "And this lunch set from the ryokan: is any of it not vegetarian?"


def draw_pictures(folder: Path) -> tuple[Path, Path]:
    """A view of a snow-capped mountain over a lake (PNG) and a lunch tray (JPEG)."""
    view = QImage(960, 640, QImage.Format.Format_RGB32)
    painter = QPainter(view)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    sky = QLinearGradient(0, 0, 0, 420)
    sky.setColorAt(0, QColor("#7fb2e5"))
    sky.setColorAt(1, QColor("#f6d8c6"))
    painter.fillRect(0, 0, 960, 420, sky)
    painter.setPen(QColor(0, 0, 0, 0))
    painter.setBrush(QColor("#fff4d6"))
    painter.drawEllipse(QPointF(780, 110), 46, 46)
    painter.setBrush(QColor("#51627a"))
    slopes = [(80, 430), (420, 120), (540, 120), (880, 430)]
    painter.drawPolygon(QPolygonF([QPointF(x, y) for x, y in slopes]))
    painter.setBrush(QColor("#f7f9fc"))
    snow = [(355, 180), (420, 120), (540, 120), (605, 180), (560, 200), (520, 172),
            (480, 205), (440, 172), (400, 200)]  # fmt: skip
    painter.drawPolygon(QPolygonF([QPointF(x, y) for x, y in snow]))
    water = QLinearGradient(0, 420, 0, 640)
    water.setColorAt(0, QColor("#5d84a8"))
    water.setColorAt(1, QColor("#2f4c68"))
    painter.fillRect(0, 420, 960, 220, water)
    painter.setBrush(QColor("#f2b8c6"))
    for x in range(0, 960, 70):
        painter.drawEllipse(QPointF(x + 20, 425), 48, 26)
    painter.end()
    tray = QImage(800, 600, QImage.Format.Format_RGB32)
    tray.fill(QColor("#8a5a36"))
    painter = QPainter(tray)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(0, 0, 0, 0))
    painter.setBrush(QColor("#2b2b2b"))
    painter.drawRoundedRect(QRectF(60, 60, 680, 480), 30, 30)
    for (x, y, r), bowl, food in (
        ((230, 200, 110), "#c23b22", "#f5f1e6"),  # rice
        ((540, 200, 110), "#3a2418", "#b7824a"),  # miso soup
        ((230, 420, 80), "#e9e3d5", "#6f9b3d"),  # pickles
        ((540, 420, 90), "#e9e3d5", "#e0b43c"),  # tempura
    ):
        painter.setBrush(QColor(bowl))
        painter.drawEllipse(QPointF(x, y), r, r)
        painter.setBrush(QColor(food))
        painter.drawEllipse(QPointF(x, y), r * 0.78, r * 0.78)
    painter.end()
    view_path, tray_path = folder / "hotel-window.png", folder / "ryokan-lunch.jpg"
    view.save(str(view_path), "PNG")
    tray.save(str(tray_path), "JPEG", 88)
    return view_path, tray_path


async def populate(profile: Profile, pictures: tuple[Path, Path] | None = None) -> None:
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        # One chat in a project, so the sidebar shows its grouping.
        side_project = await assistant.projects.create("Side project")
        for title in ("Backend for my side project", "A 10 km running plan"):
            earlier = await assistant.conversations.create(title)
            await assistant.conversations.add_message(earlier.id, "user", f"About {title}.")
            if title.startswith("Backend"):
                await assistant.projects.move_conversation(earlier.id, side_project.id)
        conversation = await assistant.conversations.create("Trip to Japan")
        for role, text in CONVERSATION:
            await assistant.conversations.add_message(conversation.id, role, text)
        if pictures is not None:
            # A photo sent with a question (answered), and a lunch tray attached since.
            view, tray = pictures
            await assistant.attachments.attach_file(view, conversation.id)
            await assistant.conversations.add_message(conversation.id, "user", PHOTO_QUESTION)
            await assistant.conversations.add_message(conversation.id, "assistant", PHOTO_ANSWER)
            await assistant.attachments.attach_file(tray, conversation.id)
        for fact, category in FACTS:
            await assistant.memories.remember(fact, category=category, explicit=True)
    finally:
        await assistant.close()


def main(output_dir: Path, every_panel: bool = False, images: bool = False) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="acai-widths-")
    profile = Profile.at(Path(scratch) / "profile").ensure()
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset(
            "ollama",
            base_url="http://127.0.0.1:9/v1",  # nothing answers: the status says so
            # With pictures, a model that sees them (as routing or the ⚙ would pick).
            models=RoleModels.same(
                "llama3.2-vision" if images else "llama3.2", embedding="nomic-embed-text"
            ),
        ),
    )
    asyncio.run(populate(profile, draw_pictures(Path(scratch)) if images else None))

    import qasync  # after PySide6: qasync binds to the Qt already loaded

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = AppController(profile, quit_after_ms=60_000)
    saved: list[str] = []
    widths = list(WIDTHS)
    views = [(w, p, t) for t in THEMES for w in WIDTHS for p in PANELS]
    expected = len(views) + 1 if every_panel else len(WIDTHS) + (0 if images else 1)

    def grab_window(path: Path) -> None:
        window = session.window
        frame = window.frameGeometry()
        screen = window.screen() or QGuiApplication.primaryScreen()
        picture = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        if picture.save(str(path)):
            saved.append(str(path))

    def next_view() -> None:
        if not views:
            grab_memory_health()
            return
        width, panel, theme = views[0]
        window = session.window
        assert session.theme is not None
        session.theme.set_choice(theme)
        window.resize(width, HEIGHT)
        window.set_panels(panel == "chats", panel != "chats")
        if panel == "chats":
            window.conversations_action.setChecked(True)  # as the user opens it
        else:
            window.memory_action.setChecked(True)
            window.side_tabs.setCurrentIndex(1 if panel == "documents" else 0)
        QTimer.singleShot(900, grab_view)

    def grab_view() -> None:
        width, panel, theme = views.pop(0)
        (output_dir / "panels").mkdir(exist_ok=True)
        grab_window(output_dir / "panels" / f"window-{width}-{panel}-{theme}.png")
        next_view()

    def grab_memory_health() -> None:
        session.window.resize(1024, 768)
        session.memory_health.open()

        def save() -> None:
            dialog = session.window.dialogs.health
            assert dialog is not None
            frame = dialog.frameGeometry()
            screen = dialog.screen() or QGuiApplication.primaryScreen()
            picture = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
            path = output_dir / "panels" / "memory-health-768.png"
            if picture.save(str(path)):
                saved.append(str(path))
            print(f"memory health window: {frame.width()} x {frame.height()} with its frame")
            session.request_quit()

        QTimer.singleShot(2500, save)

    def next_width() -> None:
        if not widths:
            if images:
                session.request_quit()
            else:
                grab_first_start()
            return
        session.window.resize(widths[0], HEIGHT)
        QTimer.singleShot(900, grab)

    def grab() -> None:
        width = widths.pop(0)
        window = session.window
        frame = window.frameGeometry()
        screen = window.screen() or QGuiApplication.primaryScreen()
        picture = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
        path = output_dir / f"{'images' if images else 'window'}-{width}.png"
        if picture.save(str(path)):
            saved.append(str(path))
        next_width()

    def grab_first_start() -> None:
        from acai_desktop.core.models.detection import DetectionReport, ProviderProbe
        from acai_desktop.core.models.local_model_files import bundled_model_path
        from acai_desktop.ui.widgets.first_start_dialog import FirstStartDialog

        ollama = ProviderProbe(
            "ollama",
            "http://localhost:11434/v1",
            True,
            ["llama3.2:latest", "nomic-embed-text:latest"],
        )
        report = DetectionReport([ollama], True, True, bundled_model_path(), "ollama")
        dialog = FirstStartDialog(report.options(), session.window)
        dialog.open()

        def save() -> None:
            if dialog.grab().save(str(output_dir / "first-start.png")):
                saved.append(str(output_dir / "first-start.png"))
            dialog.reject()
            session.request_quit()

        QTimer.singleShot(700, save)

    def when_loaded() -> None:
        busy = session.tasks.get("open") or session.tasks.get("check-model")
        if session.assistant is None or busy is not None:
            QTimer.singleShot(100, when_loaded)
            return
        model = session.window.conversations_model
        rows = (model.index(row, 0) for row in range(model.rowCount()))
        trip = next(index for index in rows if index.data() == "Trip to Japan")
        session.window.conversation_list.activated.emit(trip)  # a header would open its menu
        session.window.show_status("Ready")
        if images:
            session.window.composer.set_text(DRAFT)
        QTimer.singleShot(600, next_view if every_panel else next_width)

    QTimer.singleShot(200, when_loaded)
    loop.run_until_complete(session.run())
    loop.close()
    if len(saved) != expected:
        print(f"screenshot-widths: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a not in ("--every-panel", "--images")]
    sys.exit(
        main(
            Path(arguments[0]) if arguments else Path("docs/screenshots"),
            every_panel="--every-panel" in sys.argv[1:],
            images="--images" in sys.argv[1:],
        )
    )
