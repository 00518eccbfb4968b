"""Local only in the window, as pictures (issue 42, item 4).

Run by ``scripts/screenshot-local-only`` under a virtual X server with a window manager,
as ``scripts/screenshot-widths`` is. A throw-away profile talks to the scripted model
server on 127.0.0.1, which model-table.json says runs in the cloud (a proxy to a cloud
provider); it holds a local-only project with a chat, a local-only chat and a memory
marked local only (kept to another project). A real turn asks about that memory: the
memory is withheld from the prompt. Saved in the output folder: ``local-only-640.png``,
``local-only-1024.png`` and ``local-only-1440.png`` (the window with the memory panel,
the marked memory selected, and the answer's footer; ``local-only-dark.png``: 1024 in
the dark theme), and ``local-only-sources.png`` (the answer's Sources, with what was
withheld and why).
"""

from __future__ import annotations

import asyncio
import json
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
    ("The user is planning a trip to Japan in April", "Plan"),
    ("The user prefers quiet places over big cities", "Preference"),
]
PASSPORT = "The user's passport number is ZK4471903"
QUESTION = "What is my passport number? I need it for the hotel form."
#: Filled by populate: the marked memory and the answer that withheld it.
made: dict[str, int] = {}


async def populate(profile: Profile) -> None:
    assistant = await open_assistant(profile, ModelOverrides(), start_jobs=False)
    try:
        payroll = await assistant.projects.create("Payroll")
        await assistant.projects.set_local_only(payroll.id, True)
        review = await assistant.conversations.create("Salary review")
        await assistant.conversations.add_message(review.id, "user", "Our salary bands.")
        await assistant.projects.move_conversation(review.id, payroll.id)
        doctor = await assistant.conversations.create("Doctor's appointment")
        await assistant.conversations.add_message(doctor.id, "user", "My blood test results.")
        await assistant.conversations.set_local_only(doctor.id, True)
        for fact, category in FACTS:
            await assistant.memories.remember(fact, category=category, explicit=True)
        # Kept to a project of its own (not local only), so its card shows both buttons.
        trips = await assistant.projects.create("Trips")
        passport = await assistant.memories.remember(PASSPORT, category="Travel", explicit=True)
        await assistant.projects.demote(passport.id, trips.id)
        await assistant.memories.set_local_only(passport.id, True)
        made["memory"] = passport.id
        result = await assistant.orchestrator.send(None, QUESTION, project_id=trips.id)
        made["answer"] = result.answer.id
        assert result.withheld, "the turn should have withheld the passport memory"
    finally:
        await assistant.close()


def main(output_dir: Path) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    saved: list[str] = []
    widths: list[int | str] = [*WIDTHS, "dark"]  # and 1024 in the dark theme

    def next_width(session) -> None:
        if not widths:
            session.theme.set_choice("light")
            session.turns.show_sources(made["answer"])
            QTimer.singleShot(900, lambda: grab_sources(session))
            return
        window = session.window
        if widths[0] == "dark":
            session.theme.set_choice("dark")
        window.resize(widths[0] if widths[0] != "dark" else 1024, HEIGHT)
        window.set_panels(widths[0] != 640, True)
        window.show_memory_tab()
        window.memory_panel.select_memory(made["memory"])
        window.reveal_memory(made["memory"])
        window.chat_view.scrollToBottom()
        QTimer.singleShot(900, lambda: grab_width(session))

    def grab_width(session) -> None:
        path = output_dir / f"local-only-{widths.pop(0)}.png"
        if grab(path, session.window):
            saved.append(str(path))
        next_width(session)

    def grab_sources(session) -> None:
        from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog

        dialog = session.window.findChild(ProvenanceDialog)
        if dialog is None or "WITHHELD" not in dialog.browser.toPlainText():
            QTimer.singleShot(200, lambda: grab_sources(session))
            return
        dialog.resize(560, 420)
        QTimer.singleShot(400, lambda: finish(session, dialog))

    def finish(session, dialog) -> None:
        path = output_dir / "local-only-sources.png"
        if grab(path, dialog):
            saved.append(str(path))
        dialog.reject()
        session.request_quit()

    with scripted_profile("acai-local-only-") as (server, profile):
        # The scripted server stands for a proxy to a cloud provider.
        (profile.data_dir / "model-table.json").write_text(
            json.dumps({"servers": {server.base_url: {"where": "the cloud"}}}), encoding="utf-8"
        )
        asyncio.run(populate(profile))
        run_window(profile, next_width)
    if len(saved) != len(WIDTHS) + 2:
        print(f"screenshot-local-only: saved only {saved}", file=sys.stderr)
        return 1
    print("saved " + ", ".join(saved))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
