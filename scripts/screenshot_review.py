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
from pathlib import Path

from PySide6.QtCore import QTimer
from screenshot_scene import grab, run_window, scripted_profile

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.profile.paths import Profile

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
    widths, saved = list(WIDTHS), []

    def ready(session) -> None:
        if not session.window.memory_panel.review.due:  # read once the profile opened
            QTimer.singleShot(100, lambda: ready(session))
            return
        next_width(session)

    def next_width(session) -> None:
        if not widths:
            session.request_quit()
            return
        window = session.window
        window.resize(widths[0], HEIGHT)
        window.set_panels(widths[0] != 640, True)
        window.show_memory_tab()
        QTimer.singleShot(900, lambda: grab_width(session))

    def grab_width(session) -> None:
        path = output_dir / f"review-{widths.pop(0)}.png"
        if grab(path, session.window):
            saved.append(str(path))
        next_width(session)

    with scripted_profile("acai-review-") as (_server, profile):
        asyncio.run(populate(profile))
        run_window(profile, ready)
    if len(saved) != len(WIDTHS):
        print(f"screenshot review: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
