"""A minimal PDF writer: pages of plain text in Helvetica, nothing else.

For the documents benchmark and tests, which need real text PDFs (pypdf reads them;
it can't lay text out itself) without a layout library. The output is a valid
PDF 1.4 file with a cross-reference table; text is Latin-1 (WinAnsi) only.
"""

from __future__ import annotations

from pathlib import Path

LINE_HEIGHT = 14
TOP = 800
LEFT = 50


def _escape(line: str) -> str:
    text = line.encode("latin-1", "replace").decode("latin-1")
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content_stream(lines: list[str]) -> bytes:
    body = [f"BT /F1 11 Tf {LEFT} {TOP} Td {LINE_HEIGHT} TL"]
    for line in lines:
        body.append(f"({_escape(line)}) Tj T*")
    body.append("ET")
    return "\n".join(body).encode("latin-1")


def write_text_pdf(path: Path | str, pages: list[list[str]]) -> Path:
    """Write ``pages`` (each a list of lines) as a PDF at ``path``."""
    objects: list[bytes] = []  # object n is objects[n - 1]
    page_count = len(pages)
    # 1: catalog, 2: pages, 3: font, then per page: page object, content stream.
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(page_count))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {page_count} >>".encode())
    objects.append(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    for i, lines in enumerate(pages):
        content = _content_stream(lines)
        objects.append(
            (
                f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>"
            ).encode()
        )
        objects.append(
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream"
        )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    path = Path(path)
    path.write_bytes(bytes(out))
    return path
