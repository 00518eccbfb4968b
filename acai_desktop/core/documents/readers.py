"""A file on disk to text sections (each with its page and heading), or a clear refusal.

What is read: plain text, Markdown, PDF (pypdf), HTML (to text) and source code, by
the file's extension. What is refused, saying why, with nothing else touched: a file
over :data:`MAX_FILE_BYTES`, a binary file, an encrypted or damaged PDF, a file that
can't be opened (permissions, missing), and text that is not UTF-8. Only regular files
are read (a named pipe, a device or a looping link is refused: ``core/regular_files``),
and a folder's walk stays inside the folder (:func:`walk_folder`).

Encodings: UTF-8 (with or without a byte-order mark) and UTF-16 with its byte-order
mark are read. Anything else is refused rather than guessed: decoding Windows-1252 or
Latin-1 "successfully" is always possible and silently garbles other encodings, and a
garbled passage would be quoted to the model as evidence.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from acai_desktop.core.documents.html_text import html_to_text
from acai_desktop.core.documents.images import IMAGE_SUFFIXES
from acai_desktop.core.documents.model import DocumentReadError
from acai_desktop.core.documents.pdf_text import PageProgress, check_pdf, pdf_pages
from acai_desktop.core.files.regular import NotRegularFileError, open_regular, why_not_regular

#: The largest file accepted (50 MB); larger ones are refused before being read.
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_FILE_LABEL = "50 MB"
HASH_BLOCK_BYTES = 1024 * 1024

TEXT_SUFFIXES = frozenset({".txt", ".text", ".rst", ".log", ".csv", ".tsv"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
CODE_SUFFIXES = frozenset(
    {
        ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".kt", ".scala",
        ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".go", ".rs", ".rb", ".php", ".swift",
        ".m", ".lua", ".pl", ".r", ".sh", ".bash", ".zsh", ".ps1", ".sql", ".css",
        ".scss", ".xml", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".qml",
    }
)  # fmt: skip
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | MARKDOWN_SUFFIXES | HTML_SUFFIXES | CODE_SUFFIXES | {".pdf"}

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NON_SPACE = re.compile(r"\S")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


@dataclass(frozen=True)
class Section:
    """A stretch of a document with one page and one heading (either may be empty)."""

    text: str
    page: int | None = None
    heading: str = ""


@dataclass(frozen=True)
class ReadDocument:
    kind: str  # text, markdown, pdf, html, code
    sections: list[Section]
    size: int
    sha256: str
    mtime: float
    page_count: int = 0  # PDF pages (0 for other kinds)
    title: str = ""


def kind_of(path: Path) -> str | None:
    """The kind of document ``path`` is by its extension, or None if not supported."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    for kind, suffixes in (
        ("markdown", MARKDOWN_SUFFIXES),
        ("html", HTML_SUFFIXES),
        ("code", CODE_SUFFIXES),
        ("text", TEXT_SUFFIXES),
    ):
        if suffix in suffixes:
            return kind
    return None


def require_kind(path: Path) -> str:
    kind = kind_of(path)
    if kind is None and path.suffix.lower() in IMAGE_SUFFIXES:
        raise DocumentReadError(
            f"{path.name} is an image, which has no text to index: attach it in a chat "
            "(the paperclip) to ask a model that sees images about it."
        )
    if kind is None:
        raise DocumentReadError(
            f"{path.name}: files of this type ({path.suffix or 'no extension'}) are not "
            "supported. Add text, Markdown, PDF, HTML or source code files."
        )
    return kind


def not_regular(path: Path, what: str) -> str:
    """Why a path that is no regular file is refused (``what``: what it is instead)."""
    if what == "a folder":
        return f"{path} is a folder; add it as a folder."
    return f"{path.name} is {what}; only regular files are read."


def read_bytes(path: Path) -> tuple[bytes, float]:
    """The file's bytes and modification time, refusing what can't or mustn't be read."""
    try:
        with open_regular(path) as handle:
            status = os.fstat(handle.fileno())
            if status.st_size > MAX_FILE_BYTES:
                raise DocumentReadError(
                    f"{path.name} is {status.st_size / 1024 / 1024:.0f} MB; the limit is "
                    f"{MAX_FILE_LABEL} per file. Split it into smaller files."
                )
            data = handle.read(MAX_FILE_BYTES + 1)
    except NotRegularFileError as error:
        raise DocumentReadError(not_regular(path, error.strerror)) from None
    except FileNotFoundError:
        raise DocumentReadError(f"{path} does not exist (moved or deleted?).") from None
    except PermissionError:
        raise DocumentReadError(
            f"{path.name} can't be read: permission denied. Check the file's permissions."
        ) from None
    except OSError as error:
        raise DocumentReadError(f"{path.name} can't be read ({error.strerror or error}).") from None
    if len(data) > MAX_FILE_BYTES:  # it grew since stat()
        raise DocumentReadError(f"{path.name} is over the {MAX_FILE_LABEL} limit per file.")
    return data, status.st_mtime


