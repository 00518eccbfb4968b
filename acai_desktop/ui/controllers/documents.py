"""Documents: add files or a folder (with Stop), remove, re-index, mark local only, the
shown chat's document scope, and a passage an answer quoted.

Indexing is not done here: adding queues each document with its job, and the core's
job runner indexes it in the background; the document events bring every change of
state into the Documents tab.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import shiboken6

from acai_desktop.ui.controllers.base import Controller, Services, in_background, short

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.documents.model import DocumentScope, EvidenceSource
    from acai_desktop.core.documents.service import AddReport
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.document_dialogs import PassageDialog


#: Adding a folder; one at a time (its Stop stops it).
FOLDER_TASK = "documents-folder"


class DocumentsController(Controller):
    def __init__(self, window: MainWindow, services: Services, chat: CurrentChat) -> None:
        super().__init__(services)
        self.window, self.chat = window, chat
        self.model = window.documents_model
        #: Set by the folder's Stop: the walk ends, and what it queued is taken back.
        self._stop_folder: asyncio.Event | None = None
        #: The documents the last add said it would read, until they are all read: then
        #: the status bar says so instead (never "Indexing…" for work that is done).
        self._being_read: dict[int, str | None] = {}
        #: Files the last add refused (said again with the outcome).
        self._not_added = 0
        panel = self.panel = window.documents_panel
        panel.add_files_requested.connect(self.add_files)
        panel.add_folder_requested.connect(self.add_folder)
        panel.stop_folder_requested.connect(self.stop_folder)
        panel.remove_requested.connect(self.remove)
        panel.reindex_requested.connect(self.reindex)
        panel.scope_requested.connect(self.set_scope)
        panel.project_requested.connect(self.set_project)
        panel.local_only_requested.connect(self.set_local_only)
        panel.scope_summary_changed.connect(window.show_scope_summary)
        chat.shown.connect(self.show_scope)
        window.events.document_changed.connect(self._on_document_changed)

    async def load(self, assistant: Assistant) -> None:
        """Fill the Documents tab (the events keep it current from then on)."""
        self.model.set_documents(await assistant.documents.list())
        await self._show_scope(assistant, self.chat.conversation_id)

    # -- adding --------------------------------------------------------------------------

    @in_background("documents-add")
    async def add_files(self, assistant: Assistant, paths: list[str]) -> None:
        report = await assistant.documents.add(paths)
        self._report(report)

    def add_folder(self, folder: str) -> None:
        if (assistant := self.services.open_or_say_why()) is None:
            return
        if self.services.tasks.get(FOLDER_TASK) is not None:
            self.say("A folder is being added; wait for it, or stop it, first.")
            return
        self._stop_folder = asyncio.Event()
        coro = self._add_folder(assistant, folder, self._stop_folder)
        self.services.run(coro, FOLDER_TASK, key=FOLDER_TASK)

    async def _add_folder(self, assistant: Assistant, folder: str, stop: asyncio.Event) -> None:
        self.panel.show_folder_progress(0, 0, False)
        try:
            report = await assistant.documents.add_folder(folder, stop=stop)
            if report.stopped:
                # What the walk queued and is still waiting is taken back too.
                await assistant.documents.stop_indexing([d.id for d in report.queued])
            self._report(report, stopped=report.stopped)
        finally:
            self.panel.show_folder_progress(0, 0, True)

    def stop_folder(self) -> None:
        if self._stop_folder is not None:
            self._stop_folder.set()

    def _report(self, report: AddReport, *, stopped: bool = False) -> None:
        """Say what an add did; a refused file's reason stays in the tab until the next add."""
        refused = [reason for _path, reason in report.refused]  # each names its file
        self.panel.show_notice(("Not added — " + "\n".join(refused)) if refused else "")
        parts = []
        if report.queued:
            count = len(report.queued)
            parts.append(f"Indexing {count} document{'' if count == 1 else 's'}…")
            self._being_read = {document.id: None for document in report.queued}
            self._not_added = len(refused)
        if report.unchanged:
            parts.append(f"{len(report.unchanged)} unchanged since indexed")
        if refused:
            parts.append(f"{len(refused)} not added")
        if stopped:
            parts.append("stopped")
        self.say(", ".join(parts) + "." if parts else "No document to add there.")

    def _on_document_changed(self, document) -> None:
        if document.id not in self._being_read or document.status not in ("ready", "error"):
            return
        self._being_read[document.id] = document.status
        outcomes = list(self._being_read.values())
        if None in outcomes:
            return
        self._being_read = {}
        read, failed = outcomes.count("ready"), outcomes.count("error")
        parts = [f"Indexed {read} document{'' if read == 1 else 's'}"]
        if failed:
            parts.append(f"{failed} could not be read (see its row)")
        if self._not_added:
            parts.append(f"{self._not_added} not added")
        self.say("; ".join(parts) + ".")

    # -- changing ------------------------------------------------------------------------

    @in_background("document-remove")
    async def remove(self, assistant: Assistant, document_id: int) -> None:
        document = await assistant.documents.remove(document_id)
        self.say(f"Removed “{short(document.name)}” and its passages.")

    @in_background("document-project")
    async def set_project(
        self, assistant: Assistant, document_id: int, project_id: int | None
    ) -> None:
        document = await assistant.documents.set_project(document_id, project_id)
        where = "every chat" if project_id is None else "its project's chats only"
        self.say(f"“{short(document.name)}” is quoted in {where}.")

    @in_background("document-local-only")
    async def set_local_only(self, assistant: Assistant, document_id: int, marked: bool) -> None:
        document = await assistant.documents.set_local_only(document_id, marked)
        if marked:
            self.say(f"Local only: “{short(document.name)}” never reaches a model elsewhere.")
        else:
            self.say(f"“{short(document.name)}” is no longer local only.")

    @in_background("document-reindex")
    async def reindex(self, assistant: Assistant, document_id: int) -> None:
        report = await assistant.documents.reindex(document_id)
        if report.refused:
            self.say(report.refused[0][1])
        elif report.queued:
            self.say(f"Indexing “{short(report.queued[0].name)}” again.")
        else:
            document = await assistant.documents.get(document_id)
            if document.status in ("queued", "indexing"):
                self.say(f"“{short(document.name)}” is on its way to being indexed already.")
            else:
                self.say(f"“{short(document.name)}” has not changed since it was indexed.")

    # -- scope -------------------------------------------------------------------------

    @in_background("document-scope")
    async def set_scope(self, assistant: Assistant, scope: DocumentScope) -> None:
        conversation_id = self.chat.conversation_id
        if conversation_id is None:
            return
        saved = await assistant.documents.set_scope(conversation_id, scope)
        if self.chat.conversation_id == conversation_id:
            self.panel.set_scope(saved)
        self.say(
            {
                "all": "This chat uses all your documents.",
                "none": "This chat uses no documents.",
            }.get(str(saved.mode), f"This chat uses {len(saved.document_ids)} of your documents.")
        )

    def show_scope(self, conversation_id: int | None) -> None:
        """The shown conversation changed: show its scope (a new chat has none yet)."""
        assistant = self.services.assistant
        if conversation_id is None or assistant is None:
            self.panel.set_scope(None)
            return
        self.services.run(self._show_scope(assistant, conversation_id), "document-scope")

    async def _show_scope(self, assistant: Assistant, conversation_id: int | None) -> None:
        scope = (
            None if conversation_id is None else await assistant.documents.scope(conversation_id)
        )
        # Another conversation may have been opened meanwhile: it shows its own.
        if self.chat.conversation_id == conversation_id:
            self.panel.set_scope(scope)

    # -- a quoted passage ------------------------------------------------------------------

    def open_passage(self, source: EvidenceSource) -> None:
        if self.services.open_or_say_why() is not None:
            self._fill_passage(self.window.dialogs.passage(source.citation()), source)

    @in_background("passage")
    async def _fill_passage(
        self, assistant: Assistant, dialog: PassageDialog, source: EvidenceSource
    ) -> None:
        passage = None
        if source.chunk_id is not None:
            passage = await assistant.documents.passage(source.chunk_id)
        if not shiboken6.isValid(dialog):
            return
        if passage is None or passage.document_id != source.document_id:
            dialog.show_gone(source.snippet)
        else:
            dialog.show_passage(passage)
