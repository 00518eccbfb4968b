"""The prompt budget: how many tokens of prompt the context builder may fill, and the one
rule that turns "automatic" into a number (:func:`resolve_budget`).

A budget is either the user's number (in Settings, or a chat's or a project's own) or
automatic, which follows the chat's model's context window
(:mod:`acai_desktop.core.models.context_window`):

- half the window (the other half is the answer's and a margin for the estimate: the
  token counts are estimates, see ``core.memory.tokens``), at most
  :data:`AUTOMATIC_CAP_TOKENS` (a longer prompt costs every turn time and money, and
  what the context builder adds past that is the least relevant), and never more than
  the window less the longest answer asked for;
- the app's own server (the Local provider) keeps :data:`BUILT_IN_SERVER_TOKENS`: a
  bigger prompt was measured slower on a laptop CPU (`bench answers`), and with its
  160-token answers it fits the server's 4,096-token window;
- a window nobody knows: :data:`UNKNOWN_WINDOW_TOKENS`, the fixed default of before.

Standard library only (the window's header shows a budget before the model client is
imported).
"""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.models.context_window import ContextWindow, short_tokens

#: What a budget may be set to (Settings, a chat's or a project's own).
MIN_BUDGET_TOKENS, MAX_BUDGET_TOKENS = 256, 1_000_000
#: The share of the window an automatic budget takes.
AUTOMATIC_SHARE = 0.5
#: The largest automatic budget, whatever the window.
AUTOMATIC_CAP_TOKENS = 16_000
#: The automatic budget on the app's own llama.cpp server.
BUILT_IN_SERVER_TOKENS = 3000
#: The automatic budget when the model's window is not known.
UNKNOWN_WINDOW_TOKENS = 3000
#: The one budget every profile had before the budget followed the model: a saved
#: settings file from then holding it is read as automatic (core.models.settings).
OLD_DEFAULT_TOKENS = 3000


@dataclass(frozen=True)
class PromptBudget:
    """A budget as it is now, and why."""

    tokens: int
    automatic: bool
    #: The window it was worked out from, or checked against (None: not known).
    window: ContextWindow | None = None
    #: What limited an automatic budget: "half", "cap", "answer", "built-in", "unknown".
    limit: str = ""
    #: The longest answer asked for (None: the server's own limit).
    answer_max_tokens: int | None = None

    @property
    def room(self) -> int | None:
        """The most a prompt can take in the window, the longest answer left aside
        (None: the window is not known)."""
        if self.window is None:
            return None
        return self.window.tokens - (self.answer_max_tokens or 0)

    @property
    def over_window(self) -> bool:
        """Whether a number the user chose leaves the answer no room in the window."""
        room = self.room
        return room is not None and self.tokens > room

    def describe(self) -> str:
        """``Automatic: 16,000 tokens (half of llama3.1's 128k window, capped)``, or
        ``5,000 tokens`` for a number the user chose."""
        amount = f"{self.tokens:,} tokens"
        if not self.automatic:
            return amount
        window = self.window.describe() if self.window is not None else ""
        why = {
            "half": f"half of {window}",
            "cap": f"half of {window}, capped",
            "answer": f"{window}, less {self.answer_max_tokens or 0:,} for the answer",
            "built-in": f"the built-in server's budget, in its {self._window_size()} window",
            "unknown": "the model's context window is not known",
        }[self.limit]
        return f"Automatic: {amount} ({why})"

    def _window_size(self) -> str:
        return short_tokens(self.window.tokens) if self.window is not None else ""

    def note(self) -> str:
        """What else the user should know, or "": where the window's figure comes from,
        or that a number chosen leaves the answer no room."""
        notes = []
        if self.over_window and self.window is not None and not self.automatic:
            notes.append(
                f"More than {self.window.describe()} leaves for a prompt: the server may "
                "cut or refuse it."
            )
        if self.window is not None and (window_note := self.window.note()):
            notes.append(window_note)
        return " ".join(notes)

    def full_text(self) -> str:
        """:meth:`describe` and :meth:`note`, on two lines."""
        return "\n".join(part for part in (self.describe(), self.note()) if part)


def automatic_budget(
    window: ContextWindow | None, *, answer_max_tokens: int | None, built_in_server: bool
) -> PromptBudget:
    """The automatic budget for a model with ``window`` (see the module's rule)."""
    answer = answer_max_tokens

    def made(tokens: int, limit: str) -> PromptBudget:
        return PromptBudget(max(tokens, MIN_BUDGET_TOKENS), True, window, limit, answer)

    if window is None:
        return made(UNKNOWN_WINDOW_TOKENS, "unknown")
    room = window.tokens - (answer or 0)
    if built_in_server:
        return made(min(BUILT_IN_SERVER_TOKENS, room), "built-in")
    candidates = [
        (int(window.tokens * AUTOMATIC_SHARE), "half"),
        (AUTOMATIC_CAP_TOKENS, "cap"),
        (room, "answer"),
    ]
    tokens, limit = min(candidates, key=lambda pair: pair[0])
    return made(tokens, limit)


def resolve_budget(
    chosen: int | None,
    window: ContextWindow | None,
    *,
    answer_max_tokens: int | None = None,
    built_in_server: bool = False,
) -> PromptBudget:
    """The budget a chat's turns use: ``chosen`` (a number someone set; None or
    :data:`AUTOMATIC`: automatic) as it stands against the model's ``window``."""
    if chosen is None or chosen == AUTOMATIC:
        return automatic_budget(
            window, answer_max_tokens=answer_max_tokens, built_in_server=built_in_server
        )
    return PromptBudget(chosen, False, window, answer_max_tokens=answer_max_tokens)


#: A chat's or a project's own choice of "automatic" (where None means "not set here,
#: the layer below decides"; core.conversations.chat_settings).
AUTOMATIC = 0
