"""Images in the window, over the real core and the scripted server: chosen with the
paperclip, pasted from the clipboard or dropped, shown as thumbnail chips, sent with
the message as the files' bytes, and shown under the message sent; a chat's model that
can't see images says so, and the message and its image stay."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QRect, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from acai_desktop.core.models.presets import RoleModels
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.models.messages_model import MessageRoles
from acai_lab.scripted_openai import Reply, image_parts
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.images import data_url_of, write_png
from tests.ui.test_attachments_session import chip_states
from tests.ui.test_documents_session import drop_files, send

QUESTION = "What is in these pictures?"


def _streamed(server) -> list[dict]:
    return [r.json for r in server.chat_requests() if r.json.get("stream")]


def _thumbnail_shown(window, name: str) -> bool:
    chips = [c for c in window.composer.attachments.chips() if c.document.name == name]
    return bool(chips) and not chips[0].thumbnail.pixmap().isNull()


def test_images_are_attached_shown_and_sent_with_the_message(qapp, tmp_path, fake_openai):
    fake_openai.responder = lambda request: Reply(text=f"Seen by {request['model']}.")
    profile = configure_profile(tmp_path / "profile", fake_openai, models=RoleModels.same("gpt-4o"))
    photo, dropped, fake = (
        tmp_path / "photo.png",
        tmp_path / "<u>dropped<u>.png",
        tmp_path / "fake.png",
    )
    photo_bytes = write_png(photo, 40, 30)
    dropped_bytes = write_png(dropped, 20, 20, (20, 90, 200))
    fake.write_text("no picture <b>here</b>\n", encoding="utf-8")
    pasted = QImage(30, 20, QImage.Format.Format_RGB32)
    pasted.fill(QColor("seagreen"))

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        # The paperclip's dialog offers images; the user picks a photo and a fake.
        QTest.mouseClick(composer.attach_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(QFileDialog))
        assert any(f.startswith("Images (*.png") for f in dialog.nameFilters())
        dialog.filesSelected.emit([str(photo), str(fake)])
        await wait_until(lambda: _thumbnail_shown(window, "photo.png"))
        assert chip_states(window) == {"photo.png": "image"}
        note = composer.attach_note.text()
        assert note.startswith("Not attached — fake.png is not a PNG, JPEG, WebP or GIF image")
        assert composer.attach_note.textFormat() == Qt.TextFormat.PlainText
        # A picture pasted from the clipboard, and a file dropped onto the chat.
        clipboard = QMimeData()
        clipboard.setImageData(pasted)
        assert composer.input.canInsertFromMimeData(clipboard)
        composer.input.insertFromMimeData(clipboard)
        await wait_until(lambda: _thumbnail_shown(window, "Pasted image, 30×20"))
        drop_files(window.chat_view.viewport(), [dropped])
        await wait_until(lambda: _thumbnail_shown(window, "<u>dropped<u>.png"))
        assert composer.text() == ""  # nothing typed in by the paste or the drop
        # A file's name is text, never markup.
        [chip] = [c for c in composer.attachments.chips() if "dropped" in c.document.name]
        assert chip.name_label.textFormat() == Qt.TextFormat.PlainText
        assert chip.name_label.text() == "<u>dropped<u>.png"

        send(window, QUESTION)
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and not composer.busy)
        sent = messages.index(0)
        await wait_until(lambda: len(sent.data(MessageRoles.IMAGES)) == 3)
        await wait_until(lambda: all(i.decoded for i in sent.data(MessageRoles.IMAGES)))
        layout = window.chat_view.delegate.bubble_layout(QRect(0, 0, 900, 0), sent)
        assert chip_states(window) == {}  # carried by the message: out of the composer
        copies = {d.name: Path(d.path).read_bytes() for d in await _attached(session)}
        return messages.index(1).data(0), sent.data(MessageRoles.ATTACHMENTS), layout, copies

    answer, names, layout, copies = run_in_session(gui_session(profile), scenario)
    assert answer == "Seen by gpt-4o."
    assert names == ("photo.png", "Pasted image, 30×20", "<u>dropped<u>.png")
    # The thumbnails sit under the bubble, before the message's notes.
    assert len(layout.images) == 3 and all(r.top() > layout.bubble.bottom() for r in layout.images)
    assert all(rect.top() > layout.images[0].bottom() for rect, *_ in layout.notes)
    [asked] = _streamed(fake_openai)
    assert image_parts(asked["messages"][-1]) == [
        data_url_of(photo_bytes),
        data_url_of(copies["Pasted image, 30×20"]),
        data_url_of(dropped_bytes),
    ]
    assert QImage.fromData(copies["Pasted image, 30×20"]).pixelColor(3, 3) == QColor("seagreen")


async def _attached(session: AppController):
    return await session.assistant.attachments.of_conversation(session.chat.conversation_id)


def test_a_model_that_cant_see_says_so_and_the_image_stays(qapp, tmp_path, fake_openai):
    profile = configure_profile(
        tmp_path / "profile", fake_openai, models=RoleModels.same("llama3.1:8b")
    )
    photo = tmp_path / "photo.png"
    write_png(photo)

    async def scenario(session: AppController):
        window = session.window
        composer = window.composer
        drop_files(window.transcript_empty_state, [photo])
        await wait_until(lambda: _thumbnail_shown(window, "photo.png"))
        send(window, QUESTION)
        messages = window.messages_model
        await wait_until(lambda: messages.rowCount() == 2 and not composer.busy)
        await wait_until(lambda: messages.index(1).data(MessageRoles.STATUS) == "error")
        await wait_until(lambda: len(messages.index(0).data(MessageRoles.IMAGES)) == 1)
        return (
            messages.index(0).data(MessageRoles.CONTENT),
            messages.index(1).data(MessageRoles.ERROR),
            chip_states(window),
        )

    question, error, chips = run_in_session(gui_session(profile), scenario)
    assert _streamed(fake_openai) == []  # refused before any call
    # The message keeps its image (under it, for Retry), no longer in the composer.
    assert question == QUESTION and chips == {}
    assert "llama3.1:8b can't see images" in error and "chat's ⚙" in error
