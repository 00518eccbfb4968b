"""Entry point of the managed local model server's process (run by local_server.py).

``python -m acai_desktop.core.llm.local_server_process --parent-pid PID <llama_cpp.server args>``

It runs llama-cpp-python's server with three guards that its own ``__main__`` lacks:

- it exits when its parent dies, even by SIGKILL, so a crashed app leaves no model
  server behind holding memory and a port;
- it drops environment variables that llama_cpp.server would read as settings (its
  settings are pydantic BaseSettings: a stray ``HOST``, ``PORT``, ``MODEL`` or ``API_KEY``
  in the user's shell would silently change what it serves and where);
- it takes the API key from ``ACAI_LOCAL_SERVER_KEY`` rather than the command line, where
  every user of the machine could read it in the process list.
"""

from __future__ import annotations

import os
import sys
import threading
import time

KEY_VARIABLE = "ACAI_LOCAL_SERVER_KEY"
#: The frozen app's first argument when it starts itself as this server (see
#: LocalModelServer.launcher); here, light, so the command line can check it at start.
SERVE_LOCAL_MODEL_FLAG = "--serve-local-model"
_PARENT_POLL_SECONDS = 1.0


def _exit_when_orphaned(parent_pid: int) -> None:
    while True:
        time.sleep(_PARENT_POLL_SECONDS)
        if os.getppid() != parent_pid:
            os._exit(0)


def _drop_setting_variables() -> None:
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    names = {"host", "port", "config_file"}
    names.update(ModelSettings.model_fields, ServerSettings.model_fields)
    for variable in list(os.environ):
        if variable.lower() in names:
            del os.environ[variable]


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[0] != "--parent-pid":
        raise SystemExit("usage: local_server_process --parent-pid PID <llama_cpp.server args>")
    parent_pid = int(argv[1])
    server_args = argv[2:]
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), daemon=True).start()

    key = os.environ.pop(KEY_VARIABLE, None)
    _drop_setting_variables()
    if key:
        # One argument: a random key may start with "-", which argparse would take for an
        # option of its own after a separate "--api_key" (one start in 64 failed so).
        server_args.append(f"--api_key={key}")

    from llama_cpp.server.__main__ import main as serve

    sys.argv = ["llama_cpp.server", *server_args]
    serve()


if __name__ == "__main__":
    main(sys.argv[1:])
