"""The quiet line under an answer that says what it cost in tokens.

Only the server's figures are shown as figures: a server that reported none gets
:data:`NOT_REPORTED`, never an estimate. Memory's share sets the tokens the turn's
memories, recalled messages and passages took (counted as the prompt budget counts
them) against the prompt the server reported.
"""

from __future__ import annotations

from acai_desktop.core.turns.token_usage import TokenUsage

NOT_REPORTED = "Tokens: not reported by the server"


def usage_line(usage: TokenUsage | None) -> str | None:
    """The line's text, or None when there is nothing to say (an answer from before
    usage was recorded, one still being written, one that failed)."""
    if usage is None:
        return None
    if not usage.reported:
        return NOT_REPORTED
    line = f"{usage.prompt_tokens:,} prompt · {usage.completion_tokens:,} completion tokens"
    share = usage.memory_share()
    if share is not None:
        line += f" · memory {share:.0%} of the prompt"
    return line
