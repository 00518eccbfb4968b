""" "Why not …?" in the real window (issue 43, item 2): from an answer's Sources, the user
searches for what should have been used, reads why it wasn't in plain words, and clicks
the fix; the texts shown are the memories' own, as plain text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.records.memories import MemoryStatus
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.why_not_dialog import WhyNotDialog
from acai_lab.scripted_model import fake_model
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_sources_explained_session import ask_and_wait, open_sources

USED = "The user's dishwasher warranty lasts until March 2027"
# Markup in a memory is its text: shown as typed, never rendered.
FORGOTTEN = "<b>The dishwasher warranty covers the pump</b>"


def test_why_not_explains_and_fixes_from_the_sources(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        window, memories = session.window, session.assistant.memories
        await memories.remember(USED, explicit=True)
        forgotten = await memories.remember(FORGOTTEN, explicit=True)
        await memories.forget(forgotten.id)
        await ask_and_wait(window, "How long does the warranty on my dishwasher last?")
        sources = await open_sources(window)
        await wait_until(lambda: "March 2027" in sources.browser.toPlainText())
        QTest.mouseClick(sources.why_not_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: sources.findChild(WhyNotDialog))
        assert "warranty on my dishwasher" in dialog.question.text()

        dialog.words.setText("covers the pump")
        QTest.mouseClick(dialog.search_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: dialog.heading.text() == "Forgotten")
        assert dialog.result_box.isVisible() and dialog.results.count() >= 1
        assert "You forgot it" in dialog.sentence.text()
        for label in (dialog.item_text, dialog.sentence, dialog.heading):
            assert label.textFormat() == Qt.TextFormat.PlainText
        assert FORGOTTEN in dialog.item_text.text()
        (restore,) = dialog.fix_buttons
        assert restore.text().startswith("Restore")
        # Nothing changed until the click.
        assert (await memories.get(forgotten.id)).status == MemoryStatus.FORGOTTEN
        QTest.mouseClick(restore, Qt.MouseButton.LeftButton)
        await wait_until(lambda: dialog.applied.text().startswith("Restored."))
        assert (await memories.get(forgotten.id)).status == MemoryStatus.ACTIVE
        assert not restore.isEnabled()

        # Another item: the one the answer did use.
        dialog.words.setText("warranty lasts until March")
        QTest.keyClick(dialog.words, Qt.Key.Key_Return)
        await wait_until(lambda: dialog.heading.text() == "Used")
        assert "It was used" in dialog.sentence.text() and not dialog.fix_buttons

        # Words nothing holds.
        dialog.words.setText("zeppelin quasar")
        QTest.keyClick(dialog.words, Qt.Key.Key_Return)
        await wait_until(lambda: dialog.error.isVisible())
        assert "Nothing in memory" in dialog.error.text()
        dialog.close()
        sources.close()

    run_in_session(gui_session(profile), scenario)
