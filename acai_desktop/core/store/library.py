"""Importing sqlite-utils without numpy (why: see the package's docstring)."""

from __future__ import annotations

import importlib
import importlib.abc
import sys
import threading


class _NoNumpyOnThisThread(importlib.abc.MetaPathFinder):
    """Makes ``import numpy`` fail on one thread only, while numpy is not loaded: an
    import of numpy on another thread meanwhile (the assistant's, the tests') finds it
    as usual, and once numpy is loaded every import gets it."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and threading.get_ident() == self.thread:
            raise ModuleNotFoundError("left out of sqlite-utils", name=name)
        return None


def import_sqlite_utils_without_numpy() -> None:
    """Import sqlite-utils, unless it is already; it sees no numpy if numpy is not
    loaded yet (then its column types lack numpy's scalars, which the store never
    inserts through it)."""
    if "sqlite_utils" in sys.modules:
        return
    finder = _NoNumpyOnThisThread()
    sys.meta_path.insert(0, finder)
    try:
        importlib.import_module("sqlite_utils")
    finally:
        sys.meta_path.remove(finder)