def decode_text(path: Path, data: bytes) -> str:
    """UTF-8 (a BOM is dropped) or BOM-marked UTF-16; a binary file or another
    encoding is refused (see the module's docstring for why nothing is guessed)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass  # a binary file that happens to start so; refused below
    if b"\x00" in data[:8192]:
        raise DocumentReadError(
            f"{path.name} looks like a binary file (it contains NUL bytes), not text. "
            "Nothing was indexed."
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DocumentReadError(
            f"{path.name} is not UTF-8 text (byte 0x{data[error.start]:02x} at position "
            f"{error.start}). Save it as UTF-8 and add it again."
        ) from None


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> tuple[str, float]:
    """The file's :func:`fingerprint` and modification time, read a block at a time."""
    digest = hashlib.sha256()
    with open_regular(path) as handle:
        mtime = os.fstat(handle.fileno()).st_mtime
        while block := handle.read(HASH_BLOCK_BYTES):
            digest.update(block)
    return digest.hexdigest(), mtime


def read_document(path: Path | str, on_page: PageProgress | None = None) -> ReadDocument:
    """Read ``path`` into sections. Raises DocumentReadError with a message for the user.
    ``on_page(done, total)``: called as each page of a PDF is read."""
    path = Path(path)
    kind = require_kind(path)
    data, mtime = read_bytes(path)
    digest, size = fingerprint(data), len(data)
    title, page_count = "", 0
    if kind == "pdf":
        pages = pdf_pages(path, data, on_page)
        sections = [Section(text, page=n) for n, text in enumerate(pages, 1) if text.strip()]
        page_count = len(pages)
    else:
        text = decode_text(path, data)
        del data  # up to 50 MB no longer needed while the text is parsed and chunked
        if kind == "html":
            title, text = html_to_text(text)
        if kind in ("markdown", "html"):
            sections = markdown_sections(text)
        else:
            # Not text.strip(): that would copy a 50 MB text to learn it isn't blank.
            sections = [Section(text)] if _NON_SPACE.search(text) else []
    if not sections:
        raise DocumentReadError(f"{path.name} is empty: there is no text to index.")
    return ReadDocument(kind, sections, size, digest, mtime, page_count, title)


def check_readable(path: Path | str) -> str:
    """Refuse at once what :func:`read_document` would refuse (its kind, the size limit,
    permissions, a binary file, text not UTF-8, an encrypted or damaged PDF, an empty
    file), without cutting or embedding anything; returns the kind. A chat's attachment
    is checked so while the user is still writing. (A PDF with no text layer is only
    found when its pages are read.)"""
    path = Path(path)
    kind = require_kind(path)
    data, _mtime = read_bytes(path)
    if kind == "pdf":
        check_pdf(path, data)
    elif not _NON_SPACE.search(decode_text(path, data)):
        raise DocumentReadError(f"{path.name} is empty: there is no text to index.")
    return kind


def markdown_sections(text: str) -> list[Section]:
    """One section per heading, its heading the path of headings above it
    ("Install > Linux"); a ``#`` inside a fenced code block is not a heading.
    The text is walked line by line and each section's body sliced out once: a list of
    a 50 MB file's lines would take twice the file again."""
    sections: list[Section] = []
    trail: list[tuple[int, str]] = []
    body_start = 0
    in_fence = False

    def close(body_end: int) -> None:
        body = text[body_start:body_end]
        if "\r" in body:
            body = body.replace("\r\n", "\n").replace("\r", "\n")
        body = body.strip()
        if body:
            sections.append(Section(body, heading=" > ".join(t for _, t in trail)))

    for found in _LINE.finditer(text):
        start, end = found.span()
        if start == end:
            break  # the empty match at the end of the text
        line = found.group().rstrip("\r\n")
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            close(start)
            level = len(match.group(1))
            trail = [(lv, t) for lv, t in trail if lv < level] + [(level, match.group(2))]
            body_start = end
    close(len(text))
    return sections


def name_not_utf8(shown: str) -> str:
    """Why a file whose name is not UTF-8 is refused (``shown``: :func:`printable_path`)."""
    return (
        f"{shown}: its name is not valid UTF-8 text (shown here with �), so it can't "
        "be stored; rename the file, then add it again."
    )


def printable_path(path: Path | str) -> str:
    """``path`` as text: bytes that are not UTF-8 in a name (which Python keeps as lone
    surrogates) become U+FFFD, so the name can be shown, printed and stored."""
    return os.fsencode(path).decode("utf-8", errors="replace")


def walk_folder(folder: Path | str) -> tuple[list[Path], list[tuple[str, str]]]:
    """Every supported file under ``folder`` (recursively), sorted, and the (path,
    reason) of each one skipped. Hidden files and folders (".git") are left out and
    links to folders are not followed. A link to a file is followed only if it lands
    inside ``folder`` (the user chose that folder, not what its links point at); a
    looping link, a named pipe, a device or a socket is skipped, with the reason."""
    root_folder = Path(os.path.realpath(folder))
    found, skipped = [], []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(root) / name
            if name.startswith(".") or kind_of(path) is None:
                continue
            why = why_not_regular(path)
            if why is None and path.is_symlink():
                target = Path(os.path.realpath(path))
                if not target.is_relative_to(root_folder):
                    why = f"a link to {printable_path(target)}, outside the folder"
            if why is None:
                found.append(path)
            else:
                skipped.append((printable_path(path), not_regular(path, why)))
    return found, skipped
