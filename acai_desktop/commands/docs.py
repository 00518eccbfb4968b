"""``acai-desktop docs ...``: the user's documents, the evidence beside memory.

``add PATH...`` (files or folders, recursively) indexes in the foreground with a
progress line on stderr; ``list``, ``remove ID``, ``reindex [ID] [--force]``,
``search QUERY [-k N]`` and ``scope CONVERSATION [all|none|IDS...]``. Every action
takes ``--data-dir`` and ``--json``. With ``--json``: ``add``/``reindex`` print
``{"documents": [...], "refused": [{"path", "error"}]}``, ``list`` prints
``{"documents": [...]}``, ``remove`` the removed document, ``search``
``{"results": [{"rank", "score", "reasons", "document", "document_id", "chunk_id",
"page", "heading", "content"}]}``, ``scope`` ``{"mode", "document_ids"}``.
``add`` and ``reindex`` exit with 1 when a file was refused or could not be indexed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from acai_desktop.commands.arguments import options_of_every_action
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile.paths import Profile

if TYPE_CHECKING:
    from acai_desktop.core.documents.service import AddReport, DocumentService

DEFAULT_SEARCH_RESULTS = 5
#: How long ``add`` waits for a document another process (the window) is indexing.
OTHER_PROCESS_WAIT_SECONDS = 600


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = options_of_every_action()
    parser = subparsers.add_parser(
        "docs",
        parents=[common],
        help="add, list, remove, re-index and search your documents",
        description="The documents answers can quote as evidence (text, Markdown, PDF, "
        "HTML, source code; 50 MB per file at most).",
    )
    actions = parser.add_subparsers(dest="docs_action", metavar="ACTION", required=True)

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        return actions.add_parser(name, parents=[common], help=help_text, description=help_text)

    add = action("add", "add files or folders (recursively) and index them now")
    add.add_argument("paths", nargs="+", metavar="PATH")
    action("list", "list documents with their state and chunk count")
    action("remove", "remove a document and its chunks").add_argument("id")
    reindex = action("reindex", "index again the documents whose file changed (or one, or --force)")
    reindex.add_argument("id", nargs="?")
    reindex.add_argument("--force", action="store_true", help="even if the file is unchanged")
    search = action("search", "find the passages that match a query")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=DEFAULT_SEARCH_RESULTS, help="how many")
    scope = action(
        "scope",
        "show or set which documents a conversation uses: all, none, or document ids",
    )
    scope.add_argument("conversation")
    scope.add_argument("choice", nargs="*", help="all | none | ID [ID...]")
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.documents.service_factory import open_document_service
    from acai_desktop.core.events import EventBus

    as_json = getattr(args, "json", False)
    events = EventBus()
    progress = _Progress(events)
    async with open_document_service(profile, events=events) as service:
        output, ok = await ACTIONS[args.docs_action](service, args)
    progress.close()
    if as_json:
        print(json.dumps(output, ensure_ascii=False, indent=2))
    else:
        print(_human(args.docs_action, output))
    return 0 if ok else 1


def _id(text: str, what: str = "document") -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidInputError(f"{text!r} is not a {what} id (a number).") from None


class _Progress:
    """One progress line on stderr while documents are indexed."""

    def __init__(self, events) -> None:
        from acai_desktop.core import events as ev

        self.tty = sys.stderr.isatty()
        self.names: dict[int, str] = {}
        self.unsubscribe = [
            events.subscribe(ev.IndexingProgress, self._on_progress),
            events.subscribe(ev.DocumentChanged, self._on_changed),
            events.subscribe(ev.DocumentAdded, self._on_changed),
        ]

    def _on_changed(self, event) -> None:
        document = event.document
        self.names[document.id] = document.name
        if str(document.status) in ("ready", "error"):
            detail = (
                f"{document.chunk_count} chunks"
                if str(document.status) == "ready"
                else document.error
            )
            self._line(f"{document.name}: {document.status} ({detail})", final=True)

    def _on_progress(self, event) -> None:
        if self.tty:
            name = self.names.get(event.document_id, f"#{event.document_id}")
            self._line(f"{name}: {event.stage} {event.done}/{event.total}")

    def _line(self, text: str, *, final: bool = False) -> None:
        if self.tty:
            sys.stderr.write("\r\033[K" + text + ("\n" if final else ""))
        elif final:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        for unsubscribe in self.unsubscribe:
            unsubscribe()


# -- actions: each returns (the JSON-shaped result, whether all went well) ---------


def _report(report: AddReport, documents: list) -> tuple[dict, bool]:
    output = {
        "documents": [d.to_public_dict() for d in documents],
        "refused": [{"path": path, "error": error} for path, error in report.refused],
    }
    ok = not report.refused and all(str(d.status) == "ready" for d in documents)
    return output, ok


async def _index(service: DocumentService, report: AddReport) -> list:
    """Index the queued documents here; wait for any another process is indexing."""
    await service.index_now(report.job_ids)
    documents = []
    for queued in report.queued:
        document = await service.get(queued.id)
        waited = 0.0
        while str(document.status) in ("queued", "indexing") and waited < (
            OTHER_PROCESS_WAIT_SECONDS
        ):
            await asyncio.sleep(0.5)
            waited += 0.5
            document = await service.get(queued.id)
        documents.append(document)
    return documents


async def _add(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    from pathlib import Path

    from acai_desktop.core.documents.service import AddReport

    report = AddReport()
    for raw in args.paths:
        path = Path(raw).expanduser()
        part = await (service.add_folder(path) if path.is_dir() else service.add([path]))
        report.queued += part.queued
        report.unchanged += part.unchanged
        report.refused += part.refused
        report.job_ids += part.job_ids
    return _report(report, report.unchanged + await _index(service, report))


async def _list(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    return {"documents": [d.to_public_dict() for d in await service.list()]}, True


async def _remove(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    return (await service.remove(_id(args.id))).to_public_dict(), True


async def _reindex(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    document_id = _id(args.id) if args.id is not None else None
    report = await service.reindex(document_id, force=args.force)
    return _report(report, await _index(service, report))


async def _search(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    if args.k < 1:
        raise InvalidInputError("-k must be at least 1.")
    results = await service.search(args.query, args.k)
    return {
        "results": [
            {
                "rank": hit.rank,
                "score": round(hit.score, 4),
                "reasons": hit.reasons,
                "document": hit.passage.document_name,
                "document_id": hit.passage.document_id,
                "chunk_id": hit.passage.chunk_id,
                "page": hit.passage.page,
                "heading": hit.passage.heading,
                "content": hit.passage.content,
            }
            for hit in results
        ]
    }, True


async def _scope(service: DocumentService, args: argparse.Namespace) -> tuple[dict, bool]:
    from acai_desktop.core.documents.model import DocumentScope, ScopeMode

    conversation_id = _id(args.conversation, "conversation")
    if not args.choice:
        return (await service.scope(conversation_id)).to_dict(), True
    if args.choice in (["all"], ["none"]):
        scope = DocumentScope(ScopeMode(args.choice[0]))
    else:
        scope = DocumentScope(ScopeMode.SOME, tuple(_id(c) for c in args.choice))
    return (await service.set_scope(conversation_id, scope)).to_dict(), True


ACTIONS = {
    "add": _add,
    "list": _list,
    "remove": _remove,
    "reindex": _reindex,
    "search": _search,
    "scope": _scope,
}


# -- human-readable output ---------------------------------------------------------


def _size(size: int) -> str:
    for unit in ("B", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def _document_line(d: dict) -> str:
    line = f"{d['id']:>4}  {d['status']:<8} {d['chunk_count']:>5} chunks  {_size(d['size']):>9}  "
    line += d["name"]
    if d.get("error"):
        line += f"\n        {d['error']}"
    return line


def _human(action: str, output: dict) -> str:
    if action in ("add", "reindex", "list"):
        lines = [_document_line(d) for d in output["documents"]]
        if action == "reindex" and not lines and not output["refused"]:
            lines.append("Nothing changed since it was indexed (use --force to index anyway).")
        elif action == "list" and not lines:
            lines.append("No documents yet: `acai-desktop docs add PATH`.")
        lines += [f"refused: {r['error']}" for r in output.get("refused", ())]
        return "\n".join(lines)
    if action == "remove":
        return f"Removed document {output['id']} ({output['name']}) and its chunks."
    if action == "scope":
        if output["mode"] == "some":
            return "This conversation uses documents " + ", ".join(
                str(i) for i in output["document_ids"]
            )
        return "This conversation uses " + (
            "all documents." if output["mode"] == "all" else "no documents."
        )
    if not output["results"]:
        return "No passage matches."
    lines = []
    for hit in output["results"]:
        where = hit["document"] + (f", p. {hit['page']}" if hit["page"] else "")
        if hit["heading"]:
            where += f" — {hit['heading']}"
        text = " ".join(hit["content"].split())
        lines.append(f"{hit['rank']}. [{where}] (chunk {hit['chunk_id']}, {hit['score']:.3f})")
        lines.append(f"   {text[:300]}{'…' if len(text) > 300 else ''}")
    return "\n".join(lines)
