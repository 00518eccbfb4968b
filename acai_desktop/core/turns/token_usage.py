"""What one answer cost in tokens, as the server reported it, and memory's part of it.

The prompt and completion tokens are the server's own figures (the ``usage`` of its
reply; a streamed answer asks for them with ``stream_options.include_usage``). A server
that reports none leaves them None, and nothing is guessed in their place.
``memory_tokens`` is what the turn's memories, recalled messages and document passages
took in the prompt, counted as the prompt budget counts them (the program's own
estimate, see core.memory.tokens); :meth:`memory_share` sets it against the server's
prompt figure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class TokenUsage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    memory_tokens: int = 0

    @property
    def reported(self) -> bool:
        """Whether the server said what the answer cost."""
        return self.prompt_tokens is not None and self.completion_tokens is not None

    def memory_share(self) -> float | None:
        """Memory's share of the reported prompt, from 0 to 1 (None: no prompt figure).
        The two counts come from different tokenizers, so it is capped at the whole."""
        if not self.prompt_tokens:
            return None
        return min(self.memory_tokens / self.prompt_tokens, 1.0)

    def to_json(self) -> str:
        return json.dumps(
            {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "memory_tokens": self.memory_tokens,
            }
        )

    @classmethod
    def from_json(cls, text: str | None) -> TokenUsage | None:
        """None for no stored value (an older answer) or one this version can't read."""
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        values = {
            name: data.get(name) for name in ("prompt_tokens", "completion_tokens", "memory_tokens")
        }
        if not all(v is None or (isinstance(v, int) and v >= 0) for v in values.values()):
            return None
        return cls(
            values["prompt_tokens"], values["completion_tokens"], values["memory_tokens"] or 0
        )
