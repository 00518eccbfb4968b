"""File > Import from ChatGPT in the real window: a file dialog, a learning budget, the
conversations in the sidebar and progress in the status bar; a bad file is refused in
one line with nothing imported."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog

from acai_desktop.ui.app_controller import AppController
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

EXPORTS = Path(__file__).parents[1] / "fixtures" / "chat_exports"


def _menu_action(window, text: str):
    for menu_action in window.menuBar().actions():
        for action in menu_action.menu().actions():
            if action.text() == text:
                return action
    raise AssertionError(f"no menu action {text!r}")


async def _import_by_menu(session: AppController, source: str, path: Path, budget: str) -> None:
    window = session.window
    _menu_action(window, f"Import from {source}…").trigger()
    files = await wait_until(lambda: window.findChild(QFileDialog))
    assert files.isVisible()
    files.fileSelected.emit(str(path))
    files.close()
    files.deleteLater()
    choice = await wait_until(lambda: window.findChild(QInputDialog))
    choice.textValueSelected.emit(budget)
    choice.close()
    choice.deleteLater()


def test_import_from_the_file_menu(qapp, tmp_path, fake_openai):
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))

    async def scenario(session: AppController):
        window = session.window
        await _import_by_menu(session, "ChatGPT", EXPORTS / "chatgpt_conversations.json",
                              "Nothing (search and recall only)")  # fmt: skip
        await wait_until(
            lambda: window.statusBar().currentMessage() == "Imported 3 conversations from ChatGPT."
        )
        model = window.conversations_model
        titles = {model.index(r).data() for r in range(model.rowCount())}
        hits = await session.assistant.conversations.search("shojin")
        return titles, hits

    titles, hits = run_in_session(session, scenario)
    assert {"Planning a trip to Kyoto", "Sourdough starter smells like nail polish"} <= titles
    assert hits and hits[0].title == "Planning a trip to Kyoto"


def test_a_bad_export_is_refused_in_the_status_bar(qapp, tmp_path, fake_openai):
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))
    data = json.loads((EXPORTS / "claude_conversations.json").read_text())
    del data[1]["uuid"]
    bad = tmp_path / "conversations.json"
    bad.write_text(json.dumps(data))

    async def scenario(session: AppController):
        window = session.window
        await _import_by_menu(session, "Claude", bad, "Everything I wrote")
        message = await wait_until(
            lambda: (
                "has no uuid" in window.statusBar().currentMessage()
                and window.statusBar().currentMessage()
            )
        )
        return message, window.conversations_model.rowCount()

    message, rows = run_in_session(session, scenario)
    assert message.startswith("conversation 2") and "\n" not in message
    assert rows == 0


def test_learning_from_an_import_pauses_resumes_and_says_how_far(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))

    async def scenario(session: AppController):
        window = session.window
        status = window.statusBar()
        _menu_action(window, "Pause learning from imports").trigger()
        await wait_until(lambda: "No learning" in status.currentMessage())
        await _import_by_menu(session, "Claude", EXPORTS / "claude_conversations.json",
                              "Everything I wrote")  # fmt: skip
        await wait_until(lambda: "learning from 4 of your messages" in status.currentMessage())
        paused = await session.assistant.imports.learning_progress()
        _menu_action(window, "Resume learning from imports").trigger()
        await wait_until(
            lambda: (
                status.currentMessage()
                == "Learning from imported messages: 4 of 4 done (finished)."
            )
        )
        facts = [m.content for m in await session.assistant.memories.list()]
        return paused, facts

    paused, facts = run_in_session(session, scenario)
    assert (paused.waiting, paused.done, paused.paused) == (4, 0, True)
    assert any(fact.startswith("The user lives in Porto") for fact in facts)


def test_an_import_that_fails_midway_ends_its_status_with_the_reason(qapp, tmp_path, fake_openai):
    """A fault that is no refusal of the core (here the database itself aborts the
    write) must not leave "Importing conversations…" standing as if it were running."""
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))

    async def scenario(session: AppController):
        window = session.window
        await session.assistant._store.run(
            lambda db: db.execute(
                "CREATE TRIGGER refuse_sourdough BEFORE INSERT ON conversations "
                "WHEN NEW.title LIKE 'Sourdough%' BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
            )
        )
        await _import_by_menu(session, "ChatGPT", EXPORTS / "chatgpt_conversations.json",
                              "Nothing (search and recall only)")  # fmt: skip
        return await wait_until(
            lambda: (
                "import stopped" in window.statusBar().currentMessage()
                and window.statusBar().currentMessage()
            )
        )

    message = run_in_session(session, scenario)
    assert message.startswith("The ChatGPT import stopped: IntegrityError: disk says no.")
    assert "importing the file again adds only what is missing" in message


def test_a_hostile_export_is_refused_in_the_status_bar(qapp, tmp_path, fake_openai):
    """Nested 100,000 deep: the window says so (it used to go blank)."""
    session = gui_session(configure_profile(tmp_path / "profile", fake_openai))
    deep = tmp_path / "conversations.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)

    async def scenario(session: AppController):
        window = session.window
        await _import_by_menu(session, "ChatGPT", deep, "Everything I wrote")
        return await wait_until(
            lambda: (
                "levels deep" in window.statusBar().currentMessage()
                and window.statusBar().currentMessage()
            )
        )

    message = run_in_session(session, scenario)
    assert message.startswith(f"{deep} is not a ChatGPT export ACAI can import: its JSON nests")
    assert "nothing was imported" in message
