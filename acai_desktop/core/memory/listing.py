"""Which memories the memory panel shows, in what order, a page at a time.

The one rule of "visible": a memory the user still has (active, temporary or a
conflict waiting for a decision), narrowed by the panel's filter (pinned, conflicts,
temporary, facts, summaries, notes) and search words (every word must appear in the
text or the category, ignoring case), newest first. A search also shows the memories it
finds by topic and meaning (:mod:`~acai_desktop.core.memory.panel_search`), most
relevant first, before the other memories holding its words. The rule is written once, as data
(:data:`FILTER_CONDITIONS`) and one text fold, and read two ways: as SQL for the pages
and the count (the database does the work, on its thread), and as :meth:`PanelQuery.matches`
for one memory that changed while the panel was open (so a live update needs no query).

Pages are keyset pages: each asks for the memories after the last one shown, so a
memory added meanwhile never shifts a page (no duplicate, no gap).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from acai_desktop.core.records.memories import MemoryItem, MemoryStatus

if TYPE_CHECKING:  # the window imports this module to paint; the store comes later
    from acai_desktop.core.store.connection import Database
    from acai_desktop.core.store.database import Store
    from acai_desktop.core.store.dialect import SqliteDialect

#: The memories a user still has (in a fixed order, for the SQL); superseded and
#: forgotten ones only show in history.
PANEL_STATUSES = tuple(status for status in MemoryStatus if status.is_current)
#: Name of the SQL function folding text the way :func:`fold` does.
FOLD_FUNCTION = "acai_panel_fold"
DEFAULT_PAGE_SIZE = 200


class PanelFilter(StrEnum):
    ALL = "All"
    PINNED = "Pinned"
    CONFLICTS = "Conflicts"
    TEMPORARY = "Temporary"
    FACTS = "Facts"
    SUMMARIES = "Summaries"
    NOTES = "Notes"


#: What each filter keeps: (column, value), or None for everything visible.
FILTER_CONDITIONS: dict[PanelFilter, tuple[str, object] | None] = {
    PanelFilter.ALL: None,
    PanelFilter.PINNED: ("pinned", True),
    PanelFilter.CONFLICTS: ("status", MemoryStatus.CONFLICT.value),
    PanelFilter.TEMPORARY: ("status", MemoryStatus.TEMPORARY.value),
    PanelFilter.FACTS: ("kind", "fact"),
    PanelFilter.SUMMARIES: ("kind", "summary"),
    PanelFilter.NOTES: ("kind", "note"),
}


KIND_FILTERS = frozenset({PanelFilter.FACTS, PanelFilter.SUMMARIES, PanelFilter.NOTES})


def fold(text: str | None) -> str:
    """Case-insensitive form of ``text`` for search (any script, not only ASCII)."""
    return (text or "").casefold()


def _searchable(content: str | None, category: str | None) -> str:
    return fold(content) + "\n" + fold(category)


def _column_value(item: MemoryItem, column: str) -> object:
    value = getattr(item, column)
    if isinstance(value, bool):
        return int(value)
    return str(value) if isinstance(value, StrEnum) else value


#: Most relevant first (the rank among the memories found by topic and meaning, counted
#: from the end; 0 for the others), then newest first; the id breaks ties between
#: memories created in the same instant.
PanelKey = tuple[int, str, int]


def panel_key(item: MemoryItem, near: tuple[int, ...] = ()) -> PanelKey:
    return (_relevance(item.id, near), item.created_at, item.id)


def _relevance(memory_id: int, near: tuple[int, ...]) -> int:
    try:
        return len(near) - near.index(memory_id)
    except ValueError:
        return 0


#: :attr:`PanelQuery.project` for the memories outside every project only (project ids
#: start at 1); None shows every project's.
EVERYWHERE = 0


@dataclass(frozen=True)
class PanelQuery:
    """What the panel is asked to show: search text, one filter and a project."""

    text: str = ""
    filter: PanelFilter = PanelFilter.ALL
    #: One project's memories (its id), the ones outside every project
    #: (:data:`EVERYWHERE`), or every memory (None).
    project: int | None = None
    #: Memories found by topic and meaning (by the assistant's embeddings and topic
    #: lexicon: "pet" finds "The user's dog is named Buster"), most relevant first; shown
    #: in that order before the other memories containing its words.
    near: tuple[int, ...] = ()

    @classmethod
    def of(
        cls, text: str = "", filter_name: str = PanelFilter.ALL.value, project: int | None = None
    ) -> PanelQuery:
        try:
            chosen = PanelFilter(filter_name)
        except ValueError:
            chosen = PanelFilter.ALL
        return cls(text=text, filter=chosen, project=project)

    @property
    def words(self) -> list[str]:
        return fold(self.text).split()

    def asked(self) -> PanelQuery:
        """The query as the user typed it (without the memories found by meaning)."""
        return replace(self, near=())

    def key(self, item: MemoryItem) -> PanelKey:
        """Where ``item`` sorts under this query (pages run in descending key order)."""
        return panel_key(item, self.near)

    def order_sql(self) -> tuple[str, list]:
        """The relevance term of the order, as SQL and parameters ("0" without a search
        by meaning, which keeps the created_at index usable)."""
        if not self.near:
            return "0", []
        cases = " ".join("WHEN ? THEN ?" for _ in self.near)
        params: list = []
        for memory_id in self.near:
            params += [memory_id, _relevance(memory_id, self.near)]
        return f"(CASE id {cases} ELSE 0 END)", params

    def matches(self, item: MemoryItem) -> bool:
        """Whether ``item`` belongs in the panel under this query (the SQL of
        :meth:`where`, for one memory in hand)."""
        if not item.status.is_current:
            return False
        condition = FILTER_CONDITIONS[self.filter]
        if condition is not None and _column_value(item, condition[0]) != condition[1]:
            return False
        if self.project is not None and item.project_id != (self.project or None):
            return False
        haystack = _searchable(item.content, item.category)
        return all(word in haystack for word in self.words) or item.id in self.near

    def where(self, dialect: SqliteDialect, *, for_page: bool = False) -> tuple[str, list]:
        """The same rule as a SQL condition over ``memories`` in ``dialect`` and its
        parameters; ``for_page``: phrased for reading a page newest first (see below)."""
        # When most memories qualify (no filter, or a kind: facts are most of a big
        # profile), walking the created_at index newest first and stopping after a page
        # beats the status index plus a sort of them all, so those terms are kept out
        # of index choice (dialect.unindexed). Pinned, conflicts and temporary are few:
        # there the status index is the better start.
        # A count is best served by the status index whatever the filter.
        broad = FILTER_CONDITIONS[self.filter] is None or self.filter in KIND_FILTERS

        def column(name: str) -> str:
            return dialect.unindexed(name) if broad and for_page else name

        clauses = [f"{column('status')} IN ({', '.join('?' for _ in PANEL_STATUSES)})"]
        params: list = [status.value for status in PANEL_STATUSES]
        condition = FILTER_CONDITIONS[self.filter]
        if condition is not None:
            clauses.append(f"{column(condition[0])} = ?")
            params.append(condition[1])
        if self.project == EVERYWHERE:
            clauses.append("project_id IS NULL")
        elif self.project is not None:
            clauses.append("project_id = ?")
            params.append(self.project)
        searchable = f"{FOLD_FUNCTION}(content, category)"
        words = [dialect.contains(searchable, "?") for _ in self.words]
        params += self.words
        if words and self.near:
            near = f"id IN ({', '.join('?' for _ in self.near)})"
            clauses.append(f"(({' AND '.join(words)}) OR {near})")
            params += list(self.near)
        else:
            clauses += words
        return " AND ".join(clauses), params


def _register_fold(db: Database) -> None:
    """:func:`_searchable` as the SQL function FOLD_FUNCTION (PostgreSQL has it in its
    schema: ICU's ``lower``, the same as ``casefold`` for the letters of most languages)."""
    db.dialect.register_functions(db, {FOLD_FUNCTION: (2, _searchable)})


def count_panel(db: Database, query: PanelQuery) -> int:
    """How many memories the panel shows under ``query`` (database thread)."""
    _register_fold(db)
    where, params = query.where(db.dialect)
    return db.execute(f"SELECT count(*) FROM memories WHERE {where}", params).fetchone()[0]


def panel_page(
    db: Database, query: PanelQuery, after: PanelKey | None, limit: int = DEFAULT_PAGE_SIZE
) -> list[MemoryItem]:
    """Up to ``limit`` memories the panel shows under ``query`` (most relevant, then
    newest first), starting after the memory whose key is ``after`` (None: from the
    first). Database thread."""
    from acai_desktop.core.store.memories import SELECT_COLUMNS, memory_from_row

    _register_fold(db)
    where, params = query.where(db.dialect, for_page=True)
    relevance, relevance_params = query.order_sql()
    if after is not None:
        if query.near:
            where += (
                f" AND ({relevance} < ? OR ({relevance} = ? AND "
                "(created_at < ? OR (created_at = ? AND id < ?))))"
            )
            params += [*relevance_params, after[0], *relevance_params, after[0]]
        else:
            where += " AND (created_at < ? OR (created_at = ? AND id < ?))"
        params += [after[1], after[1], after[2]]
    order = "created_at DESC, id DESC"
    if query.near:
        order = f"{relevance} DESC, {order}"
        params += relevance_params
    rows = db.execute(
        f"SELECT {SELECT_COLUMNS} FROM memories WHERE {where} ORDER BY {order} LIMIT ?",
        [*params, limit],
    ).fetchall()
    return [memory_from_row(row) for row in rows]


@dataclass(frozen=True)
class PanelPage:
    """One page and, when asked for, the count of everything the query matches."""

    items: list[MemoryItem]
    total: int | None
    #: False when the page came back short: nothing after it matches (yet).
    more: bool


def read_panel_page(
    db: Database,
    query: PanelQuery,
    after: PanelKey | None,
    limit: int = DEFAULT_PAGE_SIZE,
    *,
    with_total: bool = False,
) -> PanelPage:
    """A page and (``with_total``) the count, read in one trip to the database thread."""
    items = panel_page(db, query, after, limit)
    more = len(items) == limit
    total = None
    if with_total:
        # A short first page is everything: no second pass over the table to count.
        total = count_panel(db, query) if more or after is not None else len(items)
    return PanelPage(items=items, total=total, more=more)


class PanelPages:
    """Pages of the memory panel read on the database thread: the window reads them from
    the database opened first (``ProfileData``) and later through the memory service,
    with one implementation. Mixed into classes that have a ``store``."""

    store: Store

    async def read_panel(
        self,
        query: PanelQuery,
        after: PanelKey | None = None,
        limit: int = DEFAULT_PAGE_SIZE,
        with_total: bool = False,
    ) -> PanelPage:
        """A page of what the panel shows under ``query`` and, ``with_total``, the count."""
        return await self.store.run(read_panel_page, query, after, limit, with_total=with_total)

    async def count_panel(self, query: PanelQuery) -> int:
        return await self.store.run(count_panel, query)
