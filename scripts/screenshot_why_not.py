""" "Why not …?" in the window, as pictures (issue 43, item 2).

Run by ``scripts/screenshot-widths OUTPUT_DIR --why-not`` under a virtual X server with a
window manager (Qt's xcb platform). A throw-away profile talks to the scripted model
server on 127.0.0.1 (``acai_lab``: the repository, not the installed app); it remembers
a few facts, one of them forgotten, and a real turn asks about the warranty the
forgotten one is about. In the window, the answer's Sources open, then "Why not …?",
where the forgotten memory's words are searched: the reason shows with its fix.
Saves ``why-not-640.png``, ``why-not-1024.png`` and ``why-not-1440.png`` in the output
folder: the screen around the window and both dialogs.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from screenshot_scene import grab, run_window, scripted_profile

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.paths import Profile

WIDTHS = (640, 1024, 1440)
HEIGHT = 800
FACTS = [
    ("The user's dishwasher warranty lasts until March 2027", "Home"),
    ("The user lives in Porto", "Home"),
    ("The user prefers short answers", "Preference"),
    ("The user's bike pump hangs in the garage", "Home"),
]
FORGOTTEN = "The extended warranty also covers the dishwasher's pump and motor"
QUESTION = "Does the warranty on my dishwasher cover the pump?"
SEARCHED = "pump and motor"
#: Filled by populate: the answer asked about.
made: dict[str, int] = {}


async def populate(profile: Profile) -> None:
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        for fact, category in FACTS:
            await assistant.memories.remember(fact, category=category, explicit=True)
        forgotten = await assistant.memories.remember(FORGOTTEN, category="Home", explicit=True)
        await assistant.memories.forget(forgotten.id)
        result = await assistant.orchestrator.send(None, QUESTION)
        made["answer"] = result.answer.id
    finally:
        await assistant.close()


def main(output_dir: Path) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    saved: list[str] = []
    widths = list(WIDTHS)
    session = None

    def later(step, *args, ms: int = 150) -> None:
        QTimer.singleShot(ms, lambda: step(*args))

    def ready(opened) -> None:
        nonlocal session
        session = opened
        next_width()

    def next_width() -> None:
        if not widths:
            session.request_quit()
            return
        window = session.window
        window.resize(widths[0], HEIGHT)
        window.set_panels(widths[0] != 640, True)
        window.chat_view.scrollToBottom()
        session.turns.show_sources(made["answer"])
        later(open_why_not)

    def open_why_not() -> None:
        from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog

        sources = session.window.findChild(ProvenanceDialog)
        if sources is None or "warranty" not in sources.browser.toPlainText():
            later(open_why_not)
            return
        sources.why_not_button.click()
        later(search, sources)

    def search(sources) -> None:
        from acai_desktop.ui.widgets.why_not_dialog import WhyNotDialog

        dialog = sources.findChild(WhyNotDialog)
        if dialog is None:
            later(search, sources)
            return
        dialog.words.setText(SEARCHED)
        dialog.search_button.click()
        later(wait_for_reason, sources, dialog)

    def wait_for_reason(sources, dialog) -> None:
        if not dialog.result_box.isVisible():
            later(wait_for_reason, sources, dialog)
            return
        later(grab_both, sources, dialog, ms=700)

    def grab_both(sources, dialog) -> None:
        width = widths.pop(0)
        path = output_dir / f"why-not-{width}.png"
        if grab(path, session.window, sources, dialog):
            saved.append(str(path))
        print(f"{width}: why not {dialog.width()} x {dialog.height()}: {dialog.heading.text()}")
        dialog.reject()
        sources.reject()
        later(next_width, ms=400)

    with scripted_profile("acai-why-not-") as (_server, profile):
        asyncio.run(populate(profile))
        run_window(profile, ready, quit_after_ms=90_000)
    if len(saved) != len(WIDTHS):
        print(f"screenshot-widths --why-not: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
