"""The memory panel over the real memory service, and the window without a model."""

from __future__ import annotations

import asyncio
import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.memory.listing import DEFAULT_PAGE_SIZE, PanelQuery
from acai_desktop.core.memory.panel_search import PanelSearchWeights
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.memories_model import MemoryRoles
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.widgets.dialogs import MemoryEditDialog
from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.memory import shared_embedder

FACTS = ["The user lives in Lyon", "The user is allergic to peanuts", "The user plays chess"]


async def seed(profile: Profile) -> list[int]:
    """A conversation with one exchange and three memories, one taken from it."""
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
    )
    try:
        conversation = await assistant.conversations.create("Getting to know you")
        said = await assistant.conversations.add_message(
            conversation.id, "user", "I live in Lyon and play chess."
        )
        await assistant.conversations.add_message(conversation.id, "assistant", "Noted!")
        ids = []
        for fact in FACTS:
            item = await assistant.memories.remember(
                fact, category="Personal", sources=[said.id], explicit=True
            )
            ids.append(item.id)
        return ids
    finally:
        await assistant.close()


def memory_row(session: AppController, memory_id: int):
    model = session.window.memories_model
    row = model.row_of(memory_id)
    return None if row is None else model.index(row)


def db_row(profile: Profile, memory_id: int):
    with sqlite3.connect(profile.database_path) as db:
        return db.execute(
            "select status, pinned, content, user_edited from memories where id = ?", [memory_id]
        ).fetchone()


def test_pin_forget_undo_edit_and_details_from_the_panel(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    lyon, peanuts, chess = asyncio.run(seed(profile))

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        assert panel.area.currentWidget() is panel.list
        assert sorted(window.memories_model.items(), key=lambda i: i.id)[0].content == FACTS[0]
        # The latest conversation is shown at start.
        assert window.messages_model.rowCount() == 2
        assert window.conversation_title.text() == "Getting to know you"

        assert panel.select_memory(lyon)
        assert panel.actions_bar.isVisible() and panel.actions_bar.pin_button.text() == "Pin"
        QTest.mouseClick(panel.actions_bar.pin_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: memory_row(session, lyon).data(MemoryRoles.PINNED))
        assert db_row(profile, lyon)[1] == 1
        assert panel.actions_bar.pin_button.text() == "Unpin"
        QTest.mouseClick(panel.actions_bar.pin_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not memory_row(session, lyon).data(MemoryRoles.PINNED))
        assert db_row(profile, lyon)[1] == 0

        # Forget leaves the list at once; Undo in the status bar brings it back.
        assert panel.select_memory(peanuts)
        QTest.mouseClick(panel.actions_bar.forget_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: memory_row(session, peanuts) is None)
        assert db_row(profile, peanuts)[0] == "forgotten"
        assert window.undo_button.isVisible()
        assert "Forgot" in window.statusBar().currentMessage()
        QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: memory_row(session, peanuts) is not None)
        assert db_row(profile, peanuts)[0] == "active"
        assert not window.undo_button.isVisible()

        # Edit through the dialog (opened with open(), not exec()).
        assert panel.select_memory(chess)
        QTest.mouseClick(panel.actions_bar.edit_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(MemoryEditDialog))
        assert dialog.isVisible() and dialog.editor.toPlainText() == FACTS[2]
        dialog.editor.setPlainText("The user plays chess every Sunday")
        dialog.buttons.button(dialog.buttons.StandardButton.Save).click()
        await wait_until(
            lambda: (
                memory_row(session, chess).data(MemoryRoles.CONTENT)
                == "The user plays chess every Sunday"
            )
        )
        assert memory_row(session, chess).data(MemoryRoles.USER_EDITED)
        assert db_row(profile, chess)[2:] == ("The user plays chess every Sunday", 1)

        # Details: the history and the message it came from.
        QTest.mouseClick(panel.actions_bar.details_button, Qt.MouseButton.LeftButton)
        details = await wait_until(lambda: window.findChild(MemoryDetailsDialog))
        await wait_until(lambda: "HISTORY" in details.browser.toPlainText())
        text = details.browser.toPlainText()
        assert "I live in Lyon and play chess." in text
        assert "Edited by You" in text and "The user plays chess every Sunday" in text
        details.close()

        # Search narrows the list (the core runs it when the typing pauses; nothing here
        # is close in meaning to these words either); a search with no match says so.
        model = window.memories_model

        async def answered(text: str, filter_name: str = "All") -> None:
            await wait_until(
                lambda: model.query.asked() == PanelQuery.of(text, filter_name) and model.settled
            )

        panel.search.setText("peanuts")
        await answered("peanuts")
        assert model.rowCount() == 1 and model.matching_count == 1
        assert panel.area.currentWidget() is panel.list
        assert panel.count_label.text() == "3"  # the badge counts every memory
        panel.search.setText("zebra")
        await answered("zebra")
        assert model.rowCount() == 0
        assert panel.area.currentWidget() is panel.no_match
        panel.search.clear()
        panel.filter_box.setCurrentText("Pinned")
        await answered("", "Pinned")
        assert model.rowCount() == 0
        assert panel.area.currentWidget() is panel.no_match
        panel.filter_box.setCurrentText("Facts")
        await answered("", "Facts")
        assert model.rowCount() == 3

    run_in_session(gui_session(profile), scenario)


