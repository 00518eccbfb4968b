"""Keeping secrets out of what the program stores, shows and logs.

A server refusing a key often echoes it in its error body ("Incorrect API key provided:
sk-proj-…"), and that text travels on into ``messages.error``, the log and the window.
:func:`redact` is the one rule set for "what looks like a secret"; it is applied where
error text enters the program (every model error — see ``ModelClient``), where an error
text is stored (``messages.error``, ``jobs.last_error``), where it is printed (the command
line's stderr) and to every log record (:class:`RedactingFilter`, installed by the
command line).

Patterns can't spot a configured key of any shape ("correct-horse-battery-staple"), so
the keys the program holds are remembered here (:func:`remember_secret`, called where a
key is read or handed to a client) and :func:`redact` cuts them wherever it runs. This
is process-wide on purpose: the log handlers are installed before any key is read, and
a sink must not depend on its caller knowing which key is in use.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import TypeVar

ErrorT = TypeVar("ErrorT", bound=BaseException)

REDACTED = "[redacted]"
#: A configured key shorter than this is not searched for literally: redacting every
#: occurrence of a 3-letter word would mangle the text and protect nothing.
MIN_LITERAL_SECRET = 6
#: A prefixed token (``sk-…``) this long after its prefix is a key whatever its letters:
#: "sk-test-XXXXXXXXXXXXXXXXXXXXXXXX" has no digit but is one; "sk-learn-models" is a name.
KEY_LENGTH = 20

_known_secrets: set[str] = set()
_known_lock = threading.Lock()

_KEY_LIKE = re.compile(
    r"""
    (?<![A-Za-z0-9])
    (?:
        (?:sk|rk|pk)-(?P<dash>[A-Za-z0-9_\-]{8,})    # OpenAI, Anthropic (sk-ant-), DeepSeek
      | (?:gsk|hf|ghp|gho|ghs|github_pat|xox[abp])_(?P<underscore>[A-Za-z0-9_\-]{8,})
                                                    # Groq, Hugging Face, GitHub, Slack
      | AIza[A-Za-z0-9_\-]{20,}                     # Google
      | xai-(?P<xai>[A-Za-z0-9_\-]{8,})             # xAI
    )
    """,
    re.VERBOSE,
)
# "Authorization: Bearer abc", "bearer abc": the scheme stays, the credential goes.
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\-]{4,}")
# http://alice:PASS@host/v1: the user and host stay, the password goes (any scheme: a
# store address, a proxy's).
_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/?#@:]*:)[^\s/?#@]*@")
# api_key=abc…, "access_token": "abc…", password=abc…: the name stays, the value goes
# (a value with a letter in it: "max token: 4096" is a number, not a secret). The name
# may be glued to what comes before ("/v1x_api_key=…", "?myapikey=…" in a path).
_ASSIGNED = re.compile(
    r"""(?ix)
    ((?:api[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token
          |client[_\-]?secret|password|passwd|token)
       ["']?\s*[:=]\s*["']?)
    ((?=[^\s"',;&]*[a-z])[^\s"',;&]{6,})
    """
)
# A long run of letters and digits mixing upper case, lower case and digits: a random
# token. Hex digests, UUIDs, paths and words don't mix all three, or are split by '/'.
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{32,}(?![A-Za-z0-9_\-])")


def _is_key(match: re.Match[str]) -> bool:
    """A key-like match is a key if it is random (a digit somewhere) or of key length
    after its prefix; a short word-like token is a name ("sk-learn-models")."""
    body = match.group("dash") or match.group("underscore") or match.group("xai")
    if body is None:
        return True  # AIza…: the pattern itself asks for key length
    return any(c.isdigit() for c in match.group(0)) or len(body) >= KEY_LENGTH


def _is_random_looking(token: str) -> bool:
    return (
        any(c.isupper() for c in token)
        and any(c.islower() for c in token)
        and any(c.isdigit() for c in token)
    )


def remember_secret(secret: str | None) -> None:
    """Cut ``secret`` (a key the program holds) from every text :func:`redact` sees from
    now on, whatever its shape (too short a value is ignored: see MIN_LITERAL_SECRET)."""
    if secret and len(secret.strip()) >= MIN_LITERAL_SECRET:
        with _known_lock:
            _known_secrets.add(secret.strip())


def redact(text: str | None, secrets: Iterable[str | None] = ()) -> str | None:
    """``text`` with every key-like string, every remembered key and every literal
    ``secrets`` entry (in any of its echoed forms: see :func:`_literal_form`), every
    password of a URL and every named credential replaced by ``[redacted]``. None stays
    None."""
    if not text:
        return text
    text = redact_known(text, secrets)
    text = _KEY_LIKE.sub(lambda m: REDACTED if _is_key(m) else m.group(0), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    text = _ASSIGNED.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    return _LONG_TOKEN.sub(
        lambda m: REDACTED if _is_random_looking(m.group(0)) else m.group(0), text
    )


def redacted_error(error: ErrorT) -> ErrorT:
    """``error`` with the keys, and anything that looks like one, cut from its text: a
    server's error body may echo the key, and this text is stored, logged, shown."""
    error.args = (redact(str(error)), *error.args[1:])
    return error


def redact_known(text: str | None, secrets: Iterable[str | None] = ()) -> str | None:
    """``text`` with only the keys the program holds (and ``secrets``) cut, in every
    echoed form. For a model's answer, which may rightly hold key-like examples
    ("sk-…", a long token in code) but never the user's own key: kept and indexed, it
    could be recalled into a prompt to another provider."""
    if not text:
        return text
    with _known_lock:
        literal = set(_known_secrets)
    literal.update(s.strip() for s in secrets if s and len(s.strip()) >= MIN_LITERAL_SECRET)
    # Longest first: a key that contains another is cut whole.
    for secret in sorted(literal, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
        text = _literal_form(secret).sub(REDACTED, text)
    return text


# Between a key's characters an echo may put spaces, line breaks or invisible
# characters ("sk-proj- Q3vT 8xLm…", a key wrapped at a column).
_GAP = r"[\s\u00ad\u200b\u200c\u200d\u2060\ufeff]*"


def _literal_form(secret: str) -> re.Pattern[str]:
    """``secret`` as a server or a log may echo it: each character as itself or
    percent-encoded (in a URL or a form body: ``a%2Bb%2F``, either case of hex, ``+``
    for a space), with gaps between characters. Cached per key: a handful of keys,
    every text redacted."""
    with _known_lock:
        pattern = _forms.get(secret)
    if pattern is None:
        parts = []
        for char in secret:
            encoded = "".join(f"%{byte:02x}" for byte in char.encode("utf-8"))
            choices = [re.escape(char), f"(?i:{re.escape(encoded)})"]
            if char == " ":
                choices.append(r"\+")
            parts.append(f"(?:{'|'.join(choices)})")
        pattern = re.compile(_GAP.join(parts))
        with _known_lock:
            _forms[secret] = pattern
    return pattern


_forms: dict[str, re.Pattern[str]] = {}


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
