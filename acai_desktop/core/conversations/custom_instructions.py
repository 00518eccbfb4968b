"""Custom instructions: the user's own words about how ACAI should respond and what it
should know about them, for the whole profile, with an override per chat.

They are instructions, not data: the user wrote them, in Settings or a chat's menu, so
the prompt gives them as the user's wishes (see ``core.memory.context_builder``), at
the stable start of the system message. Only the user writes them: no processor or
model call ever does (the service has no caller in ``core/learning``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.errors import InvalidInputError

#: The longest text of each field: both together stay a small, bounded part of a prompt
#: budget (about 400 tokens each at most).
MAX_INSTRUCTION_CHARS = 1_500
RESPOND_LABEL = "How should ACAI respond?"
ABOUT_LABEL = "What should ACAI know about you?"
# Control characters other than tab and newline: invisible, and NUL cuts C strings.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class InstructionsScope(StrEnum):
    PROFILE = "profile"  # Settings: every chat
    CHAT = "chat"  # this chat's override
    PROJECT = "project"  # the chat's project's (every chat of the project)


@dataclass(frozen=True)
class CustomInstructions:
    respond: str = ""
    about: str = ""

    @property
    def empty(self) -> bool:
        return not (self.respond or self.about)

    def to_json(self) -> str:
        return json.dumps({"respond": self.respond, "about": self.about}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> CustomInstructions | None:
        """None for no stored value (NULL) or one this version can't read."""
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        respond, about = data.get("respond", ""), data.get("about", "")
        if not isinstance(respond, str) or not isinstance(about, str):
            return None
        return cls(respond, about)


@dataclass(frozen=True)
class UsedInstructions:
    """The instructions one answer's prompt carried, and whose they were."""

    instructions: CustomInstructions
    scope: InstructionsScope

    def to_json(self) -> str:
        return json.dumps(
            {"scope": str(self.scope), "respond": self.instructions.respond,
             "about": self.instructions.about},
            ensure_ascii=False,
        )  # fmt: skip

    @classmethod
    def from_json(cls, text: str | None) -> UsedInstructions | None:
        instructions = CustomInstructions.from_json(text)
        if instructions is None:
            return None
        scope = json.loads(text).get("scope")
        if scope not in tuple(InstructionsScope):
            return None
        return cls(instructions, InstructionsScope(scope))


def clean_field(text: object, label: str) -> str:
    """One field as the user typed it: text, no control characters (tabs and line breaks
    are fine), trimmed, at most MAX_INSTRUCTION_CHARS characters."""
    if not isinstance(text, str):
        raise InvalidInputError(f'"{label}" must be text.')
    if _CONTROL.search(text):
        raise InvalidInputError(f'"{label}" can\'t contain control characters (such as NUL).')
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    if len(text) > MAX_INSTRUCTION_CHARS:
        raise InvalidInputError(
            f'"{label}" can be at most {MAX_INSTRUCTION_CHARS:,} characters '
            f"(this has {len(text):,})."
        )
    return text


def clean_instructions(respond: object, about: object) -> CustomInstructions:
    return CustomInstructions(clean_field(respond, RESPOND_LABEL), clean_field(about, ABOUT_LABEL))
