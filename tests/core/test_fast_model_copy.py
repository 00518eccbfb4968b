"""The built-in model is served from a Q8_0 copy made once (core/models/fast_model_copy.py).

The test marked ``local_model`` converts the real bundled GGUF with llama.cpp's
quantiser; the others use a stand-in converter (a Python one-liner) to check what
happens around it: reuse, a new source, failures, half-written files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from acai_desktop.core.models import fast_model_copy
from acai_desktop.core.models.fast_model_copy import COPY_FORMAT, copy_path, fast_copy
from acai_desktop.core.models.local_model_files import bundled_model_path
from acai_desktop.core.models.local_server import LocalModelServer

#: llama.cpp's number for LLAMA_FTYPE_MOSTLY_Q8_0 (``general.file_type``).
Q8_0_FILE_TYPE = "7"
#: A converter that writes a small GGUF-looking file to its last argument.
WRITES_A_COPY = (
    "import sys; open(sys.argv[-1], 'wb').write(b'GGUF copy of ' + sys.argv[-2].encode())"
)
#: One that writes half a file and fails, as a converter killed part-way would.
FAILS_HALF_WAY = "import sys; open(sys.argv[-1], 'wb').write(b'GG'); sys.exit(3)"


def stand_in(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def a_model(tmp_path: Path) -> Path:
    source = tmp_path / "packaged" / "Tiny.Q4_1.gguf"
    source.parent.mkdir()
    source.write_bytes(b"GGUF the packaged weights")
    return source


@pytest.mark.local_model
def test_the_bundled_model_becomes_a_q8_0_copy_that_llama_cpp_loads(tmp_path):
    from llama_cpp import Llama

    source = bundled_model_path()
    assert source is not None
    before = source.stat()
    launcher = LocalModelServer().launcher()

    served = fast_copy(source, tmp_path / "models", launcher)

    assert served == copy_path(source, tmp_path / "models")
    assert served.name.endswith(f".{COPY_FORMAT}.gguf") and served.parent == tmp_path / "models"
    model = Llama(model_path=str(served), vocab_only=True, verbose=False)
    assert model.metadata["general.file_type"] == Q8_0_FILE_TYPE
    assert source.stat().st_mtime_ns == before.st_mtime_ns  # the package is left as it was
    assert [p.name for p in served.parent.iterdir()] == [served.name]  # nothing half-made


def test_a_copy_is_made_once_and_then_reused(tmp_path):
    source = a_model(tmp_path)
    folder = tmp_path / "models"
    first = fast_copy(source, folder, stand_in(WRITES_A_COPY))
    made_at = first.stat().st_mtime_ns
    # A converter that would fail if it ran: the copy made before is served.
    again = fast_copy(source, folder, stand_in(FAILS_HALF_WAY))
    assert again == first != source
    assert first.stat().st_mtime_ns == made_at
    assert first.read_bytes() == b"GGUF copy of " + str(source).encode()


def test_a_new_version_of_the_model_gets_a_new_copy_and_the_old_one_goes(tmp_path):
    source = a_model(tmp_path)
    folder = tmp_path / "models"
    old = fast_copy(source, folder, stand_in(WRITES_A_COPY))
    source.write_bytes(b"GGUF the next version's weights, a little longer")
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    new = fast_copy(source, folder, stand_in(WRITES_A_COPY))
    assert new != old and new.is_file()
    assert sorted(folder.iterdir()) == [new]


def test_a_failed_conversion_serves_the_packaged_file_and_leaves_nothing_half_written(tmp_path):
    source = a_model(tmp_path)
    folder = tmp_path / "models"
    assert fast_copy(source, folder, stand_in(FAILS_HALF_WAY)) == source
    assert list(folder.iterdir()) == []
    # The next start tries again.
    assert fast_copy(source, folder, stand_in(WRITES_A_COPY)) == copy_path(source, folder)


def test_a_copy_that_is_not_a_gguf_file_is_made_again(tmp_path):
    """A copy someone truncated (or a disk that lost its end) is not loaded."""
    source = a_model(tmp_path)
    folder = tmp_path / "models"
    copy = fast_copy(source, folder, stand_in(WRITES_A_COPY))
    copy.write_bytes(b"")
    assert fast_copy(source, folder, stand_in(WRITES_A_COPY)) == copy
    assert copy.read_bytes().startswith(fast_model_copy.GGUF_MAGIC)


def test_a_converter_that_cannot_start_serves_the_packaged_file(tmp_path):
    source = a_model(tmp_path)
    missing_program = [str(tmp_path / "no-such-python")]
    assert fast_copy(source, tmp_path / "models", missing_program) == source


def test_an_unreadable_source_is_served_as_it_is(tmp_path):
    source = tmp_path / "gone.gguf"
    assert fast_copy(source, tmp_path / "models", stand_in(WRITES_A_COPY)) == source
