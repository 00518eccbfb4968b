"""Untrusted text is shown as the literal text it is, never rendered as HTML.

Memories (their content and category), an imported file's ``meta``, a conversation's
title and a model server's error body all hold HTML here, with an ``<img>`` pointing at
a real image file on disk. Every widget showing them must show the characters as they
are: no bold, no image loaded.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QTextDocument
from PySide6.QtGui import Qt as QtGuiNamespace  # where PySide6 puts Qt::mightBeRichText
from PySide6.QtWidgets import QApplication, QLabel, QListView, QToolTip

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.memory.transfer import import_memories
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.detection import DetectionReport, ProviderProbe
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings, save_model_settings
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.untrusted import tooltip_text
from acai_desktop.ui.widgets.dialogs import DeleteConversationDialog
from acai_desktop.ui.widgets.history_dialogs import MemoryDetailsDialog
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from acai_lab.scripted_openai import Reply
from tests.core.conftest import settings_for
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.memory import shared_embedder


def html_with_image(image: str, words: str) -> str:
    return f'<img src="file://{image}"><b>{words}</b>'


def shown_as(text: str) -> QTextDocument:
    """What a tooltip or an auto-format label makes of ``text``: Qt guesses its format."""
    document = QTextDocument()
    if QtGuiNamespace.mightBeRichText(text):
        document.setHtml(text)
    else:
        document.setPlainText(text)
    return document


def images_in(document: QTextDocument) -> list[str]:
    found = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.charFormat().isImageFormat():
                found.append(fragment.charFormat().toImageFormat().name())
            iterator += 1
        block = block.next()
    return found


def assert_literal(shown: str, expected: str) -> None:
    document = shown_as(shown)
    assert images_in(document) == []
    assert expected in document.toPlainText()


def tooltip_of(view: QListView, row: int) -> str:
    """Hover ``row`` the way Qt does (a ToolTip help event) and read the tooltip shown."""
    QToolTip.hideText()
    rect = view.visualRect(view.model().index(row, 0))
    event = QHelpEvent(
        QEvent.Type.ToolTip, rect.center(), view.viewport().mapToGlobal(rect.center())
    )
    QApplication.sendEvent(view.viewport(), event)
    return QToolTip.text()


async def seed(profile: Profile, image: str, tmp_path) -> dict[str, str]:
    texts = {
        "title": html_with_image(image, "Bold title"),
        "content": html_with_image(image, "likes tea"),
        "category": "<i>Drinks</i>",
        "pinned": html_with_image(image, "pinned fact"),
        "conflict": html_with_image(image, "likes coffee"),
        "meta": html_with_image(image, "meta value"),
    }
    assistant = await open_assistant(
        profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder()
    )
    try:
        conversation = await assistant.conversations.create(texts["title"])
        await assistant.conversations.add_message(conversation.id, "user", "Hello")
        await assistant.memories.remember(
            texts["content"], category=texts["category"], explicit=True
        )
        export = {
            "format": "acai-desktop-memories",
            "version": 1,
            "memories": [
                {"uid": "pinned", "content": texts["pinned"], "pinned": True},
                {
                    "uid": "conflict",
                    "content": texts["conflict"],
                    "status": "conflict",
                    "conflicts_with_uid": "pinned",
                },
                {
                    "uid": "meta",
                    "content": "A conflict from an imported file",
                    "status": "conflict",
                    "meta": {"conflicts_with": texts["meta"]},
                },
            ],
        }
        path = tmp_path / "import.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        await import_memories(assistant.memories, path)
    finally:
        await assistant.close()
    return texts


# The offscreen platform can't raise the tooltip's window, and says so.
@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_html_in_every_stored_imported_and_server_field_is_shown_as_text(
    qapp, tmp_path, fake_openai
):
    image = tmp_path / "pixel.png"
    picture = QImage(8, 8, QImage.Format.Format_RGB32)
    picture.fill(QColor("red"))
    assert picture.save(str(image))
    profile = configure_profile(tmp_path / "profile", fake_openai)
    texts = asyncio.run(seed(profile, str(image), tmp_path))
    # The next start asks the provider for an embedding, and the server refuses with an
    # error body holding HTML: the window opens without a model and says why.
    server_body = html_with_image(str(image), "server says no")
    save_model_settings(
        profile.settings_path, settings_for(fake_openai, embedding_source="provider")
    )
    fake_openai.script(Reply(status=401, error_message=server_body), endpoint="embeddings")

    async def scenario(session: AppController):
        window, panel = session.window, session.window.memory_panel
        await wait_until(lambda: window.memories_model.rowCount() == 4)

        # The "model can't be used" banner, with the server's error body.
        assert window.banner.isVisible()
        assert window.banner_label.textFormat() == Qt.TextFormat.PlainText
        assert server_body in window.banner_label.text()

        # The conversation header and its tooltip; the sidebar row's tooltip.
        assert window.conversation_title.textFormat() == Qt.TextFormat.PlainText
        assert window.conversation_title.text() == texts["title"]
        assert_literal(window.conversation_title.toolTip(), texts["title"])
        assert_literal(tooltip_of(window.conversation_list, 0), texts["title"])

        # Every memory card's tooltip.
        for row in range(panel.model.rowCount()):
            content = panel.model.index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
            shown = tooltip_of(panel.list, row)
            assert shown, f"no tooltip on card {row}"
            assert_literal(shown, content)

        # The conflict banner quotes the pinned memory it contradicts.
        conflict_id = next(
            item.id for item in window.memories_model.items() if item.content == texts["conflict"]
        )
        assert panel.select_memory(conflict_id)
        assert panel.conflict_bar.label.textFormat() == Qt.TextFormat.PlainText
        assert f"This contradicts “{texts['pinned'][:40]}" in panel.conflict_bar.label.text()

        # Memory Details of the imported conflict: its meta value is text, not an image;
        # the details of the first memory show its category as typed.
        for content, expected in (
            ("A conflict from an imported file", texts["meta"]),
            (texts["content"], texts["category"]),
        ):
            memory_id = next(
                item.id for item in window.memories_model.items() if item.content == content
            )
            session.memory_panel.show_details(memory_id)
            details = await wait_until(lambda: window.findChild(MemoryDetailsDialog))
            await wait_until(lambda d=details: "HISTORY" in d.browser.toPlainText())
            assert images_in(details.browser.document()) == []
            assert expected in details.browser.toPlainText()
            assert content in details.browser.toPlainText()
            details.close()
            await wait_until(lambda: window.findChild(MemoryDetailsDialog) is None)

        # And no label anywhere in the window renders any of it.
        markers = ("<img", "<b>", "<i>")
        for label in window.findChildren(QLabel):
            if any(marker in label.text() for marker in markers):
                assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()

    run_in_session(gui_session(profile), scenario)


def test_a_tooltip_shows_exactly_the_text_it_was_given(qapp):
    for text in (
        "<b>bold</b>",
        "a < b and c > d",
        "&lt;escaped&gt; already",
        "two\nlines <img src='file:///x.png'>",
        "plain",
    ):
        document = shown_as(tooltip_text(text))
        assert document.toPlainText() == text
        assert images_in(document) == []
    assert tooltip_text("") == ""
    assert tooltip_text(None) == ""


def test_dialogs_show_titles_server_answers_and_refusals_as_text(qapp):
    html = '<img src="file:///etc/hostname"><b>bold</b>'
    delete = DeleteConversationDialog(1, html)
    assert delete.name_label.textFormat() == Qt.TextFormat.PlainText
    assert delete.name_label.text() == html

    settings = SettingsDialog(ModelSettings.for_preset("ollama"))
    # A server on this computer answered with model names of its choosing.
    probe = ProviderProbe(ProviderName.OLLAMA, "http://localhost:11434/v1", True, [html])
    settings.show_detection(DetectionReport([probe], False, False, None, ProviderName.OLLAMA))
    settings.saving_failed(f"Not saved: {html}")
    for label in (settings.provider_fields.detect_result, settings.error_label):
        assert label.textFormat() == Qt.TextFormat.PlainText
        assert html in label.text()
    for dialog in (delete, settings):
        dialog.close()
