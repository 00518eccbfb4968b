"""sqlite-utils is imported without numpy on the thread that opens the store, and only
there: numpy stays importable everywhere else meanwhile (core/store/library.py)."""

from __future__ import annotations

import threading

import pytest

from acai_desktop.core.store.library import _NoNumpyOnThisThread


def test_the_block_holds_on_its_own_thread_only():
    finder = _NoNumpyOnThisThread()
    with pytest.raises(ModuleNotFoundError):
        finder.find_spec("numpy")
    assert finder.find_spec("json") is None
    elsewhere = []
    thread = threading.Thread(target=lambda: elsewhere.append(finder.find_spec("numpy")))
    thread.start()
    thread.join()
    assert elsewhere == [None]  # another thread finds numpy as usual
