"""``eval panel-search``: does the memory panel's search find memories by topic?

The labelled set (``data/panel_search_queries.json``, made as its README says) holds
profiles of extracted facts and the search words a person types, each with the facts it
should find. Each profile's facts are stored, oldest first in file order, in a temporary
profile through the memory service (embedded with the local WordLlama, as the app does);
each query is then asked exactly as the panel asks it (the topic and meaning search, then
the panel's first page under that query), and scored:

- recall@k: the share of a query's expected facts among the first ``k`` shown, averaged;
- average precision: how high the expected facts stand among those shown (1.0 when they
  come first), averaged; a list in date order scores low on it;
- shown: how many memories the first page lists (expected or not), averaged: what a
  person reads through, so the threshold is the highest that keeps the recall.

Figures per profile: ``tune`` (the lexicon and the threshold were shaped on it) and
``held_out`` (never tuned on).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from acai_desktop.core.errors import InvalidInputError
from benchmarks import DATA_DIR

GOAL_RECALL = 0.9


@dataclass(frozen=True)
class LabelledQuery:
    query: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class LabelledProfile:
    name: str
    memories: tuple[tuple[str, str, str], ...]  # (key, category, content), oldest first
    queries: tuple[LabelledQuery, ...]


def default_queries_path() -> Path:
    return DATA_DIR / "panel_search_queries.json"


def load_panel_queries(path: str | Path | None = None) -> list[LabelledProfile]:
    path = Path(path) if path is not None else default_queries_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        profiles = []
        for profile in data["profiles"]:
            memories = tuple(
                (str(m["key"]), str(m.get("category") or ""), str(m["content"]))
                for m in profile["memories"]
            )
            keys = {key for key, _, _ in memories}
            queries = tuple(
                LabelledQuery(str(q["query"]), tuple(str(k) for k in q["expected"]))
                for q in profile["queries"]
            )
            unknown = {k for q in queries for k in q.expected} - keys
            if unknown:
                raise InvalidInputError(
                    f"{path}: profile {profile['name']!r} expects unknown memories "
                    f"{', '.join(sorted(unknown))}."
                )
            profiles.append(LabelledProfile(str(profile["name"]), memories, queries))
    except OSError as error:
        raise InvalidInputError(f"Can't read the queries file {path}: {error}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise InvalidInputError(f"{path}: not a labelled query set ({error!r}).") from None
    if not profiles:
        raise InvalidInputError(f"{path} holds no profiles.")
    return profiles


def average_precision(shown: list[str], expected: set[str]) -> float:
    hits, total = 0, 0.0
    for rank, key in enumerate(shown, 1):
        if key in expected:
            hits += 1
            total += hits / rank
    return total / len(expected) if expected else 0.0


@dataclass
class QueryResult:
    profile: str
    query: str
    recall: float
    average_precision: float
    missed: list[str]
    shown: list[str]


@dataclass
class PanelSearchReport:
    k: int
    results: list[QueryResult] = field(default_factory=list)

    def figures(self, profile: str | None = None) -> dict:
        chosen = [r for r in self.results if profile is None or r.profile == profile]
        n = len(chosen) or 1
        return {
            "queries": len(chosen),
            f"recall@{self.k}": round(sum(r.recall for r in chosen) / n, 4),
            "mean_average_precision": round(sum(r.average_precision for r in chosen) / n, 4),
            # What a person reads through: every memory listed, expected or not.
            "mean_shown": round(sum(len(r.shown) for r in chosen) / n, 2),
        }

    def as_dict(self) -> dict:
        profiles = list(dict.fromkeys(r.profile for r in self.results))
        return {
            "k": self.k,
            "goal_recall": GOAL_RECALL,
            "all": self.figures(),
            **{name: self.figures(name) for name in profiles},
            "profiles": profiles,
            "per_query": [vars(r) for r in self.results],
        }


async def evaluate_panel_search(profiles: list[LabelledProfile], *, k: int = 20):
    """Ask each labelled query as the panel does (see the module docstring)."""
    from acai_desktop.core.memory.front_door import open_memory
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
    from acai_desktop.evaluation.temporary_profile import temporary_profile

    report = PanelSearchReport(k)
    embedder = WordLlamaEmbedder()
    for labelled in profiles:
        async with (
            temporary_profile("acai-eval-panel-search-") as profile,
            open_memory(profile, embedder=embedder) as memories,
        ):
            report.results += await _search_profile(memories, labelled, k)
    return report


async def _search_profile(memories, labelled: LabelledProfile, k: int) -> list[QueryResult]:
    from acai_desktop.core.memory.listing import PanelQuery

    key_of: dict[int, str] = {}
    for key, category, content in labelled.memories:
        item = await memories.remember(
            content,
            category=category or None,
            origin="critical_info",
            actor="critical_info_processor",
            confidence=0.9,
            explicit=True,  # every fact shown, whatever the policy says
        )
        key_of[item.id] = key
    results = []
    for labelled_query in labelled.queries:
        near = await memories.near_in_meaning(labelled_query.query)
        query = PanelQuery(text=labelled_query.query, near=near)
        page = await memories.read_panel(query, None, k)
        shown = [key_of.get(item.id, "?") for item in page.items]
        expected = set(labelled_query.expected)
        found = expected & set(shown)
        results.append(
            QueryResult(
                profile=labelled.name,
                query=labelled_query.query,
                recall=len(found) / len(expected) if expected else 1.0,
                average_precision=average_precision(shown, expected),
                missed=sorted(expected - found),
                shown=shown,
            )
        )
    return results


def format_panel_search(report: dict) -> str:
    k = report["k"]
    lines = [
        "Memory panel search on labelled queries (the first page as the panel shows it)",
        "",
        f"{'':<10}{'queries':>8}{'recall@' + str(k):>12}{'MAP':>8}{'shown':>8}",
    ]
    for name in ("all", *report["profiles"]):
        figures = report[name]
        lines.append(
            f"{name:<10}{figures['queries']:>8}{figures[f'recall@{k}']:>12.3f}"
            f"{figures['mean_average_precision']:>8.3f}{figures['mean_shown']:>8.1f}"
        )
    lines += [f"{'goal':<10}{'':>8}{'>= ' + format(report['goal_recall'], '.2f'):>12}", ""]
    missed = [r for r in report["per_query"] if r["missed"]]
    if missed:
        lines.append("queries missing expected memories:")
        lines += [
            f"  [{r['profile']}] {r['query']!r}: missed {', '.join(r['missed'])}" for r in missed
        ]
    return "\n".join(lines).rstrip()
