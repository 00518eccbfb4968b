"""A model's context window: how many tokens of prompt and answer together it reads.

Known, best first, from the server that runs the model (``core.models.window_probe`` asks
it: llama.cpp's ``/props``, Ollama's ``/api/show``, LM Studio's ``/api/v0/models``),
else from :data:`KNOWN_WINDOWS`, a small table of model families matched on the name's
start. The prompt budget that follows the window is :mod:`acai_desktop.core.models.prompt_budget`.

Standard library only: the window's header and dialogs describe a window before the
model client is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class WindowSource(StrEnum):
    """Where a window's figure came from."""

    SERVER = "server"  # the server said how large a window it runs the model with
    SERVER_DEFAULT = "server default"  # the server's usual default, assumed (it didn't say)
    TABLE = "table"  # the known models' table


@dataclass(frozen=True)
class ContextWindow:
    """The window a prompt and its answer must fit."""

    tokens: int
    model: str
    source: WindowSource
    #: Who runs it ("Ollama", "LM Studio", "llama.cpp", "the built-in server"; "" for
    #: the table's figure).
    server: str = ""
    #: The length the model was trained for, when the server runs it with a smaller
    #: window (Ollama's and LM Studio's defaults): the smaller one limits the prompt.
    trained_tokens: int | None = None

    def describe(self) -> str:
        """``llama3.1's 128k window``."""
        owner = f"{BUILT_IN_SERVER}'s" if self.server == BUILT_IN_SERVER else f"{self.model}'s"
        return f"{owner} {short_tokens(self.tokens)} window"

    def note(self) -> str:
        """Where the figure comes from when that matters, or "": ``As Ollama runs it;
        trained for 128k.``"""
        notes = []
        if self.source == WindowSource.SERVER and self.server and self.server != BUILT_IN_SERVER:
            notes.append(f"As {self.server} runs it")
        elif self.source == WindowSource.SERVER_DEFAULT:
            notes.append(f"{self.server}'s default window, assumed ({self.server} doesn't say)")
        if self.trained_tokens and self.trained_tokens > self.tokens:
            notes.append(f"the model was trained for {short_tokens(self.trained_tokens)}")
            if self.server == "Ollama":
                notes.append("set num_ctx in Ollama to use more")
        if not notes:
            return ""
        text = "; ".join(notes)
        return text[0].upper() + text[1:] + "."


#: How the app's own llama.cpp server (core.models.local_server) is named in a window.
BUILT_IN_SERVER = "the built-in server"

#: Context windows of well-known model families, by the start of the model's name as
#: :func:`normalised_name` writes it; the longest matching start wins. Figures are the
#: providers' published ones (input + output); a server may run a model smaller, which
#: is why the server's own figure is asked first.
KNOWN_WINDOWS: dict[str, int] = {
    # OpenAI
    "gpt5": 400_000,
    "gpt41": 1_047_576,
    "gpt4o": 128_000,
    "gpt4turbo": 128_000,
    "gpt4": 8_192,
    "gpt35turbo": 16_385,
    "gptoss": 131_072,
    "o1": 200_000,
    "o1mini": 128_000,
    "o3": 200_000,
    "o4mini": 200_000,
    "chatgpt4o": 128_000,
    # Anthropic, through an OpenAI-compatible endpoint
    "claude": 200_000,
    # Meta
    "llama2": 4_096,
    "llama3": 8_192,
    "llama31": 131_072,
    "llama32": 131_072,
    "llama33": 131_072,
    "llama4": 131_072,
    # Alibaba
    "qwen2": 32_768,
    "qwen25": 32_768,
    "qwen3": 40_960,
    # Mistral
    "mistral": 32_768,
    "mistralnemo": 131_072,
    "mistralsmall": 32_768,
    "mistrallarge": 131_072,
    "mixtral": 32_768,
    "codestral": 32_768,
    # Google
    "gemma": 8_192,
    "gemma2": 8_192,
    "gemma3": 131_072,
    "gemini": 1_048_576,
    # Microsoft
    "phi3": 4_096,
    "phi35": 131_072,
    "phi4": 16_384,
    # DeepSeek
    "deepseekr1": 131_072,
    "deepseekv3": 131_072,
    "deepseekchat": 65_536,
    # Hugging Face
    "smollm2": 8_192,
}


def normalised_name(model: str) -> str:
    """The name the table is keyed by: lower case, without a provider's or publisher's
    path ("openai/", "lmstudio-community/"), Ollama's tag (":8b", ":latest"), a
    "meta-" before "llama", and every character that is not a letter or a digit
    ("Llama-3.1-8B" and "llama3.1:8b" both start "llama31")."""
    name = model.strip().lower().rsplit("/", 1)[-1].split(":", 1)[0]
    name = re.sub(r"[^a-z0-9]", "", name)
    return name.removeprefix("meta") if name.startswith("metallama") else name


def window_from_table(model: str | None) -> ContextWindow | None:
    """The table's window for ``model`` (None: no family of the table matches)."""
    if not model:
        return None
    name = normalised_name(model)
    matches = [start for start in KNOWN_WINDOWS if name.startswith(start)]
    if not matches:
        return None
    return ContextWindow(KNOWN_WINDOWS[max(matches, key=len)], model, WindowSource.TABLE)


def short_tokens(tokens: int) -> str:
    """``128k`` for 131,072 or 128,000; ``1M`` for a million; ``2,048`` below 4,000."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_048_576:.0f}M" if tokens % 1_048_576 == 0 else f"{tokens / 1e6:.0f}M"
    if tokens >= 4000 and tokens % 1000 == 0:
        return f"{tokens // 1000}k"
    if tokens >= 4096 and tokens % 1024 == 0:
        return f"{tokens // 1024}k"
    if tokens >= 4096:
        return f"{round(tokens / 1000)}k"
    return f"{tokens:,}"
