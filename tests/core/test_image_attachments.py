"""Images attached to a chat, on a real profile: PNG, JPEG, WebP and GIF are accepted by
what they contain (a copy kept, ready at once, nothing indexed); an image too big, cut
short, of another type or no image at all is refused at attach time, saying why, with
nothing kept; a pasted image is named by its size; the library sends images to chats."""

from __future__ import annotations

import sqlite3

import pytest

from acai_desktop.core.documents.images import MAX_IMAGE_BYTES, image_facts
from acai_desktop.core.documents.model import DocumentReadError
from acai_desktop.core.profile.paths import Profile
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.images import (
    GIF_1X1,
    JPEG_3X2,
    WEBP_LOSSLESS_3X2,
    WEBP_LOSSY_3X2,
    png_bytes,
)


@pytest.mark.parametrize(
    ("data", "mime", "size"),
    [
        (png_bytes(7, 5), "image/png", (7, 5)),
        (JPEG_3X2, "image/jpeg", (3, 2)),
        (WEBP_LOSSY_3X2, "image/webp", (3, 2)),
        (WEBP_LOSSLESS_3X2, "image/webp", (3, 2)),
        (GIF_1X1, "image/gif", (1, 1)),
    ],
)
def test_each_accepted_format_is_read_from_its_bytes_and_refused_when_cut_short(data, mime, size):
    facts = image_facts(data, "picture")
    assert (facts.mime, (facts.width, facts.height)) == (mime, size)
    with pytest.raises(DocumentReadError, match="damaged or cut short"):
        image_facts(data[: len(data) // 2], "picture")


def _rows(profile_dir) -> list[tuple]:
    with sqlite3.connect(Profile.at(profile_dir).database_path) as db:
        return db.execute(
            "SELECT name, kind, status, chunk_count, sha256 FROM documents"
        ).fetchall()


def test_images_are_attached_ready_and_unreadable_ones_refused_at_once(tmp_path, fake_openai):
    files = tmp_path / "files"
    files.mkdir()
    (files / "photo.png").write_bytes(png_bytes())
    (files / "really-a-jpeg.png").write_bytes(JPEG_3X2)
    (files / "cut.png").write_bytes(png_bytes(40, 40)[:60])
    (files / "notes.png").write_text("not a picture at all\n", encoding="utf-8")
    (files / "scan.bmp").write_bytes(b"BM" + b"\x00" * 64)
    with open(files / "huge.jpg", "wb") as huge:  # sparse: nothing is written but its size
        huge.write(JPEG_3X2[:4])
        huge.truncate(MAX_IMAGE_BYTES + 1)

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            attachments = assistant.attachments
            chat = await assistant.conversations.create()
            accepted = [
                await attachments.attach_file(files / name, chat.id)
                for name in ("photo.png", "really-a-jpeg.png")
            ]
            pasted = await attachments.attach_image(png_bytes(1280, 720), chat.id)
            refusals = {}
            for name in ("cut.png", "notes.png", "scan.bmp", "huge.jpg"):
                with pytest.raises(DocumentReadError) as refused:
                    await attachments.attach_file(files / name, chat.id)
                refusals[name] = str(refused.value)
            report = await assistant.documents.add([files / "photo.png"])
            jobs = await assistant.runner.jobs.list()
            return accepted, pasted, refusals, report, jobs

    accepted, pasted, refusals, report, jobs = run(scenario())
    assert [(d.name, d.kind, str(d.status)) for d in accepted] == [
        ("photo.png", "image", "ready"),
        ("really-a-jpeg.png", "image", "ready"),
    ]
    assert pasted.name == "Pasted image, 1280×720" and pasted.path.endswith("pasted.png")
    assert "damaged or cut short" in refusals["cut.png"]
    assert "not a PNG, JPEG, WebP or GIF image" in refusals["notes.png"]
    assert ".bmp images can't be sent to a model" in refusals["scan.bmp"]
    assert "an image may be at most 20 MB" in refusals["huge.jpg"]
    # The library is for text: an image is pointed to a chat.
    assert "attach it in a chat" in report.refused[0][1]
    assert not any(job.kind == "index_document" for job in jobs)  # nothing to index
    rows = _rows(tmp_path / "profile")
    assert [(name, kind, status, chunks) for name, kind, status, chunks, _ in rows] == [
        ("photo.png", "image", "ready", 0),
        ("really-a-jpeg.png", "image", "ready", 0),
        ("Pasted image, 1280×720", "image", "ready", 0),
    ]
    copies = sorted(p.name for p in (tmp_path / "profile" / "attachments").rglob("*.*"))
    assert copies == ["pasted.png", "photo.png", "really-a-jpeg.png"]  # the refused: none
