"""Images attached in a chat: what is accepted, checked when attached, and the form a
model receives (docs/architecture.md, "Attachments").

An image is an attachment with nothing to index: a model that sees reads it whole, so it
is never cut into passages or searched, and it is ready at once. What is accepted is
what the chat-completions API takes from every provider: PNG, JPEG, WebP and GIF, up to
:data:`MAX_IMAGE_BYTES`. The format is read from the file's first bytes, not its name
(a JPEG called ``.png`` is sent as the JPEG it is), and the file is checked whole enough
to be refused at attach time rather than by a model server mid-turn: its header must
give a size, and its end must be there (a PNG's ``IEND``, a JPEG's end marker, a GIF's
trailer, a WebP's RIFF length), which is what a download cut short or a file that only
has an image's name lacks. Decoding every pixel would need an image library the core
does not carry; the window's thumbnail is decoded by Qt, and shows a placeholder for
the rare file that passes these checks and still does not decode.
"""

from __future__ import annotations

import base64
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from acai_desktop.core.documents.model import DocumentReadError
from acai_desktop.core.files.regular import NotRegularFileError, open_regular

#: A document's kind for an attached image (documents.kind; the readers' kinds are text).
IMAGE_KIND = "image"
#: The largest image accepted: providers take about this much in one request (OpenAI:
#: 20 MB), and a bigger photo gains nothing once the server scales it down.
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_LABEL = "20 MB"
#: The file types offered for an image (the file dialog's filter); others are refused.
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".jfif", ".webp", ".gif")
#: What a message carries for each image, in the text the model and the history read.
IMAGE_MARKER = "[image: {name}]"
#: A pasted image is kept under this name (its document's name says what it is).
PASTED_IMAGE_FILE = "pasted.png"
ACCEPTED = "PNG, JPEG, WebP or GIF"


@dataclass(frozen=True)
class ImageFacts:
    mime: str  # image/png, image/jpeg, image/webp, image/gif
    width: int
    height: int


def image_marker(name: str) -> str:
    return IMAGE_MARKER.format(name=name)


def pasted_image_name(facts: ImageFacts) -> str:
    """What a pasted image is called in its chat: "Pasted image, 1280×720"."""
    return f"Pasted image, {facts.width}×{facts.height}"


def read_image(path: Path) -> tuple[bytes, ImageFacts]:
    """The image at ``path`` and its facts, or the reason it is refused (its type, the
    size limit, a file that is no image or is cut short, one that can't be read)."""
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        raise DocumentReadError(
            f"{path.name}: {path.suffix.lower()} images can't be sent to a model. Save it as "
            f"{ACCEPTED} and attach it again."
        )
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_IMAGE_BYTES:
                raise DocumentReadError(too_big(path.name, size))
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except NotRegularFileError as error:
        raise DocumentReadError(f"{path.name} is {error.strerror}; attach an image file.") from None
    except FileNotFoundError:
        raise DocumentReadError(f"{path} does not exist (moved or deleted?).") from None
    except PermissionError:
        raise DocumentReadError(
            f"{path.name} can't be read: permission denied. Check the file's permissions."
        ) from None
    except OSError as error:
        raise DocumentReadError(f"{path.name} can't be read ({error.strerror or error}).") from None
    if len(data) > MAX_IMAGE_BYTES:  # it grew since fstat()
        raise DocumentReadError(too_big(path.name, len(data)))
    return data, image_facts(data, path.name)


def too_big(name: str, size: int) -> str:
    return (
        f"{name} is {size / 1024 / 1024:.1f} MB; an image may be at most {MAX_IMAGE_LABEL}. "
        "Save it smaller (a lower resolution or JPEG) and attach it again."
    )


def image_facts(data: bytes, name: str) -> ImageFacts:
    """The format and size of the image in ``data``; DocumentReadError, naming the file,
    when it is not a whole PNG, JPEG, WebP or GIF image."""
    if not data:
        raise DocumentReadError(f"{name} is empty: there is no image in it.")
    if len(data) > MAX_IMAGE_BYTES:
        raise DocumentReadError(too_big(name, len(data)))
    reader = _READERS.get(_format_of(data))
    if reader is None:
        raise DocumentReadError(
            f"{name} is not a {ACCEPTED} image (its contents are something else), so a "
            f"model can't read it. Save it as {ACCEPTED} and attach it again."
        )
    mime, whole, (width, height) = reader(data)
    if not whole or width <= 0 or height <= 0:
        raise DocumentReadError(
            f"{name} can't be read as an image: it is damaged or cut short. Open it in an "
            "image viewer, save it again, and attach it again."
        )
    return ImageFacts(mime, width, height)


def data_url(data: bytes, facts: ImageFacts) -> str:
    """The image as the chat-completions API takes it inline (``data:image/png;base64,…``)."""
    return f"data:{facts.mime};base64,{base64.b64encode(data).decode('ascii')}"


def image_part(data: bytes, facts: ImageFacts) -> dict:
    """One image as an OpenAI content part of a user message."""
    return {"type": "image_url", "image_url": {"url": data_url(data, facts)}}


# -- the formats ---------------------------------------------------------------------------


def _format_of(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


Size = tuple[int, int]


def _png(data: bytes) -> tuple[str, bool, Size]:
    if data[12:16] != b"IHDR" or len(data) < 24:
        return "image/png", False, (0, 0)
    width, height = struct.unpack(">II", data[16:24])
    return "image/png", data.rfind(b"IEND") > 24, (width, height)


#: JPEG markers that start a frame and carry its size (not DHT, JPG, DAC: C4, C8, CC).
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
#: Markers with no length after them.
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def _jpeg(data: bytes) -> tuple[str, bool, Size]:
    at, size = 2, (0, 0)
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            break
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in _JPEG_STANDALONE:
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _JPEG_FRAMES and at + 9 <= len(data):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            size = (width, height)
        if marker == 0xDA:  # start of scan: the compressed data follows, to the end marker
            return "image/jpeg", data.rfind(b"\xff\xd9") > at, size
        at += 2 + length
    return "image/jpeg", False, size


def _gif(data: bytes) -> tuple[str, bool, Size]:
    if len(data) < 10:
        return "image/gif", False, (0, 0)
    width, height = struct.unpack("<HH", data[6:10])
    return "image/gif", data.rstrip(b"\x00").endswith(b";"), (width, height)


def _webp(data: bytes) -> tuple[str, bool, Size]:
    (riff_size,) = struct.unpack("<I", data[4:8])
    whole = len(data) >= riff_size + 8
    chunk, body = data[12:16], data[20:]
    size = (0, 0)
    if chunk == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", body[6:10])
        size = (width & 0x3FFF, height & 0x3FFF)
    elif chunk == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        (bits,) = struct.unpack("<I", body[1:5])
        size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    elif chunk == b"VP8X" and len(body) >= 10:
        size = (int.from_bytes(body[4:7], "little") + 1, int.from_bytes(body[7:10], "little") + 1)
    return "image/webp", whole, size


_READERS = {"png": _png, "jpeg": _jpeg, "gif": _gif, "webp": _webp}
