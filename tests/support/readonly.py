"""Make a file (and its directory) really read-only, for the suite even when run as root.

An ordinary user is stopped by the permission bits. Root ignores them, so as root we
also set the immutable attribute (``chattr +i``), which the kernel enforces for root
too. Both are undone on exit, whatever happens.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest


def _chattr(flag: str, path: Path) -> None:
    subprocess.run(["chattr", flag, str(path)], check=True, capture_output=True, text=True)


@contextmanager
def _immutable(path: Path) -> Iterator[None]:
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a file read-only for root")
    try:
        _chattr("+i", path)
    except subprocess.CalledProcessError as error:
        pytest.skip(f"running as root and chattr +i is refused here: {error.stderr.strip()}")
    try:
        yield
    finally:
        _chattr("-i", path)


@contextmanager
def read_only(path: Path, *, directory: bool = False) -> Iterator[None]:
    """``path`` (and, with ``directory``, its parent) read-only inside the block."""
    targets = [path, path.parent] if directory else [path]
    modes = {target: target.stat().st_mode for target in targets}
    with ExitStack() as undo:
        for target in targets:
            target.chmod(0o555 if target.is_dir() else 0o444)
            undo.callback(target.chmod, modes[target])
            if os.geteuid() == 0:
                undo.enter_context(_immutable(target))
        yield