def test_without_a_model_the_window_opens_shows_why_and_keeps_data_readable(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    asyncio.run(seed(profile))
    # Now point the profile at a Local model file that does not exist.
    save_model_settings(
        profile.settings_path,
        ModelSettings.for_preset("local", local_model_path=str(tmp_path / "missing.gguf")),
    )

    async def scenario(session: AppController):
        window = session.window
        assert window.banner.isVisible()
        banner = window.banner_label.text()
        assert "can't be used" in banner and "Try again" in banner
        assert "still here" in banner
        assert window.model_badge.text() == "No model connected"
        # The data is readable: memories and the last conversation.
        assert window.memories_model.rowCount() == 3
        assert window.messages_model.rowCount() == 2
        # Sending writes the message and shows the reason on the answer row.
        window.composer.input.setPlainText("Hello?")
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        messages = window.messages_model
        await wait_until(
            lambda: messages.rowCount() == 4 and messages.index(3).data(MessageRoles.ERROR)
        )
        assert messages.index(3).data(MessageRoles.STATUS) == "error"
        await wait_until(lambda: not window.composer.busy)
        visible = {label.text() for label in window.findChildren(QLabel) if label.isVisible()}
        assert banner in visible

    run_in_session(gui_session(profile), scenario)
    with sqlite3.connect(profile.database_path) as db:
        last = db.execute(
            "select role, status, error from messages order by id desc limit 2"
        ).fetchall()
    assert last[1][:2] == ("user", "complete")
    assert last[0][:2] == ("assistant", "error") and last[0][2]


def test_damaged_model_settings_open_the_window_with_a_way_to_fix_them(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    asyncio.run(seed(profile))
    profile.settings_path.write_text('{"llm": {"provider": "nonsense", "models": 7}}')

    async def scenario(session: AppController):
        window = session.window
        assert window.banner.isVisible()
        banner = window.banner_label.text()
        assert "settings" in banner.lower() and "Open Settings" in banner
        assert window.memories_model.rowCount() == 3  # the data is all there

    run_in_session(gui_session(profile), scenario)


def test_delete_key_forgets_the_selected_memory_with_undo_and_ctrl_enter_saves_an_edit(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)
    lyon, peanuts, _chess = asyncio.run(seed(profile))

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        window.activateWindow()
        assert panel.select_memory(peanuts)
        panel.list.setFocus()
        await wait_until(panel.list.hasFocus)
        QTest.keyClick(panel.list, Qt.Key.Key_Delete)
        await wait_until(lambda: memory_row(session, peanuts) is None)
        assert db_row(profile, peanuts)[0] == "forgotten"
        assert window.undo_button.isVisible()
        QTest.mouseClick(window.undo_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: memory_row(session, peanuts) is not None)
        assert db_row(profile, peanuts)[0] == "active"

        # Ctrl+Enter in the edit dialog saves, from inside the text box.
        assert panel.select_memory(lyon)
        QTest.mouseClick(panel.actions_bar.edit_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(MemoryEditDialog))
        dialog.activateWindow()
        dialog.editor.setFocus()
        await wait_until(dialog.editor.hasFocus)
        dialog.editor.setPlainText("The user lives in Lyon, near the river")
        QTest.keyClick(dialog.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await wait_until(
            lambda: db_row(profile, lyon)[2] == "The user lives in Lyon, near the river"
        )
        assert db_row(profile, lyon)[3] == 1


def test_a_large_profile_opens_with_one_page_and_loads_more_on_scroll(qapp, tmp_path, fake_openai):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def seed_many() -> None:
        from acai_desktop.core.memory.service import MemoryDraft

        assistant = await open_assistant(
            profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
        )
        try:
            await assistant.memories.remember_many(
                [MemoryDraft(f"The user noted thing {n}") for n in range(450)], explicit=True
            )
        finally:
            await assistant.close()

    asyncio.run(seed_many())

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        model = window.memories_model
        # One page is loaded; the badge counts every memory (from SQL).
        assert model.rowCount() == DEFAULT_PAGE_SIZE
        assert panel.count_label.text() == "450"
        assert model.index(0).data(MemoryRoles.CONTENT) == "The user noted thing 449"
        # Scrolling to the end brings the next page. The list lays its cards out in
        # batches, so the scroll bar's end moves on while they come: like a user, keep
        # scrolling down until the view reaches the last card.
        bar = panel.list.verticalScrollBar()

        def scrolled_to_the_end_and_loaded() -> bool:
            bar.setValue(bar.maximum())
            # The second page at least (the view at its end may ask for the third too).
            return model.rowCount() >= 2 * DEFAULT_PAGE_SIZE

        await wait_until(scrolled_to_the_end_and_loaded)
        # A search runs over every memory, loaded or not, in the database.
        panel.search.setText("THING 12")
        await wait_until(lambda: model.query.near and model.settled)
        assert model.query.asked() == PanelQuery.of("THING 12")
        # Words match inside numbers too: 12, 112, 120..129, 212, 312, 412; beside them,
        # at most the search's limit of notes found by meaning (all "thing" notes are).
        shown = {model.index(r).data(MemoryRoles.CONTENT) for r in range(model.rowCount())}
        by_words = {f"The user noted thing {n}" for n in range(450) if "12" in str(n)}
        assert len(by_words) == 15 and by_words <= shown
        assert len(shown) == model.matching_count <= 15 + PanelSearchWeights().limit
        assert panel.count_label.text() == "450"

    run_in_session(gui_session(profile), scenario)


def test_the_memory_search_finds_by_meaning_too(qapp, tmp_path, fake_openai):
    """Typing "pet" shows "The user's dog is named Buster" (no shared word), first by
    words at once, then with the memories close in meaning; a newer search wins."""
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        for text in ("The user's dog is named Buster", "The user works as a data engineer"):
            await session.assistant.memories.remember(text, explicit=True)
        panel, model = session.window.memory_panel, session.window.memories_model
        await wait_until(lambda: model.rowCount() == 2)

        panel.search.setText("pet")
        await wait_until(
            lambda: (
                [model.index(r).data(MemoryRoles.CONTENT) for r in range(model.rowCount())]
                == ["The user's dog is named Buster"]
            )
        )
        assert model.query.near and model.query.asked() == PanelQuery.of("pet")
        assert panel.area.currentWidget() is panel.list

        panel.search.setText("zzzz")
        await wait_until(lambda: model.rowCount() == 0 and model.query.text == "zzzz")
        await wait_until(lambda: panel.area.currentWidget() is panel.no_match)

    run_in_session(gui_session(profile), scenario)


def test_cards_are_measured_again_when_the_panel_is_resized(qapp, tmp_path, fake_openai):
    """A narrower panel wraps a card's text on more lines: the card grows instead of
    its tags overlapping the next card, and shrinks back when the panel widens."""
    profile = configure_profile(tmp_path / "profile", fake_openai)
    asyncio.run(seed(profile))
    long_fact = (
        "The user is learning to restore antique clocks, starting with a French "
        "mantel clock from 1890 that belonged to their grandmother in Annecy"
    )

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        item = await session.assistant.memories.remember(long_fact, explicit=True)
        await wait_until(lambda: memory_row(session, item.id))
        window.resize(1400, 800)
        sizes = window.splitter.sizes()

        def panel_width(width: int) -> None:
            window.splitter.setSizes([sizes[0], sum(sizes) - sizes[0] - width, width])

        def card() -> tuple[int, int]:
            rect = panel.list.visualRect(memory_row(session, item.id))
            return rect.width(), rect.height()

        panel_width(460)
        wide_width, wide_height = await wait_until(lambda: card()[0] > 400 and card())
        panel_width(260)
        narrow = await wait_until(lambda: card()[0] < 260 and card()[1] > wide_height and card())

        # Once laid out again, the next card starts below this one: nothing overlaps.
        def overlaps() -> bool:
            mine = panel.list.visualRect(memory_row(session, item.id))
            return any(
                panel.list.visualRect(window.memories_model.index(row)).intersects(mine)
                for row in range(window.memories_model.rowCount())
                if row != memory_row(session, item.id).row()
            )

        await wait_until(lambda: not overlaps())
        panel_width(460)
        await wait_until(lambda: card()[0] > 400 and card()[1] == wide_height)
        assert narrow[1] > wide_height and wide_width > narrow[0]

    run_in_session(gui_session(profile), scenario)


def test_the_memory_search_finds_a_topic_most_relevant_first(qapp, tmp_path, fake_openai):
    """ "food" shows the diet and the allergy (no word in common with it), "family" the
    sister, and the kids once they are learned; nothing off the topic."""
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        await wait_until(lambda: session.assistant is not None)
        memories = session.assistant.memories
        for text, category in (
            ("The user is vegetarian", "Health"),
            ("The user is allergic to peanuts", "Health"),
            ("The user works as a data engineer", "Professional"),
            ("The user's sister lives in Oslo", "Relationship"),
        ):
            await memories.remember(text, category=category, explicit=True)
        panel, model = session.window.memory_panel, session.window.memories_model
        await wait_until(lambda: model.rowCount() == 4)

        def shown() -> list[str]:
            return [model.index(r).data(MemoryRoles.CONTENT) for r in range(model.rowCount())]

        panel.search.setText("food")
        await wait_until(lambda: model.query.near and model.settled)
        assert set(shown()) == {"The user is vegetarian", "The user is allergic to peanuts"}

        panel.search.setText("family")
        await wait_until(lambda: model.query.text == "family" and model.query.near)
        await wait_until(lambda: model.settled)
        assert shown() == ["The user's sister lives in Oslo"]
        # Learned while the search is shown, and on its topic: the search runs again.
        await memories.remember("The user has two kids", category="Relationship", explicit=True)
        await wait_until(lambda: model.rowCount() == 2 and model.settled)
        assert set(shown()) == {"The user's sister lives in Oslo", "The user has two kids"}

    run_in_session(gui_session(profile), scenario)


def test_an_import_beside_the_window_reaches_the_panel_as_one_reload(
    qapp, tmp_path, fake_openai, monkeypatch
):
    from acai_desktop.core.profile import outside_changes
    from tests.support.memory import memory_services

    monkeypatch.setattr(outside_changes, "BULK_CHANGES", 3)
    profile = configure_profile(tmp_path / "profile", fake_openai)
    facts = [f"The user has visited city number {n}" for n in range(6)]

    async def scenario(session: AppController):
        window = session.window
        model = window.memories_model
        await wait_until(lambda: session.assistant is not None and model.settled)
        inserted = []
        model.rowsInserted.connect(lambda *_: inserted.append(1))
        resets = []
        model.modelReset.connect(lambda: resets.append(1))
        async with memory_services(profile.data_dir) as (_store, other, _log):
            for fact in facts:  # another process of the app, writing at once
                await other.remember(fact, explicit=True)
        # The window looks for other processes' writes every few seconds.
        await wait_until(lambda: model.settled and model.rowCount() == len(facts))
        assert resets and not inserted  # read again once, not taken one by one

    run_in_session(gui_session(profile), scenario)
