"""The search box over conversations (Ctrl+K), over the real core: typing searches after
a pause, a newer query wins, Down/Up/Enter open a result (a message at its place,
highlighted; a title its conversation), nothing found says so, Esc closes."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest

from acai_desktop.core.records.conversations import ConversationHit
from acai_desktop.core.store import conversations as conversation_sql
from acai_desktop.core.store.database import Store
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_desktop.ui.models.search_results_model import (
    TITLE_MATCH_TEXT,
    SearchResultsModel,
    SearchRoles,
)
from acai_desktop.ui.widgets.search_dialog import (
    DEBOUNCE_MS,
    NOTHING_FOUND_TEXT,
    SearchDialog,
)
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

TOLD = "My bike is a blue Gazelle that I bought in Utrecht."


def _seed(path) -> dict[str, int]:
    """A long chat with the bike near its start, and a later one on something else."""

    def write(db):
        bikes = conversation_sql.create_conversation(db, "Bikes and errands")
        told = None
        for turn in range(24):
            if turn == 2:
                told = conversation_sql.add_message(db, bikes.id, "user", TOLD)
                continue
            role = "user" if turn % 2 == 0 else "assistant"
            conversation_sql.add_message(db, bikes.id, role, f"Errand number {turn} is done.")
        garden = conversation_sql.create_conversation(db, "Garden plans")
        conversation_sql.add_message(db, garden.id, "user", "Tomatoes want sun.")
        return {"bikes": bikes.id, "told": told.id, "garden": garden.id}

    async def seed():
        store = await Store.open(path)
        try:
            return await store.run(write)
        finally:
            await store.close()

    return run(seed())


def test_ctrl_k_finds_a_message_and_opens_it_highlighted(qapp, tmp_path, fake_openai):
    fake_openai.responder = fake_model
    profile = configure_profile(tmp_path / "profile", fake_openai)
    ids = _seed(profile.database_path)

    async def scenario(session: AppController):
        window = session.window
        messages = window.messages_model
        await wait_until(lambda: messages.conversation_id == ids["garden"])
        await wait_until(lambda: session.assistant is not None)
        window.activateWindow()

        # Ctrl+K opens the search box with the typing in it.
        assert window.search_action.shortcut().toString() == "Ctrl+K"
        QTest.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        dialog = await wait_until(lambda: window.findChild(SearchDialog))
        assert dialog.isVisible() and dialog.focusWidget() is dialog.input
        asked = []
        dialog.search_requested.connect(asked.append)
        QTest.keyClicks(dialog.input, "gazelle UTRE")
        assert asked == []  # not while typing
        await wait_until(lambda: dialog.model.rowCount() > 0)
        assert asked == ["gazelle UTRE"]  # once, after the pause
        first = dialog.model.index(0)
        assert first.data(SearchRoles.MESSAGE_ID) == ids["told"]
        assert first.data(SearchRoles.CONVERSATION_ID) == ids["bikes"]
        assert first.data() == f"Bikes and errands\nYou: {TOLD}"
        assert dialog.area.currentWidget() is dialog.results
        # An older query's answer arriving late is dropped.
        assert not dialog.show_results("gazelle", [])
        assert dialog.model.rowCount() == 1
        window.grab().save("/tmp/acai-search-typed.png")

        # Down, Up and Enter, without leaving the line edit: the chat opens at the
        # message, scrolled to it and highlighted, and the search box closes.
        QTest.keyClick(dialog.input, Qt.Key.Key_Down)
        QTest.keyClick(dialog.input, Qt.Key.Key_Up)
        assert dialog.results.currentIndex().row() == 0
        QTest.keyClick(dialog.input, Qt.Key.Key_Return)
        await wait_until(lambda: messages.conversation_id == ids["bikes"])
        await wait_until(lambda: window.chat_view.highlighted_message_id == ids["told"])
        await wait_until(lambda: window.findChild(SearchDialog) is None)
        row = next(
            r
            for r in range(messages.rowCount())
            if messages.index(r).data(MessageRoles.ID) == ids["told"]
        )
        shown = window.chat_view.visualRect(messages.index(row))
        assert window.chat_view.viewport().rect().intersects(shown)
        last = window.chat_view.visualRect(messages.index(messages.rowCount() - 1))
        assert not window.chat_view.viewport().rect().intersects(last)

        # A title hit opens its conversation (from the sidebar's button this time).
        window.search_button.click()
        dialog = await wait_until(lambda: window.findChild(SearchDialog))
        QTest.keyClicks(dialog.input, "garden")
        await wait_until(lambda: dialog.model.rowCount() > 0)
        title_hit = dialog.model.index(0)
        assert title_hit.data(SearchRoles.MESSAGE_ID) is None
        assert title_hit.data() == f"Garden plans\n{TITLE_MATCH_TEXT}"
        QTest.keyClick(dialog.input, Qt.Key.Key_Enter)
        await wait_until(lambda: messages.conversation_id == ids["garden"])

        # Nothing found says so; Esc closes.
        window.search_action.trigger()
        dialog = await wait_until(lambda: window.findChild(SearchDialog))
        QTest.keyClicks(dialog.input, 'zebra "NEAR(')
        await wait_until(lambda: dialog.status_label.text().startswith("Nothing found"))
        assert dialog.status_label.text() == NOTHING_FOUND_TEXT.format(query='zebra "NEAR(')
        assert dialog.area.currentWidget() is dialog.status_label
        QTest.keyClick(dialog.input, Qt.Key.Key_Escape)
        await wait_until(lambda: window.findChild(SearchDialog) is None)
        assert messages.conversation_id == ids["garden"]
        return session

    run_in_session(gui_session(profile), scenario)


def test_typing_waits_for_a_pause_and_the_newest_query_wins(qtbot):
    dialog = SearchDialog()
    qtbot.addWidget(dialog)
    asked = []
    dialog.search_requested.connect(asked.append)
    QTest.keyClicks(dialog.input, "bik")
    QTest.keyClicks(dialog.input, "e")
    qtbot.wait(DEBOUNCE_MS // 2)
    assert asked == []
    qtbot.waitUntil(lambda: asked == ["bike"], timeout=DEBOUNCE_MS * 5)
    hit = ConversationHit(1, "Bikes", 7, "my bike", "2025-01-02T10:00:00+00:00", "user")
    assert not dialog.show_results("bik", [hit])  # typed before "bike": stale
    assert dialog.model.rowCount() == 0
    assert dialog.show_results("bike", [hit])
    assert dialog.model.rowCount() == 1
    chosen = []
    dialog.result_chosen.connect(lambda *args: chosen.append(args))
    dialog.results.activated.emit(dialog.model.index(0))
    assert chosen == [(1, 7)]
    # Enter before the pause searches at once; it doesn't open the older query's result.
    QTest.keyClicks(dialog.input, "s")
    QTest.keyClick(dialog.input, Qt.Key.Key_Return)
    assert asked == ["bike", "bikes"] and chosen == [(1, 7)]
    # Clearing the box clears the results and never searches for "".
    dialog.input.clear()
    qtbot.wait(DEBOUNCE_MS * 2)
    assert asked == ["bike", "bikes"] and dialog.model.rowCount() == 0


def test_search_results_model_passes_the_model_tester(qtmodeltester):
    model = SearchResultsModel()
    hits = [
        ConversationHit(1, "<b>Bikes</b>", None, "", "2025-01-02T10:00:00+00:00"),
        ConversationHit(2, "", 9, "…blue Gazelle…", "2025-01-03T10:00:00+00:00", "assistant", True),
    ]
    model.set_hits(hits)
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 2 and model.rowCount(model.index(0)) == 0
    assert model.index(0).data() == f"<b>Bikes</b>\n{TITLE_MATCH_TEXT}"  # literal text
    assert model.index(1).data() == "New conversation  · temporary\nACAI: …blue Gazelle…"
    assert model.index(1).data(SearchRoles.HIT) is hits[1]
    assert model.data(QModelIndex()) is None
    model.set_hits([])
    assert model.rowCount() == 0
