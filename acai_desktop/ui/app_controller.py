"""The app controller: one run of the window, from an open profile to a closed one.

Start-up and shut-down are explicit steps:

1. show the window and build its feature controllers (:mod:`acai_desktop.ui.controllers`),
   each wiring its own widgets;
2. open the profile's database under its lock and show its conversations and memories;
3. build the assistant on that database (:func:`open_assistant`, ``model_required=False``:
   without a usable model the data stays usable and a banner says why and what to do);
4. run until the user quits;
5. shut down while the loop still runs: hide the window, cancel and await every tracked
   task, then close the assistant (client, database, lock).

The controllers do the work as tracked tasks through the assistant's services (the
:class:`Services` facade, which says "still opening" while there is no assistant), and
the core's events, relayed by the window's :class:`EventBridge`, bring the results into
the Qt models. The controllers exist only with the window: built right after it, in
:meth:`AppController.run`; nothing in them checks for a missing window.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.background_import import import_in_background
from acai_desktop.ui.controllers.attachments import AttachmentsController
from acai_desktop.ui.controllers.base import STILL_OPENING, TURN_TASK, Services
from acai_desktop.ui.controllers.chat import ChatController
from acai_desktop.ui.controllers.chat_header import ChatHeaderController
from acai_desktop.ui.controllers.conversations import ConversationsController
from acai_desktop.ui.controllers.current_chat import CurrentChat
from acai_desktop.ui.controllers.documents import DocumentsController
from acai_desktop.ui.controllers.fact_review import FactReviewController
from acai_desktop.ui.controllers.imports import ImportsController
from acai_desktop.ui.controllers.memory_health import MemoryHealthController
from acai_desktop.ui.controllers.memory_moves import MemoryMovesController
from acai_desktop.ui.controllers.memory_panel import MemoryPanelController
from acai_desktop.ui.controllers.model_watch import ModelWatch
from acai_desktop.ui.controllers.projects import ProjectsController
from acai_desktop.ui.controllers.settings import SettingsController
from acai_desktop.ui.controllers.why_not import WhyNotController
from acai_desktop.ui.first_model_question import ask_for_a_first_model
from acai_desktop.ui.main_window import WINDOW_TITLE, MainWindow
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences
from acai_desktop.ui.status_text import progress_in_status_bar
from acai_desktop.ui.store_wait import StoreWait
from acai_desktop.ui.tasks import TaskTracker
from acai_desktop.ui.theme import ThemeController
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.file_dialogs import FOLDERS

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.models.chat_model import NoModelError
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.models.detection import Detect
    from acai_desktop.core.models.embeddings.base import Embedder
    from acai_desktop.core.profile.data import ProfileData
    from acai_desktop.core.profile.reconnect import Backoff
    from acai_desktop.core.profile.store_choice import ServerAddress

#: Imported on a worker thread after the window shows, so neither the first paint nor
#: the event loop waits for them: the store (sqlite3 alone), then the assistant's
#: modules (the model client, openai, pydantic models, the keyring).
PROFILE_DATA_MODULE = "acai_desktop.core.profile.data"
ASSISTANT_MODULE = "acai_desktop.core.assistant"
OPEN_TASK = "open"
__all__ = ["STILL_OPENING", "AppController", "model_problem_text"]
log = logging.getLogger(__name__)


def model_problem_text(problem: NoModelError) -> str:
    """The banner's text: why no model answers, and what to do about it."""
    return (
        f"The model can't be used: {problem}\n"
        f"Your conversations and memories are still here. {problem.next_step}"
    )


