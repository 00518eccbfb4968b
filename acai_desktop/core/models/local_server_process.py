"""Entry point of the managed local model server's process (run by local_server.py).

``python -m acai_desktop.core.models.local_server_process --parent-pid PID [--background]
<llama_cpp.server args>``, or ``… --convert SOURCE TARGET`` (see fast_model_copy.py).

It runs llama-cpp-python's server with three guards that its own ``__main__`` lacks:

- it exits when its parent dies, even by SIGKILL, so a crashed app leaves no model
  server behind holding memory and a port. On Linux the kernel kills it then
  (``PR_SET_PDEATHSIG``), which works even while it is suspended (SIGSTOP: see
  learning_server.py), when no thread of its own can run; elsewhere a thread checks
  the parent every second;
- it drops environment variables that llama_cpp.server would read as settings (its
  settings are pydantic BaseSettings: a stray ``HOST``, ``PORT``, ``MODEL`` or ``API_KEY``
  in the user's shell would silently change what it serves and where);
- it takes the API key from ``ACAI_LOCAL_SERVER_KEY`` rather than the command line, where
  every user of the machine could read it in the process list;
- its RAM cache of prompt states counts all that a state holds (:func:`count_whole_states`).

``--background`` (the server of background learning) runs it at the lowest priority the
system offers to an unprivileged process: on Linux ``SCHED_IDLE`` (it runs only on a CPU
nothing else wants), elsewhere nice 19 (Windows gets ``IDLE_PRIORITY_CLASS`` from its
parent at creation instead), from the moment its model is loaded: every thread it has
then, and those started later (llama.cpp's, the web server's), which inherit it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

KEY_VARIABLE = "ACAI_LOCAL_SERVER_KEY"
#: The frozen app's first argument when it starts itself as this server (see
#: LocalModelServer.launcher); here, light, so the command line can check it at start.
SERVE_LOCAL_MODEL_FLAG = "--serve-local-model"
#: After ``--parent-pid PID``: run at the lowest priority (background learning's server).
BACKGROUND_FLAG = "--background"
#: ``--convert SOURCE TARGET``: write SOURCE's weights as Q8_0 to TARGET and exit (the
#: built-in model's faster copy, see fast_model_copy.py).
CONVERT_FLAG = "--convert"
_PARENT_POLL_SECONDS = 1.0
#: <sys/prctl.h>
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    """On Linux, have the kernel SIGKILL this process when its parent dies: unlike the
    polling thread, that works while the process is stopped (SIGKILL ends a stopped
    process; a stopped orphan would otherwise wait for a SIGCONT that never comes)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # here: the command line imports this module at every start

    libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's prctl
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return  # the polling thread still covers it
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(0)


def lower_priority() -> None:
    """This process (every thread it has, and those it starts from now on) at the lowest
    priority."""
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            # Linux schedules threads: each gets the policy (a thread started later
            # inherits its creator's).
            for thread in os.listdir("/proc/self/task"):
                with contextlib.suppress(ProcessLookupError):  # a thread that just ended
                    os.sched_setscheduler(int(thread), os.SCHED_IDLE, os.sched_param(0))
            return
        except OSError:
            pass
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(19)


def lower_priority_once_loaded() -> None:
    """Lower the priority (:func:`lower_priority`) when the model is loaded, just before
    the web server starts. Loading at the lowest priority on a machine whose every core
    was busy (the test suite beside ``stress-ng --cpu 2``) took longer than the app
    waits for a server (120 s): learning then fell back to the chat's server. Loading is
    short; serving is what must not take the CPU from an answer."""
    import uvicorn

    serve = uvicorn.run

    def serve_at_lowest_priority(*args, **kwargs):
        lower_priority()
        return serve(*args, **kwargs)

    uvicorn.run = serve_at_lowest_priority


def _exit_when_orphaned(parent_pid: int) -> None:
    while True:
        time.sleep(_PARENT_POLL_SECONDS)
        if os.getppid() != parent_pid:
            os._exit(0)


def _state_bytes(state) -> int:
    return state.llama_state_size + state.scores.nbytes + state.input_ids.nbytes


def count_whole_states() -> None:
    """Make the RAM cache's cap count each saved state whole.

    llama-cpp-python's cache counts only llama.cpp's own state (the KV cells: about
    23 KB a token with the bundled model), but every state also carries a copy of the
    logits buffer: n_batch × vocabulary floats, 100 MB with the bundled model whatever
    the prompt's length (``Llama.save_state``). Uncounted, a 256 MB cap held a dozen
    states and the chat's server grew to 1.6 GB (3.5 GB when every token's logits were
    kept). Counted, the cap means what it says."""
    from llama_cpp.llama_cache import LlamaRAMCache

    LlamaRAMCache.cache_size = property(
        lambda cache: sum(_state_bytes(state) for state in cache.cache_state.values())
    )


def _drop_setting_variables() -> None:
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    names = {"host", "port", "config_file"}
    names.update(ModelSettings.model_fields, ServerSettings.model_fields)
    for variable in list(os.environ):
        if variable.lower() in names:
            del os.environ[variable]


def convert(source: str, target: str) -> None:
    """Re-encode the GGUF model ``source`` as Q8_0 into ``target`` (fast_model_copy.py)."""
    import ctypes

    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True  # the source is already quantised (Q4_1)
    params.nthread = 1  # a second on one core; the other stays the user's
    failed = llama_cpp.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params))
    if failed:
        raise SystemExit(f"llama.cpp could not convert {source} (error {failed})")


def main(argv: list[str]) -> None:
    if argv[:1] == [CONVERT_FLAG] and len(argv) == 3:
        convert(argv[1], argv[2])
        return
    if len(argv) < 2 or argv[0] != "--parent-pid":
        raise SystemExit(
            "usage: local_server_process --parent-pid PID [--background] <llama_cpp.server args>"
            f" | {CONVERT_FLAG} SOURCE TARGET"
        )
    parent_pid = int(argv[1])
    server_args = argv[2:]
    if server_args[:1] == [BACKGROUND_FLAG]:
        server_args = server_args[1:]
        lower_priority_once_loaded()
    _die_with_parent(parent_pid)
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), daemon=True).start()

    key = os.environ.pop(KEY_VARIABLE, None)
    _drop_setting_variables()
    if key:
        # One argument: a random key may start with "-", which argparse would take for an
        # option of its own after a separate "--api_key" (one start in 64 failed so).
        server_args.append(f"--api_key={key}")

    count_whole_states()
    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *server_args]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
