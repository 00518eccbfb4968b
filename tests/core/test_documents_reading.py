"""Reading files into sections: every supported kind, and a clear refusal for bad input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acai_desktop.core.documents.html_text import html_to_text
from acai_desktop.core.documents.model import DocumentReadError
from acai_desktop.core.documents.readers import (
    MAX_FILE_BYTES,
    kind_of,
    read_document,
    walk_folder,
)
from benchmarks.pdf_writer import write_text_pdf


def test_plain_text_is_one_section_with_its_fingerprint(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("First paragraph.\n\nSecond paragraph.", encoding="utf-8")
    read = read_document(path)
    assert read.kind == "text"
    assert [s.text for s in read.sections] == ["First paragraph.\n\nSecond paragraph."]
    assert read.size == path.stat().st_size and len(read.sha256) == 64


def test_markdown_is_cut_at_headings_with_the_heading_path(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(
        "Intro text.\n\n# Install\n\nRun it.\n\n## Linux\n\nUse apt.\n\n```sh\n# not a heading\n"
        "apt install x\n```\n\n# Usage\n\nType.\n",
        encoding="utf-8",
    )
    sections = read_document(path).sections
    assert [(s.heading, s.text.splitlines()[0]) for s in sections] == [
        ("", "Intro text."),
        ("Install", "Run it."),
        ("Install > Linux", "Use apt."),
        ("Usage", "Type."),
    ]
    assert "# not a heading" in sections[2].text  # a comment in a code block stays text


def test_html_becomes_text_with_headings_and_without_scripts(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Handbook</title><style>p{color:red}</style></head><body>"
        "<h1>Leave</h1><p>Ask your manager &amp; HR.</p><script>alert('x')</script>"
        "<h2>Sick days</h2><p>Call   before\n nine.</p></body></html>",
        encoding="utf-8",
    )
    read = read_document(path)
    assert read.kind == "html" and read.title == "Handbook"
    assert [(s.heading, s.text) for s in read.sections] == [
        ("Leave", "Ask your manager & HR."),
        ("Leave > Sick days", "Call before nine."),
    ]


def test_html_to_text_keeps_table_cells_apart():
    _, text = html_to_text("<table><tr><td>a</td><td>b</td></tr></table>")
    assert "a" in text and "b" in text and "ab" not in text


def test_source_code_is_read_as_text(tmp_path):
    path = tmp_path / "tool.py"
    path.write_text("def main():\n    return 42\n", encoding="utf-8")
    read = read_document(path)
    assert read.kind == "code" and "return 42" in read.sections[0].text


def test_pdf_pages_become_sections_with_their_page_number(tmp_path):
    path = write_text_pdf(tmp_path / "report.pdf", [["Alpha page."], [], ["Gamma (third) page."]])
    read = read_document(path)
    assert read.kind == "pdf" and read.page_count == 3
    assert [(s.page, s.text.strip()) for s in read.sections] == [
        (1, "Alpha page."),
        (3, "Gamma (third) page."),
    ]


def test_an_encrypted_pdf_is_refused_saying_so(tmp_path):
    from pypdf import PdfWriter

    plain = write_text_pdf(tmp_path / "plain.pdf", [["Secret text."]])
    writer = PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password="hunter2", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    with pytest.raises(DocumentReadError, match=r"locked\.pdf is encrypted"):
        read_document(locked)


def test_a_pdf_encrypted_with_an_empty_password_opens(tmp_path):
    from pypdf import PdfWriter

    plain = write_text_pdf(tmp_path / "plain.pdf", [["Copy-protected text."]])
    writer = PdfWriter(clone_from=str(plain))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    protected = tmp_path / "protected.pdf"
    with protected.open("wb") as handle:
        writer.write(handle)
    assert "Copy-protected text." in read_document(protected).sections[0].text


def test_a_corrupt_pdf_is_refused_as_damaged(tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> garbage")
    with pytest.raises(DocumentReadError, match=r"broken\.pdf could not be read as a PDF"):
        read_document(path)


def test_a_binary_file_is_refused(tmp_path):
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(DocumentReadError, match="binary file"):
        read_document(path)


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # sparse: no 50 MB written to the disk
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(DocumentReadError, match="the limit is 50 MB per file"):
        read_document(path)


def test_an_unreadable_file_is_refused_with_the_reason(tmp_path, monkeypatch):
    path = tmp_path / "private.md"
    path.write_text("# Secret\n\nText.", encoding="utf-8")
    path.chmod(0)
    if os.geteuid() == 0:  # root ignores permission bits: the OS answer, as it would be
        real_open = os.open

        def refuse(file, *args, **kwargs):
            if Path(file) == path:
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(os, "open", refuse)
    try:
        with pytest.raises(DocumentReadError, match="permission denied"):
            read_document(path)
    finally:
        path.chmod(0o600)


def test_utf8_with_a_bom_and_utf16_with_a_bom_are_read(tmp_path):
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffcafé".encode())
    wide = tmp_path / "wide.txt"
    wide.write_bytes("naïve text".encode("utf-16"))
    assert read_document(bom).sections[0].text == "café"
    assert read_document(wide).sections[0].text == "naïve text"


def test_another_encoding_is_refused_not_guessed(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("déjà vu".encode("cp1252"))
    with pytest.raises(DocumentReadError, match=r"not UTF-8 text .*Save it as UTF-8"):
        read_document(path)


def test_unsupported_empty_and_missing_files_are_refused(tmp_path):
    (tmp_path / "empty.md").write_text("   \n", encoding="utf-8")
    (tmp_path / "archive.zip").write_bytes(b"PK")
    with pytest.raises(DocumentReadError, match="empty"):
        read_document(tmp_path / "empty.md")
    with pytest.raises(DocumentReadError, match="not supported"):
        read_document(tmp_path / "archive.zip")
    with pytest.raises(DocumentReadError, match="does not exist"):
        read_document(tmp_path / "gone.txt")


def test_walking_a_folder_finds_supported_files_and_skips_hidden_ones(tmp_path):
    (tmp_path / "a.md").write_text("a", encoding="utf-8")
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "sub" / "deeper" / "b.pdf").write_bytes(b"%PDF")
    (tmp_path / "sub" / "c.exe").write_bytes(b"MZ")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "d.txt").write_text("d", encoding="utf-8")
    files, skipped = walk_folder(tmp_path)
    found = [p.relative_to(tmp_path).as_posix() for p in files]
    assert found == ["a.md", "sub/deeper/b.pdf"] and skipped == []
    assert kind_of(Path("x.PY")) == "code" and kind_of(Path("x.bin")) is None