class AppController:
    # Built with the window, in run(): they exist only while it does.
    window: MainWindow
    chat: CurrentChat
    conversations: ConversationsController
    turns: ChatController
    header: ChatHeaderController
    memory_panel: MemoryPanelController
    fact_review: FactReviewController
    documents: DocumentsController
    attachments: AttachmentsController
    settings: SettingsController
    memory_health: MemoryHealthController
    imports: ImportsController
    memory_moves: MemoryMovesController
    projects: ProjectsController

    def __init__(
        self,
        profile: Profile,
        *,
        quit_after_ms: int | None = None,
        overrides: ModelOverrides | None = None,
        offline_embedder: Embedder | None = None,
        detect: Detect | None = None,
        store_backoff: Backoff | None = None,
        process_ends: bool = False,
    ) -> None:
        self.profile = profile
        #: The process ends when this run does (``acai-desktop gui``): work only the
        #: run would use may be dropped at quit (see background_import.py).
        self.process_ends = process_ends
        #: WordLlama, kept across reconnects so its weights load once per run.
        self.offline_embedder = offline_embedder
        #: How the first start looks for models (None: this machine's servers and
        #: environment; tests point it at scripted servers and closed ports).
        self.detect = detect
        self.quit_after_ms = quit_after_ms
        #: The waits between attempts to reach the memory's server (None: the default).
        self.store_backoff = store_backoff
        self.overrides = overrides
        self.tasks = TaskTracker()
        # One bus for the whole run: reconnecting to the model keeps the bridge.
        self.events = EventBus()
        #: The database opened first, until the assistant takes it over.
        self.profile_data: ProfileData | None = None
        #: The profile's conversations and memories are on screen (start-up measure).
        self.profile_shown = False
        #: The window exists (and so do its controllers).
        self.started = False
        self.theme: ThemeController | None = None
        self._quit = asyncio.Event()

    @property
    def assistant(self) -> Assistant | None:
        """Every service of the profile, once open (without a model: see model_problem)."""
        return self.services.assistant if self.started else None

    def request_quit(self) -> None:
        self._quit.set()

    # -- start-up and shut-down ------------------------------------------------------

    def _build(self) -> None:
        """The window, then the controllers given its widgets (each wires its own)."""
        window = self.window = MainWindow()
        self.services = Services(self.tasks, window.show_status)
        self.chat = CurrentChat(window)
        self.conversations = ConversationsController(window, self.services, self.chat)
        self.memory_panel = MemoryPanelController(window, self.services, self.conversations)
        self.fact_review = FactReviewController(window, self.services, self.memory_panel)
        self.documents = DocumentsController(window, self.services, self.chat)
        self.attachments = AttachmentsController(window, self.services, self.chat)
        self.why_not = WhyNotController(window, self.services)
        self.turns = ChatController(
            window,
            self.services,
            self.chat,
            conversations=self.conversations,
            memory_panel=self.memory_panel,
            documents=self.documents,
            attachments=self.attachments,
            why_not=self.why_not,
        )
        self.header = ChatHeaderController(window, self.services, self.chat, self.conversations)
        # The chat on screen may have its own model: the header checks it with each probe.
        self.model_watch = ModelWatch(window, self.services, self.header.set_probe)
        self.settings = SettingsController(window, self.services, self)
        self.memory_health = MemoryHealthController(
            window, self.services, self.profile, lambda: self.overrides
        )
        self.imports = ImportsController(window, self.services)
        self.memory_moves = MemoryMovesController(window, self.services)
        self.projects = ProjectsController(window, self.services, self.conversations, self.chat)
        window.quit_requested.connect(self.request_quit)
        self.store_wait = StoreWait(window, self._start_quit_timer, self.store_backoff)
        window.store_retry_button.clicked.connect(self.store_wait.retry)
        self.services.on_store_lost = self.store_lost
        window.events.store_lost.connect(self._on_events_store_lost)
        window.events.attach(self.events)
        self.started = True

    async def run(self) -> int:
        self._build()
        try:
            self.apply_preferences(load_ui_preferences(self.profile.settings_path))
            FOLDERS.attach(self.profile.settings_path)  # where file dialogs open
            self.window.show_status(f"Opening {self.profile.data_dir} …")
            self.window.set_model_name(None)
            self.window.show()
            error = await self._until_quit(self._open())
            if error is not None:
                await self._show_start_up_error(error)
                raise error
            await self._quit.wait()
        finally:
            await self.shutdown()
        return 0

    def _start_quit_timer(self) -> None:
        """``quit_after_ms`` (smoke tests) counts from the profile being on screen, or its
        start-up error, not from the start: however slow the machine, the test sees the
        profile open. Once only (reconnecting opens the profile again)."""
        if self.quit_after_ms is not None:
            QTimer.singleShot(self.quit_after_ms, self.request_quit)
            self.quit_after_ms = None

    async def _until_quit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro``; a quit meanwhile leaves it to shut-down, which cancels it."""
        task = self.tasks.start(coro, key=OPEN_TASK)
        quit_waiter = asyncio.ensure_future(self._quit.wait())
        try:
            await asyncio.wait([task, quit_waiter], return_when=asyncio.FIRST_COMPLETED)
        finally:
            quit_waiter.cancel()
        return task.result() if task.done() else None

    async def _open(self) -> AcaiError | None:
        """Open the profile's database and show its data, then build the assistant on it;
        an error that leaves nothing to show (the database can't be opened) is returned.

        The data comes first: conversations and the first page of memories are on
        screen while the assistant's heavy parts (the model client, the memory index,
        the job runner) load behind them."""
        await asyncio.to_thread(importlib.import_module, PROFILE_DATA_MODULE)
        from acai_desktop.core.errors import StoreUnavailableError
        from acai_desktop.core.profile.data import open_profile_data

        while True:  # with the memory on a server: once it can be used (store_wait.py)
            await self.store_wait.until_ready(lambda: self.profile)
            try:
                with progress_in_status_bar(self.window.show_status):
                    data = await open_profile_data(
                        self.profile, update_schema=self.store_wait.schema_update_allowed
                    )
            except StoreUnavailableError as error:  # it went away since the check
                await self.store_wait.wait(error.problem)
                continue
            except AcaiError as error:
                return error
            break
        self.store_wait.opened()
        self.profile_data = data
        await self.conversations.load_all(data)
        self._start_quit_timer()
        self.profile_shown = True
        self.window.chat_view.warm_up_later()
        # Quitting does not wait for it; when the process ends with the run, it stops.
        await import_in_background(ASSISTANT_MODULE, abandon=self.process_ends)
        from acai_desktop.core.assistant import open_assistant
        from acai_desktop.core.models.start import new_offline_embedder

        if self.offline_embedder is None:
            self.offline_embedder = new_offline_embedder()
        settings_wanted = await ask_for_a_first_model(
            self.window, self.profile, self.overrides, self.detect
        )
        try:
            assistant = await open_assistant(
                self.profile,
                self.overrides,
                model_required=False,
                events=self.events,
                data=data,
                offline_embedder=self.offline_embedder,
                # The window never picks a model for the user: it asked above.
                choose_first=False,
                detect=self.detect,
            )
        except AcaiError as error:
            return error
        self.services.assistant, self.profile_data = assistant, None  # it owns it now
        self.window.set_prompt_budget(assistant.orchestrator.prompts.budget_tokens)
        problem = assistant.model_problem
        from acai_desktop.core.models.model_status import status_of_error

        if problem is not None:
            self.window.show_model_status(None, status_of_error(problem))
            self.window.show_model_problem(model_problem_text(problem))
        else:
            # Known before the user sends: a cheap probe, beside the window's work.
            self.model_watch.check()
        # The chat on screen's own settings (its model in the chip, its prompt budget).
        self.header.set_probe(None)
        self.window.show_status(f"Profile: {self.profile.data_dir}")
        for warning in assistant.warnings:
            self.window.show_status(warning, 20_000)
        # Background work that failed (the model was down) or waits for a later retry,
        # with Retry; later failures and recoveries arrive as job events.
        self.window.show_failed_jobs(await assistant.waiting_jobs())
        self.window.memory_panel.suggestions.set_suggestions(await assistant.suggestions.pending())
        await self.fact_review.load(assistant)
        await self.documents.load(assistant)
        await self.attachments.load(assistant)
        if settings_wanted:
            self.settings.open_dialog()
        return None

    # -- the memory's server (a PostgreSQL store) -------------------------------------

    def store_lost(self) -> None:
        """The memory's server went away mid-session: close the assistant and open it
        again, which waits (with the banner) until the server answers."""
        if self.tasks.get(OPEN_TASK) is None:
            self.tasks.start(self._reconnect(), key=OPEN_TASK)

    def _on_events_store_lost(self, reason: str) -> None:
        log.info("the memory's server went away: %s", reason)
        self.store_lost()

    def use_store(self, server: ServerAddress | None) -> None:
        """A new choice of store (Settings → Store): reopen the profile there."""
        self.profile = dataclasses.replace(self.profile, server=server)
        self.store_wait.new_store()
        self.store_lost()

    async def shutdown(self) -> None:
        self.window.hide()
        await self.tasks.cancel_all()
        await self.window.memories_model.detach()
        if self.profile_data is not None:  # the assistant never took it over
            data, self.profile_data = self.profile_data, None
            await data.aclose()
        self.window.events.detach()
        if self.services.assistant is not None:
            assistant, self.services.assistant = self.services.assistant, None
            await assistant.close()
        self.started = False
        self.window.deleteLater()

    def reconnect(self) -> None:
        """Try again: close the assistant and open it with the saved settings."""
        if self.tasks.get(TURN_TASK) is not None or self.tasks.get(OPEN_TASK) is not None:
            return
        self.tasks.start(self._reconnect(), key=OPEN_TASK)

    async def until_reconnected(self) -> None:
        task = self.tasks.start(self._reconnect(), key=OPEN_TASK)
        await asyncio.wait([task])

    async def _reconnect(self) -> None:
        """Close the assistant (tasks, job runner, local server, database) and open it
        again with the saved settings."""
        self.window.show_reconnecting()
        self.model_watch.stop()  # it asks the client about to be closed
        try:
            assistant, self.services.assistant = self.services.assistant, None
            self.profile_shown = False
            await self.window.memories_model.detach()
            if assistant is not None:
                await assistant.close()
            if self.profile_data is not None:  # a start that failed half-way
                data, self.profile_data = self.profile_data, None
                await data.aclose()
            error = await self._open()
            if error is not None:
                self.window.show_model_problem(f"ACAI could not open its profile: {error}")
        finally:
            self.window.show_reconnected()

    def apply_preferences(self, preferences: UiPreferences) -> None:
        """The theme (following the system's colours for "system"), Enter's meaning and
        the side panels."""
        if self.theme is None:
            app = QApplication.instance()
            assert isinstance(app, QApplication)
            self.theme = ThemeController(app, preferences.theme, parent=self.window)
            self.theme.theme_changed.connect(self.window.set_theme)
            self.theme.apply()
        else:
            self.theme.set_choice(preferences.theme)
        self.window.set_enter_sends(preferences.enter_sends)
        self.window.set_panels(preferences.show_conversations, preferences.show_memory)

    async def _show_start_up_error(self, error: AcaiError) -> None:
        box = make_plain(
            QMessageBox(
                QMessageBox.Icon.Critical,
                WINDOW_TITLE,
                f"ACAI Desktop could not open its profile.\n\n{error}",
            )
        )
        closed = asyncio.Event()
        box.finished.connect(closed.set)
        self._start_quit_timer()
        box.open()  # never exec(): a nested Qt loop would stall the asyncio loop
        waiters = [asyncio.ensure_future(closed.wait()), asyncio.ensure_future(self._quit.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            box.deleteLater()
