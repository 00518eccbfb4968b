"""Whether a prompt holds a question's evidence: what any reader could answer from.

Two figures per prompt, never by text similarity:

- **strict**: every evidence turn is quoted in the prompt (enough of its text to
  recognise it, as the scripted reader looks for it);
- **with provenance**: every evidence turn is quoted, or is a recorded source
  (``memory_sources``) of a memory placed in the prompt: a fact or summary learned
  from that turn stands for it.

And for questions asked of a profile they are not about (another sample's), how many
items (memories, recalled messages) entered the prompt: what precision costs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.memory.prompt_lines import quoted

#: Enough of a turn to recognise it in a prompt (the prompt cuts very long turns).
RECOGNISED_CHARS = 200


def recognisable(text: str) -> str:
    """The part of a turn's text a prompt that quotes it holds word for word."""
    return quoted(text)[:RECOGNISED_CHARS]


def prompt_text(context: BuiltContext) -> str:
    """Everything the model reads but the question's own words."""
    return "\n".join(str(message.get("content", "")) for message in context.messages)


@dataclass(frozen=True)
class EvidenceFound:
    strict: bool
    credited: bool


class EvidenceCheck:
    """Reads prompts built over one profile of a sample.

    ``text_of``: each turn's text by dia_id; ``dia_of_message``: the profile's message
    ids of those turns."""

    def __init__(self, text_of: Mapping[str, str], dia_of_message: Mapping[int, str]) -> None:
        self._text_of = {dia_id: recognisable(text) for dia_id, text in text_of.items()}
        self._dia_of_message = dict(dia_of_message)

    def found(
        self,
        context: BuiltContext,
        evidence: Iterable[str],
        sources: Mapping[int, Iterable[int]],
    ) -> EvidenceFound:
        """``sources``: the message ids each memory placed in the prompt came from."""
        wanted = [dia_id for dia_id in evidence if dia_id in self._text_of]
        if not wanted:
            return EvidenceFound(False, False)
        text = prompt_text(context)
        quoted_turns = {dia_id for dia_id in wanted if self._text_of[dia_id] in text}
        learned_from = {
            self._dia_of_message[message_id]
            for used in context.used
            if used.memory_id is not None
            for message_id in sources.get(used.memory_id, ())
            if message_id in self._dia_of_message
        }
        return EvidenceFound(
            len(quoted_turns) == len(wanted), set(wanted) <= quoted_turns | learned_from
        )


def placed_memory_ids(context: BuiltContext) -> list[int]:
    return [used.memory_id for used in context.used if used.memory_id is not None]
