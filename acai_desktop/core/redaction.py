"""Keeping secrets out of what the program stores, shows and logs.

A server refusing a key often echoes it in its error body ("Incorrect API key provided:
sk-proj-…"), and that text travels on into ``messages.error``, the log and the window.
:func:`redact` is the one rule set for "what looks like a secret"; it is applied where
error text enters the program (every model error, with the configured key — see
``ModelClient``), where an error text is stored (``messages.error``, ``jobs.last_error``)
and to every log record (:class:`RedactingFilter`, installed by the command line).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

REDACTED = "[redacted]"
#: A configured key shorter than this is not searched for literally: redacting every
#: occurrence of a 3-letter word would mangle the text and protect nothing.
MIN_LITERAL_SECRET = 6

_KEY_LIKE = re.compile(
    r"""
    (?<![A-Za-z0-9])
    (?:
        (?:sk|rk|pk)-[A-Za-z0-9_\-]{8,}          # OpenAI, Anthropic (sk-ant-), DeepSeek...
      | (?:gsk|hf|ghp|gho|ghs|github_pat|xox[abp])_[A-Za-z0-9_\-]{8,}  # Groq, HF, GitHub, Slack
      | AIza[A-Za-z0-9_\-]{20,}                   # Google
      | xai-[A-Za-z0-9_\-]{8,}                    # xAI
    )
    """,
    re.VERBOSE,
)
# "Authorization: Bearer abc", "bearer abc": the scheme stays, the credential goes.
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{4,}")
# api_key=abc…, "access_token": "abc…", password=abc…: the name stays, the value goes
# (a value with a letter in it: "max token: 4096" is a number, not a secret).
_ASSIGNED = re.compile(
    r"""(?ix)
    \b((?:api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token
          |client[_\-]?secret|password|passwd|token)
       ["']?\s*[:=]\s*["']?)
    ((?=[^\s"',;&]*[a-z])[^\s"',;&]{6,})
    """
)
# A long run of letters and digits mixing upper case, lower case and digits: a random
# token. Hex digests, UUIDs, paths and words don't mix all three, or are split by '/'.
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])")


def _has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)


def _is_random_looking(token: str) -> bool:
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    )


def redact(text: str | None, secrets: Iterable[str | None] = ()) -> str | None:
    """``text`` with every key-like string, and every literal ``secrets`` entry, replaced
    by ``[redacted]``. None stays None."""
    if not text:
        return text
    for secret in secrets:
        if secret and len(secret.strip()) >= MIN_LITERAL_SECRET:
            text = text.replace(secret.strip(), REDACTED)
    # Real keys are random: a digit somewhere ("sk-learn-models" is a library's name).
    text = _KEY_LIKE.sub(lambda m: REDACTED if _has_digit(m.group(0)) else m.group(0), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _ASSIGNED.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    return _LONG_TOKEN.sub(
        lambda m: REDACTED if _is_random_looking(m.group(0)) else m.group(0), text
    )


class RedactingFilter(logging.Filter):
    """Redacts a log record's message (arguments and exception text included).

    The record is rendered once here and its arguments dropped, so no handler formats
    the unredacted values afterwards."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        record.msg = redact(message)
        record.args = None
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Redact every record that reaches ``logger``'s handlers (the root's by default)."""
    logger = logger or logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
