"""The search box over conversations: titles by their words, messages through
``messages_fts``.

User text never reaches FTS5's parser as syntax: it is cut into word tokens
(:func:`~acai_desktop.core.rules.words.tokenize`) and each one is quoted, so quotes,
``*``, ``AND``, ``NEAR(`` or a stray parenthesis are words or nothing. Every word must
match (the search narrows as the user types) and each is also tried as a prefix, so a
half-typed last word already finds. Only the message's own text is matched
(``content``, not the neighbouring turns in ``context``), so the snippet shows why it
was found.

``messages_fts`` holds only the messages of ordinary conversations; a temporary chat's
messages are matched here by their words in Python (a temporary chat lives until it is
deleted, and there are few of them). A deleted conversation's rows are gone, so it is
never found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from acai_desktop.core.records.conversations import ConversationHit
from acai_desktop.core.rules.words import MAX_QUERY_TERMS, normalise, tokenize
from acai_desktop.core.store.connection import Database

#: Characters of a message shown before its first matched word, and in all.
SNIPPET_BEFORE = 40
SNIPPET_CHARS = 160
#: A temporary chat's messages are matched in Python: at most this many, newest first.
TEMPORARY_SCAN_LIMIT = 5000
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def search_terms(query: str) -> list[str]:
    """The distinct words of ``query``, normalised, in order (at most
    ``MAX_QUERY_TERMS``)."""
    return list(dict.fromkeys(tokenize(query)))[:MAX_QUERY_TERMS]


def match_expression(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH over the ``content`` column requiring every term, each as a word
    (stemmed by the index) or a prefix; None without terms. A one-letter term is not
    tried as a prefix: it would match most of the index."""
    parts = []
    for term in terms:
        quoted = '"' + term.replace('"', '""') + '"'
        parts.append(f"({quoted} OR {quoted}*)" if len(term) > 1 else quoted)
    return "{content} : (" + " AND ".join(parts) + ")" if parts else None


def _matches(words: set[str], terms: Sequence[str]) -> bool:
    return all(any(word.startswith(term) for word in words) for term in terms)


def text_matches(text: str, terms: Sequence[str]) -> bool:
    """Whether every term starts a word of ``text`` (case-insensitive)."""
    return bool(terms) and _matches(set(tokenize(text)), terms)


def snippet(text: str, terms: Sequence[str]) -> str:
    """A line of ``text`` around its first word a term starts (its beginning if none
    does: the index also matches stems such as "ran" for "running"), whitespace
    collapsed, with "…" where it was cut."""
    start = 0
    for word in _WORD.finditer(text):
        folded = normalise(word.group())
        if any(folded.startswith(term) for term in terms):
            start = word.start()
            break
    begin = max(0, start - SNIPPET_BEFORE)
    if begin > 0:  # start after a space: don't cut a word in two
        space = text.find(" ", begin, start)
        begin = space + 1 if space != -1 else begin
    end = min(len(text), begin + SNIPPET_CHARS)
    line = " ".join(text[begin:end].split())
    return ("…" if begin > 0 else "") + line + ("…" if end < len(text) else "")


def title_hits(db: Database, terms: Sequence[str], limit: int) -> list[ConversationHit]:
    """Conversations whose title has every term as (the start of) a word, most recently
    active first."""
    hits = []
    rows = db.execute(
        "SELECT id, title, created_at, temporary FROM conversations "
        "WHERE title != '' ORDER BY updated_at DESC, id DESC"
    )
    for conversation_id, title, created_at, temporary in rows:
        if text_matches(title, terms):
            hits.append(
                ConversationHit(conversation_id, title, None, "", created_at, None, bool(temporary))
            )
            if len(hits) >= limit:
                break
    return hits


def message_hits(db: Database, terms: Sequence[str], limit: int) -> list[ConversationHit]:
    """Messages of ordinary conversations matching every term, best (BM25) first."""
    match = match_expression(terms)
    if match is None:
        return []
    rows = db.dialect.full_text.conversation_message_rows(db, terms, match, limit)
    return [
        ConversationHit(conversation_id, title, message_id, snippet(content, terms), at, role)
        for message_id, conversation_id, title, content, at, role in rows
    ]


def temporary_message_hits(db: Database, terms: Sequence[str], limit: int) -> list[ConversationHit]:
    """Messages of temporary chats (not in ``messages_fts``) matching every term,
    newest first."""
    rows = db.execute(
        """
        SELECT m.id, m.conversation_id, c.title, m.content, m.created_at, m.role
        FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id
        WHERE c.temporary AND m.role IN ('user', 'assistant')
            AND m.status IN ('complete', 'stopped') AND m.content != '' AND NOT m.hidden
        ORDER BY m.id DESC LIMIT ?
        """,
        [TEMPORARY_SCAN_LIMIT],
    )
    hits = []
    for message_id, conversation_id, title, content, at, role in rows:
        if text_matches(content, terms):
            hits.append(
                ConversationHit(
                    conversation_id, title, message_id, snippet(content, terms), at, role, True
                )
            )
            if len(hits) >= limit:
                break
    return hits


def search_conversations(db: Database, query: str, limit: int = 50) -> list[ConversationHit]:
    """What the search box finds for ``query``, at most ``limit``: conversations by
    their title first, then messages of ordinary conversations (best first), then
    messages of temporary chats. Nothing for a query without words."""
    terms = search_terms(query)
    if not terms or limit <= 0:
        return []
    hits = title_hits(db, terms, limit)
    hits += message_hits(db, terms, limit - len(hits))
    if len(hits) < limit:
        hits += temporary_message_hits(db, terms, limit - len(hits))
    return hits
