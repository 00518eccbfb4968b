"""A 50,000-character paste: the user's bubble shows its first lines with *Show more* (a
click unfolds it, *Show less* folds it again), and the chat says what reaches the model,
measured against the prompt budget of the model settings, in the bubble and in the
composer before sending. The last test sends one through the real session and checks
the note's claim against the prompt the scripted server received."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.records.conversations import Message, MessageStatus
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.message_document import MORE_SCHEME
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until

AT = "2025-01-02T10:00:00+00:00"
PASTE = "\n".join(
    f"Line {n}: the quarterly report says revenue grew in region {n % 7}." for n in range(800)
)
BUDGET = 3000


def link_point(view, row: int, href: str) -> QPoint:
    """Where the link ``href`` is drawn in ``row``'s bubble (viewport coordinates)."""
    index = view.model().index(row, 0)
    text_rect = view.delegate.bubble_layout(view.visualRect(index), index).text
    document = view.document_at(row)
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                offset = fragment.position() - block.position() + 1
                line = block.layout().lineForTextPosition(offset)
                x, _ = line.cursorToX(offset)
                top = document.documentLayout().blockBoundingRect(block).top() + line.y()
                return QPoint(
                    text_rect.left() + int(x), text_rect.top() + int(top + line.height() / 2)
                )
            fragments += 1
        block = block.next()
    raise AssertionError(f"no {href} link in row {row}")


def test_a_long_paste_shows_folded_and_unfolds_on_click(window, qtbot):
    window.set_prompt_budget(BUDGET)
    paste = Message(1, 1, "user", PASTE, MessageStatus.COMPLETE, AT)
    window.show_conversation(1, "Report", [paste])
    view = window.chat_view
    qtbot.waitUntil(lambda: view.visualRect(view.model().index(0, 0)).height() > 0)

    folded = view.document_at(0).toPlainText()
    assert folded.startswith("Line 0:") and "Line 799" not in folded
    assert f"of {len(PASTE):,} characters shown" in folded and "Show more" in folded
    assert view.visualRect(view.model().index(0, 0)).height() < view.viewport().height()
    tokens = estimate_tokens(PASTE)
    assert tokens > BUDGET
    assert f"About {tokens:,} tokens, over the {BUDGET:,}-token context budget" in folded
    assert "with no memories, documents or earlier messages" in folded

    point = link_point(view, 0, f"{MORE_SCHEME}:unfold")
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    unfolded = view.document_at(0).toPlainText()
    assert "Line 300:" in unfolded and "Show less" in unfolded  # up to the chat's limit
    assert "Show all of it" in unfolded  # the rest in a viewer
    qtbot.waitUntil(lambda: view.visualRect(view.model().index(0, 0)).height() > 2000)

    point = link_point(view, 0, f"{MORE_SCHEME}:fold")
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert "Show more" in view.document_at(0).toPlainText()
    qtbot.waitUntil(
        lambda: view.visualRect(view.model().index(0, 0)).height() < view.viewport().height()
    )


def test_a_short_message_shows_whole_without_a_note(window, qtbot):
    window.set_prompt_budget(BUDGET)
    window.show_conversation(
        1, "Tea", [Message(1, 1, "user", "I like green tea.", MessageStatus.COMPLETE, AT)]
    )
    assert window.chat_view.document_at(0).toPlainText() == "I like green tea."


def test_the_composer_says_what_the_budget_means_before_sending(window):
    window.set_prompt_budget(BUDGET)
    composer = window.composer
    composer.set_text(PASTE)
    assert not composer.budget_label.isHidden()
    assert f"over the {BUDGET:,}-token context budget" in composer.budget_label.text()
    composer.set_text("A" * 2000)  # 2,000 characters, but about 500 tokens: room left
    assert composer.budget_label.isHidden()
    composer.set_text("word " * 2000)  # about 2,000 of 3,000 tokens
    assert "of the 3,000 tokens of the context budget" in composer.budget_label.text()
    composer.set_text("Hello")
    assert composer.budget_label.isHidden()


def test_the_budget_is_the_model_settings_and_the_note_says_what_was_sent(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai, context_budget_tokens=2000)

    async def scenario(session: AppController):
        window = session.window
        assert window.composer.prompt_budget_tokens == 2000
        window.composer.input.setPlainText(PASTE)
        assert "over the 2,000-token context budget" in window.composer.budget_label.text()
        QTest.mouseClick(window.composer.send_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: window.messages_model.rowCount() == 2)
        await wait_until(lambda: not window.composer.busy)
        note = window.chat_view.document_at(0).toPlainText()
        assert "over the 2,000-token context budget: all of it goes to the model" in note
        # What the note says: the whole message went, and alone (no memory block).
        # The answer is the streamed call (a title, a summary or a one-token warm-up of the
        # next prompt may come after it).
        answer_requests = [
            r.json
            for r in fake_openai.chat_requests()
            if r.json.get("stream") and r.json.get("max_tokens") != 1
        ]
        prompt = answer_requests[-1]["messages"]
        assert prompt[-1] == {"role": "user", "content": PASTE}
        assert [m["role"] for m in prompt] == ["system", "user"]

    run_in_session(gui_session(profile), scenario)
