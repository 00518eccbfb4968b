"""A PDF's text, page by page, with pypdf; encrypted or damaged files refused clearly."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from acai_desktop.core.documents.model import DocumentReadError

log = logging.getLogger(__name__)


#: A callback told (pages read, pages in all) as a long PDF is read.
PageProgress = Callable[[int, int], None]


def pdf_pages(path: Path, data: bytes, on_page: PageProgress | None = None) -> list[str]:
    """The text of each page (an empty string for a page with no text layer);
    ``on_page(done, total)`` is called after each page."""
    pages: list[str] = []

    def read(reader) -> None:
        total = len(reader.pages)
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            if on_page is not None:
                on_page(len(pages), total)

    _with_pdf(path, data, read)
    if not any(page.strip() for page in pages):
        raise DocumentReadError(
            f"{path.name} has no text to index (a scanned PDF has only images; text "
            "recognition is not supported). Nothing was indexed."
        )
    return pages


def check_pdf(path: Path, data: bytes) -> None:
    """Refuse an encrypted or damaged PDF at once, without extracting its text (a chat's
    attachment is checked so before anything is sent)."""
    _with_pdf(path, data, lambda reader: len(reader.pages))


def _with_pdf(path: Path, data: bytes, use: Callable[[object], object]) -> None:
    """Open the PDF in ``data`` and call ``use(reader)``, turning pypdf's failures into
    the user's reasons: encrypted (a real password), damaged, not a PDF."""
    import io

    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PyPdfError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings are about layout
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Many PDFs are "encrypted" with an empty user password (copy protection
            # only); those open. A real password can't be asked for here.
            try:
                opened = reader.decrypt("")
            except (FileNotDecryptedError, NotImplementedError, PyPdfError) as error:
                raise _encrypted(path) from error
            if not opened:
                raise _encrypted(path)
        use(reader)
    except DocumentReadError:
        raise
    except FileNotDecryptedError as error:
        raise _encrypted(path) from error
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, OSError) as error:
        raise DocumentReadError(
            f"{path.name} could not be read as a PDF: it looks damaged or is not a PDF "
            f"({type(error).__name__}: {error}). Nothing was indexed."
        ) from error


def _encrypted(path: Path) -> DocumentReadError:
    return DocumentReadError(
        f"{path.name} is encrypted (password-protected), so its text can't be read. "
        "Save an unprotected copy and add that instead."
    )
