"""Start-up and shut-down of the GUI, as explicit steps.

1. create the QApplication (name, icon, theme) and make qasync's loop the asyncio loop;
2. show the window and wire it to the session;
3. open the services — the assistant (database, memory, model, job runner) or, when
   the model can't be started, the data without it and a banner saying why — and
   load the conversations and memories;
4. run until the user quits (closing the window, Ctrl+Q, SIGINT/SIGTERM, the
   desktop session ending, or ``--quit-after-ms`` in smoke tests);
5. shut down while the loop still runs: hide the window, cancel and await every
   tracked task, then close the services (client, database);
6. close the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from acai_desktop import __version__
from acai_desktop.core.errors import AcaiError, InvalidInputError, NotFoundError
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile import APP_NAME, Profile
from acai_desktop.core.records import Conversation, JobStatus, Message
from acai_desktop.ui.garbage import MainThreadGarbageCollector
from acai_desktop.ui.main_window import WINDOW_TITLE, MainWindow
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences, save_ui_preferences
from acai_desktop.ui.tasks import TaskTracker
from acai_desktop.ui.theme import ThemeController, app_icon, apply_theme
from acai_desktop.ui.untrusted import make_plain

if TYPE_CHECKING:
    from acai_desktop.core.assistant import ModelOverrides
    from acai_desktop.core.llm.settings import ModelSettings
    from acai_desktop.core.orchestrator import TurnResult
    from acai_desktop.core.store.conversations import ConversationRepository
    from acai_desktop.core.store.provenance import ProvenanceRepository
    from acai_desktop.ui.profile_data import ProfileData
    from acai_desktop.ui.services import GuiServices

#: Imported on a worker thread after the window shows, so neither the first paint nor
#: the event loop waits for them: the store (sqlite_utils, numpy), then the assistant's
#: modules (the model client, openai, pydantic models, the keyring).
PROFILE_DATA_MODULE = "acai_desktop.ui.profile_data"
SERVICES_MODULE = "acai_desktop.ui.services"

log = logging.getLogger(__name__)

# Python runs signal handlers only between bytecodes; while Qt's C++ loop idles no
# bytecode runs, so a timer wakes the interpreter now and then to notice Ctrl+C.
SIGNAL_POLL_MS = 250
TURN_TASK = "turn"
OPEN_TASK = "open"
LOAD_TASK = "load"
SETTINGS_TASK = "settings"
DETECT_TASK = "detect"
NEW_CONVERSATION_TITLE = "New conversation"
TEMPORARY_CONVERSATION_TITLE = "Temporary chat"


def create_application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(WINDOW_TITLE)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)
    app.setWindowIcon(app_icon())
    # Closing the window starts our shut-down; Qt must not leave its loop before
    # that has cancelled the tasks and closed the database.
    app.setQuitOnLastWindowClosed(False)
    apply_theme(app)
    return app


def _short(text: str, limit: int = 48) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class GuiSession:
    """One run of the window, from open services to closed services.

    The window asks (its ``*_requested`` signals); the session does the work as
    tracked tasks through the core services, and the core's events, relayed by the
    window's :class:`EventBridge`, bring the results into the Qt models.
    """

    def __init__(
        self,
        profile: Profile,
        *,
        quit_after_ms: int | None = None,
        overrides: ModelOverrides | None = None,
    ) -> None:
        self.profile = profile
        self.quit_after_ms = quit_after_ms
        self.overrides = overrides
        self.tasks = TaskTracker()
        # One bus for the whole session: reconnecting to the model keeps the bridge.
        self.events = EventBus()
        self.services: GuiServices | None = None
        #: The database opened first, until the services take it over.
        self.profile_data: ProfileData | None = None
        #: The profile's conversations and memories are on screen (start-up measure).
        self.profile_shown = False
        self.window: MainWindow | None = None
        self.conversation_id: int | None = None  # None: a new chat, not yet on disk
        #: Whether the new chat (conversation_id None) is to be a temporary one.
        self.new_chat_temporary = False
        #: The conversation of the answer being written (None: none, or not on disk yet).
        self.turn_conversation_id: int | None = None
        self.theme: ThemeController | None = None
        self._quit = asyncio.Event()

    def request_quit(self) -> None:
        self._quit.set()

    # -- start-up and shut-down ------------------------------------------------------

    async def run(self) -> int:
        if self.quit_after_ms is not None:
            QTimer.singleShot(self.quit_after_ms, self.request_quit)
        try:
            self.window = MainWindow()
            self._apply_preferences(load_ui_preferences(self.profile.settings_path))
            self._connect_signals()
            self.window.events.attach(self.events)
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
        """Open the profile's database and show its data, then start the services on it;
        an error that leaves nothing to show (the database can't be opened) is returned.

        The data comes first: conversations and the first page of memories are on
        screen while the assistant's heavy parts (the model client, the memory index,
        the job runner) load behind them."""
        assert self.window is not None
        await asyncio.to_thread(importlib.import_module, PROFILE_DATA_MODULE)
        from acai_desktop.ui.profile_data import open_profile_data

        try:
            data = await open_profile_data(self.profile)
        except AcaiError as error:
            return error
        self.profile_data = data
        await self._load_all()
        self.profile_shown = True
        await asyncio.to_thread(importlib.import_module, SERVICES_MODULE)
        from acai_desktop.ui.services import open_gui_services

        try:
            services = await open_gui_services(self.profile, self.overrides, self.events, data)
        except AcaiError as error:
            return error
        self.services, self.profile_data = services, None  # the services own it now
        self.window.set_model_name(services.model_name)
        self.window.show_model_problem(services.model_problem)
        self.window.show_status(f"Profile: {self.profile.data_dir}")
        for warning in services.warnings:
            self.window.show_status(warning, 20_000)
        # Background work that failed (the model was down), with Retry; later failures
        # and recoveries arrive as job events.
        self.window.show_failed_jobs(await services.jobs.list([JobStatus.FAILED]))
        return None

    def _repositories(self) -> tuple[ConversationRepository, ProvenanceRepository]:
        """The conversation and provenance reads, from the services or, while they start,
        from the database the window opened first."""
        if self.services is not None:
            return self.services.conversations, self.services.provenance
        assert self.profile_data is not None
        return self.profile_data.conversations, self.profile_data.provenance

    async def shutdown(self) -> None:
        if self.window is not None:
            self.window.hide()
        await self.tasks.cancel_all()
        if self.window is not None:
            await self.window.memories_model.detach()
        if self.profile_data is not None:  # the services never took it over
            data, self.profile_data = self.profile_data, None
            await data.aclose()
        if self.window is not None:
            self.window.events.detach()
        if self.services is not None:
            services, self.services = self.services, None
            await services.aclose()
        if self.window is not None:
            self.window.deleteLater()
            self.window = None

    def _apply_preferences(self, preferences: UiPreferences) -> None:
        """The theme (following the system's colours for "system") and Enter's meaning."""
        assert self.window is not None
        if self.theme is None:
            app = QApplication.instance()
            assert isinstance(app, QApplication)
            self.theme = ThemeController(app, preferences.theme, parent=self.window)
            self.theme.theme_changed.connect(self.window.set_theme)
            self.theme.apply()
        else:
            self.theme.set_choice(preferences.theme)
        self.window.set_enter_sends(preferences.enter_sends)

    # -- wiring ----------------------------------------------------------------------

    def _connect_signals(self) -> None:
        window = self.window
        assert window is not None
        window.quit_requested.connect(self.request_quit)
        window.send_requested.connect(self._on_window_send_requested)
        window.stop_requested.connect(self._on_window_stop_requested)
        window.retry_requested.connect(self._on_window_retry_requested)
        window.new_conversation_requested.connect(self._on_window_new_conversation_requested)
        window.open_conversation_requested.connect(self._on_window_open_conversation_requested)
        window.conversation_rename_requested.connect(self._on_window_conversation_rename_requested)
        window.conversation_delete_requested.connect(self._on_window_conversation_delete_requested)
        window.answer_sources_requested.connect(self._on_window_answer_sources_requested)
        window.recalled_message_open_requested.connect(
            self._on_window_recalled_message_open_requested
        )
        window.memory_save_requested.connect(self._on_window_memory_save_requested)
        window.memory_pin_requested.connect(self._on_window_memory_pin_requested)
        window.memory_forget_requested.connect(self._on_window_memory_forget_requested)
        window.memory_restore_requested.connect(self._on_window_memory_restore_requested)
        window.memory_details_requested.connect(self._on_window_memory_details_requested)
        window.memory_resolve_requested.connect(self._on_window_memory_resolve_requested)
        window.reconnect_requested.connect(self._on_window_reconnect_requested)
        window.jobs_retry_requested.connect(self._on_window_jobs_retry_requested)
        window.new_temporary_conversation_requested.connect(
            self._on_window_new_temporary_conversation_requested
        )
        window.note_save_requested.connect(self._on_window_note_save_requested)
        window.settings_requested.connect(self._on_window_settings_requested)
        window.settings_detect_requested.connect(self._on_window_settings_detect_requested)
        window.settings_save_requested.connect(self._on_window_settings_save_requested)
        window.preferences_save_requested.connect(self._on_window_preferences_save_requested)
        window.events.message_added.connect(self._on_events_message_added)

    def _services_or_say_why(self) -> GuiServices | None:
        if self.services is None and self.window is not None:
            self.window.show_status("Still opening the profile; try again in a moment.", 5000)
        return self.services

    def _run_reporting(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        """Run ``coro`` as a tracked task; a refusal from the core goes to the status bar."""

        async def reporting() -> None:
            try:
                await coro
            except AcaiError as error:
                if self.window is not None:
                    self.window.show_status(str(error), 10_000)

        self.tasks.start(reporting(), name=name)

    # -- conversations ---------------------------------------------------------------

    async def _load_all(self) -> None:
        data, window = self.profile_data, self.window
        assert data is not None and window is not None
        # The memory panel reads its first page while the conversations load (both on
        # the database thread, in turn); later pages come as the user scrolls.
        first_page = window.memories_model.attach(data.read_panel, data.count_panel)
        conversations = await data.conversations.list()
        window.conversations_model.set_conversations(conversations)
        if first_page is not None:
            await asyncio.wait([first_page])
        latest = next((c for c in conversations if not c.temporary), None)
        if latest is not None:
            await self._show_conversation(latest)
        else:
            self._show_new_chat()

    async def _show_conversation(self, conversation: Conversation) -> None:
        window = self.window
        assert window is not None
        conversations, provenance = self._repositories()
        messages = await conversations.messages(conversation.id)
        counts = {}
        for message in messages:
            if message.role == "assistant" and message.status != "streaming":
                counts[message.id] = len(await provenance.sources_of_answer(message.id))
        self.conversation_id = conversation.id
        window.show_conversation(
            conversation.id,
            conversation.title or NEW_CONVERSATION_TITLE,
            messages,
            counts,
            temporary=conversation.temporary,
        )

    def _show_new_chat(self, *, temporary: bool = False) -> None:
        assert self.window is not None
        self.conversation_id = None
        self.new_chat_temporary = temporary
        title = TEMPORARY_CONVERSATION_TITLE if temporary else NEW_CONVERSATION_TITLE
        self.window.show_conversation(None, title, [], temporary=temporary)

    def _on_window_new_conversation_requested(self) -> None:
        self._show_new_chat()
        if self.window is not None:
            self.window.composer.input.setFocus()

    def _on_window_new_temporary_conversation_requested(self) -> None:
        self._show_new_chat(temporary=True)
        if self.window is not None:
            self.window.composer.input.setFocus()

    def _on_window_open_conversation_requested(self, conversation_id: int) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def open_conversation() -> None:
            await self._show_conversation(await services.conversations.get(conversation_id))

        self._run_reporting(open_conversation(), name=LOAD_TASK)

    def _on_window_conversation_rename_requested(self, conversation_id: int, title: str) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def rename() -> None:
            # The list and the header follow the CONVERSATION_CHANGED news.
            await services.conversation_service.rename(conversation_id, title)

        self._run_reporting(rename(), "conversation-rename")

    def _on_window_conversation_delete_requested(self, conversation_id: int) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def delete() -> None:
            turn = self.tasks.get(TURN_TASK)
            if turn is not None and self.turn_conversation_id in (conversation_id, None):
                # Its answer is being written: stop it (what was written is saved, its
                # jobs queued) before the messages go, so nothing writes to them after.
                self.tasks.cancel(TURN_TASK)
                await asyncio.wait([turn])
            await services.conversation_service.delete(conversation_id)
            if conversation_id == self.conversation_id:
                self._show_new_chat()
            self._say("Conversation deleted. What ACAI learned from it stays in your memories.")

        self._run_reporting(delete(), "conversation-delete")

    def _on_events_message_added(self, message: Message) -> None:
        if message.role == "user" and self.services is not None:
            # Its title (from the first message) and its place in the list change now.
            self._run_reporting(
                self._refresh_conversation(message.conversation_id), "refresh-conversation"
            )

    async def _refresh_conversation(self, conversation_id: int) -> None:
        assert self.services is not None and self.window is not None
        conversation = await self.services.conversations.get(conversation_id)
        self.window.conversations_model.on_conversation_changed(conversation)
        if conversation_id == self.conversation_id:
            self.window.set_conversation_title(conversation.title or NEW_CONVERSATION_TITLE)
            self.window.conversation_list.select_conversation(conversation_id)

    # -- turns -----------------------------------------------------------------------

    def _on_window_send_requested(self, text: str) -> None:
        if (services := self._services_or_say_why()) is None:
            return
        if self.tasks.get(TURN_TASK) is not None:
            return  # one answer at a time; the composer shows Stop meanwhile
        self._start_turn(self._send(services, text))

    def _on_window_retry_requested(self, answer_id: int) -> None:
        if (services := self._services_or_say_why()) is None:
            return
        if self.tasks.get(TURN_TASK) is not None:
            assert self.window is not None
            self.window.show_status("Wait for the current answer, or stop it, first.", 5000)
            return
        self._start_turn(services.orchestrator.retry(answer_id))

    def _on_window_stop_requested(self) -> None:
        self.tasks.cancel(TURN_TASK)

    def _start_turn(self, turn: Coroutine[Any, Any, TurnResult | None]) -> None:
        assert self.window is not None
        # Busy at once, so a second Ctrl+Enter can't start a second turn.
        self.window.set_busy(True)
        self.turn_conversation_id = self.conversation_id
        self.tasks.start(self._turn(turn), key=TURN_TASK)

    async def _turn(self, turn: Coroutine[Any, Any, TurnResult | None]) -> None:
        try:
            try:
                result = await turn
            except AcaiError as error:
                # Refused before anything was written: the text stays in the composer.
                if self.window is not None:
                    self.window.show_status(f"Not sent: {error}", 10_000)
                return
            if result is not None and self.window is not None:
                model = self.window.messages_model
                model.update_message(result.answer)
                model.set_sources_count(result.answer.id, len(result.memories_used))
                if result.status == "error":
                    self.window.show_status("The answer failed; see the message. Retry?", 10_000)
        finally:
            self.turn_conversation_id = None
            if self.window is not None:
                self.window.set_busy(False)

    async def _send(self, services: GuiServices, text: str) -> TurnResult:
        assert self.window is not None
        from acai_desktop.core.orchestrator import validate_user_message

        text = validate_user_message(text)
        if self.conversation_id is None:
            temporary = self.new_chat_temporary
            conversation = await services.conversations.create(temporary=temporary)
            self.conversation_id = self.turn_conversation_id = conversation.id
            self.window.show_conversation(
                conversation.id,
                TEMPORARY_CONVERSATION_TITLE if temporary else NEW_CONVERSATION_TITLE,
                [],
                temporary=temporary,
            )
        return await services.orchestrator.send(self.conversation_id, text)

    # -- provenance ------------------------------------------------------------------

    def _on_window_answer_sources_requested(self, answer_id: int) -> None:
        if (services := self._services_or_say_why()) is None or self.window is None:
            return
        dialog = self.window.open_answer_sources(answer_id)

        async def fill() -> None:
            sources = await services.provenance.sources_of_answer(answer_id)
            rows = []
            for source in sources:
                try:
                    if source.recalled_message_id is not None:
                        message_id = source.recalled_message_id
                        item = await services.conversations.recalled_message(message_id)
                    else:
                        item = await services.memories.get(source.memory_id)
                except NotFoundError:
                    item = None
                rows.append((source, item))
            if shiboken6.isValid(dialog):
                dialog.set_sources(rows)

        self._run_reporting(fill(), "answer-sources")

    def _on_window_recalled_message_open_requested(
        self, conversation_id: int, message_id: int
    ) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def open_at_message() -> None:
            await self._show_conversation(await services.conversations.get(conversation_id))
            if self.window is not None and not self.window.chat_view.show_message(message_id):
                self._say("That message is no longer in its conversation.")

        self._run_reporting(open_at_message(), name=LOAD_TASK)

    # -- memories --------------------------------------------------------------------

    def _on_window_memory_save_requested(self, memory_id: int, text: str) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def save() -> None:
            await services.memories.edit(memory_id, text)
            self._say("Saved. ACAI will keep this memory as you wrote it.")

        self._run_reporting(save(), "memory-edit")

    def _on_window_memory_pin_requested(self, memory_id: int, pinned: bool) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def pin() -> None:
            if pinned:
                await services.memories.pin(memory_id)
                self._say("Pinned: this memory is always in context.")
            else:
                await services.memories.unpin(memory_id)
                self._say("Unpinned.")

        self._run_reporting(pin(), "memory-pin")

    def _on_window_memory_forget_requested(self, memory_id: int) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def forget() -> None:
            item = await services.memories.forget(memory_id)
            if self.window is not None:
                self.window.offer_undo(f"Forgot “{_short(item.content)}”.", memory_id)

        self._run_reporting(forget(), "memory-forget")

    def _on_window_memory_restore_requested(self, memory_id: int) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def restore() -> None:
            item = await services.memories.restore(memory_id)
            self._say(f"Restored “{_short(item.content)}”.")

        self._run_reporting(restore(), "memory-restore")

    def _on_window_memory_resolve_requested(self, memory_id: int, keep: str) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def resolve() -> None:
            item = await services.memories.resolve_conflict(memory_id, keep=keep)
            if keep == "new":
                self._say(f"Using “{_short(item.content)}” now; the old memory stays in history.")
            elif self.window is not None:
                # A rejected conflict is only forgotten: Undo brings the choice back.
                self.window.offer_undo(
                    f"Kept the old memory; forgot “{_short(item.content)}”.", memory_id
                )

        self._run_reporting(resolve(), "memory-resolve")

    def _on_window_memory_details_requested(self, memory_id: int) -> None:
        if (services := self._services_or_say_why()) is None or self.window is None:
            return
        dialog = self.window.open_memory_details(memory_id)

        async def fill() -> None:
            item = await services.memories.get(memory_id)
            history = await services.memories.history(memory_id)
            messages = []
            for message_id in await services.memories.sources(memory_id):
                try:
                    messages.append(await services.conversations.get_message(message_id))
                except NotFoundError:
                    continue
            used = await services.provenance.answers_using_memory(memory_id)
            conflicting = None
            if item.status == "conflict" and item.meta.get("conflicts_with") is not None:
                # If it can't be read, the dialog names it by its id only.
                with contextlib.suppress(NotFoundError, InvalidInputError):
                    conflicting = await services.memories.get(item.meta["conflicts_with"])
            if shiboken6.isValid(dialog):
                dialog.set_details(item, history, messages, len(used), conflicting=conflicting)

        self._run_reporting(fill(), "memory-details")

    def _on_window_note_save_requested(self, text: str) -> None:
        window = self.window
        if window is None:
            return
        dialog = window.note_dialog
        services = self.services
        if services is None:
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.show_error("Still opening the profile; try again in a moment.")
            return

        async def save() -> None:
            try:
                await services.memories.remember(text, kind="note", explicit=True)
            except AcaiError as error:
                # Refused (empty, too long, control characters): the text stays.
                if dialog is not None and shiboken6.isValid(dialog):
                    dialog.show_error(str(error))
                return
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.saved()
            self._say("Noted. ACAI keeps this as you wrote it.")

        self._run_reporting(save(), "note-add")

    def _say(self, text: str) -> None:
        if self.window is not None:
            self.window.show_status(text, 6000)

    # -- background jobs -------------------------------------------------------------

    def _on_window_jobs_retry_requested(self, job_ids: list[int]) -> None:
        if (services := self._services_or_say_why()) is None:
            return

        async def retry() -> None:
            revived = await services.retry_jobs(job_ids)
            if services.assistant is None:
                # Revived in the database; no runner here, so the bar is updated by hand.
                if self.window is not None:
                    self.window.show_failed_jobs(await services.jobs.list([JobStatus.FAILED]))
                self._say("Queued again: they run once the model is connected.")
            else:
                self._say(f"Trying again ({len(revived)}).")

        self._run_reporting(retry(), "jobs-retry")

    # -- the model -------------------------------------------------------------------

    def _on_window_reconnect_requested(self) -> None:
        if self.tasks.get(TURN_TASK) is not None or self.tasks.get(OPEN_TASK) is not None:
            return
        self.tasks.start(self._reconnect(), key=OPEN_TASK)

    async def _reconnect(self) -> None:
        """Close the services (tasks, job runner, local server, database) and open them
        again with the saved settings."""
        assert self.window is not None
        self.window.reconnect_button.setEnabled(False)
        self.window.set_connecting()
        try:
            services, self.services = self.services, None
            self.profile_shown = False
            await self.window.memories_model.detach()
            if services is not None:
                await services.aclose()
            if self.profile_data is not None:  # a start that failed half-way
                data, self.profile_data = self.profile_data, None
                await data.aclose()
            error = await self._open()
            if error is not None:
                self.window.show_model_problem(f"ACAI could not open its profile: {error}")
        finally:
            if self.window is not None:
                self.window.reconnect_button.setEnabled(True)

    def current_settings(self) -> ModelSettings:
        from acai_desktop.core.llm.settings import ModelSettings, load_model_settings

        """What the assistant runs with, else what is saved, else the defaults."""
        if self.services is not None and self.services.assistant is not None:
            return self.services.assistant.settings
        return load_model_settings(self.profile.settings_path) or ModelSettings()

    def _on_window_settings_requested(self) -> None:
        if self.window is None:
            return
        self.tasks.start(self._open_settings(), name="settings-open")

    async def _open_settings(self) -> None:
        from acai_desktop.core.llm.presets import ProviderName
        from acai_desktop.core.llm.settings import ModelSettings

        problem = None
        try:
            settings = self.current_settings()
        except InvalidInputError as error:  # a damaged settings file: start from defaults
            settings, problem = ModelSettings(), str(error)
        from acai_desktop.core.secrets import SecretStore

        secrets = SecretStore(self.profile.data_dir)

        def providers_with_key() -> set[str]:
            # The keyring may answer slowly (D-Bus): not on the loop's thread.
            return {str(name) for name in ProviderName if secrets.get_api_key(str(name))}

        with_key = await asyncio.to_thread(providers_with_key)
        if self.window is None:
            return
        dialog = self.window.open_settings(
            settings,
            providers_with_key=with_key,
            key_warning=secrets.warning or secrets.new_key_warning,
            preferences=load_ui_preferences(self.profile.settings_path),
        )
        if problem:
            dialog.show_error(problem)

    def _on_window_settings_detect_requested(self, provider: str, url: str) -> None:
        from acai_desktop.core.llm.presets import ProviderName

        # The address typed in the dialog is probed too (a custom server, another port).
        urls = {provider: url} if url and provider != ProviderName.LOCAL else None

        async def detect() -> None:
            from acai_desktop.core.llm.detection import detect_providers

            try:
                report = await detect_providers(urls=urls)
            except Exception as error:  # shown in the dialog, whose button comes back
                log.exception("provider detection failed")
                report, failure = None, f"Detection failed: {error}"
            dialog = self.window.settings_dialog if self.window is not None else None
            if dialog is None or not shiboken6.isValid(dialog):
                return
            if report is None:
                dialog.detection_failed(failure)
            else:
                dialog.show_detection(report)

        self.tasks.start(detect(), key=DETECT_TASK)

    def _on_window_preferences_save_requested(self, preferences: UiPreferences) -> None:
        if self.window is None:
            return
        self._apply_preferences(preferences)
        try:
            save_ui_preferences(self.profile.settings_path, preferences)
        except OSError as error:
            self.window.show_status(f"Appearance not saved: {error}", 10_000)

    def _on_window_settings_save_requested(self, settings: ModelSettings, api_key: str) -> None:
        self.tasks.start(self._save_settings(settings, api_key), key=SETTINGS_TASK)

    async def _save_settings(self, settings: ModelSettings, api_key: str) -> None:
        from acai_desktop.core.llm.settings import save_model_settings

        window = self.window
        assert window is not None
        dialog = window.settings_dialog
        from acai_desktop.core.secrets import SecretStore

        secrets = SecretStore(self.profile.data_dir)

        def write() -> None:
            save_model_settings(self.profile.settings_path, settings)
            if api_key:
                secrets.set_api_key(str(settings.provider), api_key)

        try:
            await asyncio.to_thread(write)
        except (AcaiError, OSError) as error:
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.saving_failed(f"Not saved: {error}")
            return
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.accept()
        running = self.services.assistant if self.services is not None else None
        if running is not None and settings == running.settings and not api_key:
            return  # only the appearance changed: no need to restart the model
        # What the user chose in the window wins over the command line from now on.
        self.overrides = None
        # Stop the answer being written: its model is about to go away.
        turn = self.tasks.get(TURN_TASK)
        if turn is not None:
            self.tasks.cancel(TURN_TASK)
            await asyncio.wait([turn])
        await self._until_reconnected()
        if api_key and secrets.warning and self.window is not None:
            self.window.show_status(secrets.warning, 20_000)

    async def _until_reconnected(self) -> None:
        task = self.tasks.start(self._reconnect(), key=OPEN_TASK)
        await asyncio.wait([task])

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
        box.open()  # never exec(): a nested Qt loop would stall the asyncio loop
        waiters = [asyncio.ensure_future(closed.wait()), asyncio.ensure_future(self._quit.wait())]
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            box.deleteLater()


def run_gui(
    profile: Profile,
    *,
    quit_after_ms: int | None = None,
    on_session: Callable[[QApplication, GuiSession], None] | None = None,
) -> int:
    """Open the window and block until the user quits; returns the exit code.

    ``on_session`` sees the application and the session before the session starts
    (``bench startup`` watches the start-up through it)."""
    # Imported here, after PySide6: qasync binds to the first Qt binding it finds
    # loaded, and another one (PyQt5 from the system) might come first otherwise.
    import qasync

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    session = GuiSession(profile, quit_after_ms=quit_after_ms)
    if on_session is not None:
        on_session(app, session)
    app.aboutToQuit.connect(session.request_quit)
    restore_signals = _quit_on_signals(loop, session.request_quit)
    collector = MainThreadGarbageCollector()
    collector.start()
    try:
        main = loop.create_task(session.run(), name="gui-session")
        try:
            return loop.run_until_complete(main)
        except RuntimeError:
            if main.done():
                raise
            # Qt left its loop by itself (the desktop session is ending): run it once
            # more so the shut-down steps can finish.
            log.info("Qt event loop ended early; finishing shut-down")
            return loop.run_until_complete(main)
    finally:
        restore_signals()
        app.aboutToQuit.disconnect(session.request_quit)
        loop.close()
        asyncio.set_event_loop(None)
        collector.stop()


def _quit_on_signals(loop: asyncio.AbstractEventLoop, quit: Callable[[], None]):
    """SIGINT and SIGTERM ask for a clean shut-down; returns a function undoing this."""
    previous = {}

    def handler(signum: int, frame: object) -> None:
        loop.call_soon_threadsafe(quit)

    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, handler)
    poll = QTimer()
    poll.timeout.connect(lambda: None)
    poll.start(SIGNAL_POLL_MS)

    def restore() -> None:
        poll.stop()
        for signum, old in previous.items():
            signal.signal(signum, old)

    return restore
