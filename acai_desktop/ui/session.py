"""One run of the window, from an open profile to a closed one.

Start-up and shut-down are explicit steps:

1. show the window and wire it (the window's requests to the action groups);
2. open the profile's database under its lock and show its conversations and memories;
3. build the assistant on that database (:func:`open_assistant`, ``model_required=False``:
   without a usable model the data stays usable and a banner says why and what to do);
4. run until the user quits;
5. shut down while the loop still runs: hide the window, cancel and await every tracked
   task, then close the assistant (client, database, lock).

The window asks (its ``*_requested`` signals); the action groups in
:mod:`acai_desktop.ui.actions` do the work as tracked tasks through the assistant's
services, and the core's events, relayed by the window's :class:`EventBridge`, bring
the results into the Qt models.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from acai_desktop.core.errors import AcaiError
from acai_desktop.core.events import EventBus
from acai_desktop.core.profile import Profile
from acai_desktop.core.records import JobStatus
from acai_desktop.ui.actions.conversations import ConversationActions
from acai_desktop.ui.actions.documents import DocumentActions
from acai_desktop.ui.actions.imports import ImportActions
from acai_desktop.ui.actions.memories import MemoryActions
from acai_desktop.ui.actions.memory_health import MemoryHealthActions
from acai_desktop.ui.actions.settings import SettingsActions
from acai_desktop.ui.actions.turns import TURN_TASK, TurnActions
from acai_desktop.ui.background_import import import_in_background
from acai_desktop.ui.main_window import WINDOW_TITLE, MainWindow
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences
from acai_desktop.ui.tasks import TaskTracker
from acai_desktop.ui.theme import ThemeController
from acai_desktop.ui.untrusted import make_plain
from acai_desktop.ui.widgets.file_dialogs import FOLDERS

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant, ModelOverrides
    from acai_desktop.core.embeddings.base import Embedder
    from acai_desktop.core.llm.chat_model import NoModelError
    from acai_desktop.core.llm.detection import Detect
    from acai_desktop.core.profile_data import ProfileData

#: Imported on a worker thread after the window shows, so neither the first paint nor
#: the event loop waits for them: the store (sqlite_utils, numpy), then the assistant's
#: modules (the model client, openai, pydantic models, the keyring).
PROFILE_DATA_MODULE = "acai_desktop.core.profile_data"
ASSISTANT_MODULE = "acai_desktop.core.assistant"
OPEN_TASK = "open"
#: The probe of the model at start and after each settings change (a newer one wins).
CHECK_TASK = "check-model"
STILL_OPENING = "Still opening the profile; try again in a moment."
LOOKING_FOR_MODELS = "Looking for models on this computer…"


def model_problem_text(problem: NoModelError) -> str:
    """The banner's text: why no model answers, and what to do about it."""
    return (
        f"The model can't be used: {problem}\n"
        f"Your conversations and memories are still here. {problem.next_step}"
    )


class GuiSession:
    def __init__(
        self,
        profile: Profile,
        *,
        quit_after_ms: int | None = None,
        overrides: ModelOverrides | None = None,
        offline_embedder: Embedder | None = None,
        detect: Detect | None = None,
    ) -> None:
        self.profile = profile
        #: WordLlama, kept across reconnects so its weights load once per session.
        self.offline_embedder = offline_embedder
        #: How the first start looks for models (None: this machine's servers and
        #: environment; tests point it at scripted servers and closed ports).
        self.detect = detect
        #: The user asked for Settings instead of picking a model at the first start.
        self._settings_after_open = False
        self.quit_after_ms = quit_after_ms
        self.overrides = overrides
        self.tasks = TaskTracker()
        # One bus for the whole session: reconnecting to the model keeps the bridge.
        self.events = EventBus()
        #: Every service of the profile, once open (without a model: see model_problem).
        self.assistant: Assistant | None = None
        #: The database opened first, until the assistant takes it over.
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
        self.conversations = ConversationActions(self)
        self.turns = TurnActions(self)
        self.memories = MemoryActions(self)
        self.settings = SettingsActions(self)
        self.memory_health = MemoryHealthActions(self)
        self.documents = DocumentActions(self)
        self.imports = ImportActions(self)
        self._quit = asyncio.Event()

    def request_quit(self) -> None:
        self._quit.set()

    # -- start-up and shut-down ------------------------------------------------------

    async def run(self) -> int:
        try:
            self.window = MainWindow()
            self.apply_preferences(load_ui_preferences(self.profile.settings_path))
            FOLDERS.attach(self.profile.settings_path)  # where file dialogs open
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

    def _start_quit_timer(self) -> None:
        """``quit_after_ms`` (smoke tests) counts from the profile being on screen, or its
        start-up error, not from the start: however slow the machine, the test sees the
        profile open. Once only (reconnecting opens the profile again)."""
        if self.quit_after_ms is not None:
            QTimer.singleShot(self.quit_after_ms, self.request_quit)
            self.quit_after_ms = None

    def _connect_signals(self) -> None:
        window = self.window
        assert window is not None
        window.quit_requested.connect(self.request_quit)
        for actions in (
            self.conversations,
            self.turns,
            self.memories,
            self.settings,
            self.memory_health,
            self.documents,
            self.imports,
        ):
            actions.connect(window)

    async def _until_quit(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro``; a quit meanwhile leaves it to shut-down, which cancels it."""
        task = self.tasks.start(coro, key=OPEN_TASK)
        quit_waiter = asyncio.ensure_future(self._quit.wait())
        try:
            await asyncio.wait([task, quit_waiter], return_when=asyncio.FIRST_COMPLETED)
        finally:
            quit_waiter.cancel()
        return task.result() if task.done() else None

    @contextlib.contextmanager
    def _progress_in_status_bar(self):
        """Progress lines (an old profile's database being updated: a minute for a
        large one) in the status bar, from whichever thread says them."""
        from acai_desktop.core.progress import progress_log

        window, loop = self.window, asyncio.get_running_loop()

        class StatusBar(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                text = record.getMessage()
                loop.call_soon_threadsafe(lambda: window is not None and window.show_status(text))

        handler = StatusBar(logging.INFO)
        progress_log.addHandler(handler)
        progress_log.setLevel(logging.INFO)
        try:
            yield
        finally:
            progress_log.removeHandler(handler)

    async def _open(self) -> AcaiError | None:
        """Open the profile's database and show its data, then build the assistant on it;
        an error that leaves nothing to show (the database can't be opened) is returned.

        The data comes first: conversations and the first page of memories are on
        screen while the assistant's heavy parts (the model client, the memory index,
        the job runner) load behind them."""
        assert self.window is not None
        await asyncio.to_thread(importlib.import_module, PROFILE_DATA_MODULE)
        from acai_desktop.core.profile_data import open_profile_data

        try:
            with self._progress_in_status_bar():
                data = await open_profile_data(self.profile)
        except AcaiError as error:
            return error
        self.profile_data = data
        await self.conversations.load_all()
        self._start_quit_timer()
        self.profile_shown = True
        await import_in_background(ASSISTANT_MODULE)  # quitting does not wait for it
        from acai_desktop.core.assistant import new_offline_embedder, open_assistant

        if self.offline_embedder is None:
            self.offline_embedder = new_offline_embedder()
        await self._ask_first_model()
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
            )
        except AcaiError as error:
            return error
        self.assistant, self.profile_data = assistant, None  # the assistant owns it now
        self.window.set_prompt_budget(assistant.settings.context_budget_tokens)
        problem = assistant.model_problem
        from acai_desktop.core.llm.model_status import ModelState, ModelStatus, status_of_error

        if problem is not None:
            self.window.show_model_status(None, status_of_error(problem))
            self.window.show_model_problem(model_problem_text(problem))
        else:
            # Known before the user sends: a cheap probe, beside the window's work.
            self.window.show_model_status(assistant.model_name, ModelStatus(ModelState.CHECKING))
            self.tasks.start(self._check_model(assistant), key=CHECK_TASK)
        self.window.show_status(f"Profile: {self.profile.data_dir}")
        for warning in assistant.warnings:
            self.window.show_status(warning, 20_000)
        # Background work that failed (the model was down) or waits for a later retry,
        # with Retry; later failures and recoveries arrive as job events.
        self.window.show_failed_jobs(
            await assistant.jobs.list([JobStatus.FAILED, JobStatus.PENDING])
        )
        self.window.show_suggestions(await assistant.suggestions.pending())
        await self.documents.load(assistant)
        if self._settings_after_open:
            self._settings_after_open = False
            self.settings.open_dialog()
        return None

    async def _ask_first_model(self) -> None:
        """A first start (no model settings saved, none on the command line): show what
        this computer offers, each option for what it is, and save the user's pick.
        Put off, nothing is saved and the window opens without a model."""
        from acai_desktop.core.errors import ModelSettingsError
        from acai_desktop.core.llm.detection import detect_providers
        from acai_desktop.core.llm.settings import load_model_settings, save_model_settings

        assert self.window is not None
        if self.overrides is not None and self.overrides.provider:
            return
        try:
            if load_model_settings(self.profile.settings_path) is not None:
                return
        except ModelSettingsError:
            return  # damaged settings: the banner says so, Settings mends them
        self.window.show_status(LOOKING_FOR_MODELS)
        report = await (self.detect or detect_providers)()
        dialog = self.window.dialogs.first_start(report.options())
        finished = asyncio.Event()
        dialog.finished.connect(finished.set)
        dialog.settings_requested.connect(self._on_first_start_settings_requested)
        try:
            await finished.wait()
            option = dialog.chosen()
        finally:
            dialog.deleteLater()
        if option is None:
            return
        try:
            await asyncio.to_thread(
                save_model_settings, self.profile.settings_path, option.settings
            )
        except OSError as error:
            self.window.show_status(f"Your choice of model was not saved: {error}", 20_000)

    async def _check_model(self, assistant: Assistant) -> None:
        status = await assistant.check_model()
        if self.window is not None and self.assistant is assistant:
            self.window.show_model_status(assistant.model_name, status)

    def _on_first_start_settings_requested(self) -> None:
        self._settings_after_open = True

    async def shutdown(self) -> None:
        if self.window is not None:
            self.window.hide()
        await self.tasks.cancel_all()
        if self.window is not None:
            await self.window.memories_model.detach()
        if self.profile_data is not None:  # the assistant never took it over
            data, self.profile_data = self.profile_data, None
            await data.aclose()
        if self.window is not None:
            self.window.events.detach()
        if self.assistant is not None:
            assistant, self.assistant = self.assistant, None
            await assistant.close()
        if self.window is not None:
            self.window.deleteLater()
            self.window = None

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
        assert self.window is not None
        self.window.show_reconnecting()
        self.tasks.cancel(CHECK_TASK)  # it asks the client about to be closed
        try:
            assistant, self.assistant = self.assistant, None
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
            if self.window is not None:
                self.window.show_reconnected()

    async def stop_turn(self) -> None:
        """Stop the answer being written, if any, and wait until it has stopped."""
        turn = self.tasks.get(TURN_TASK)
        if turn is not None:
            self.tasks.cancel(TURN_TASK)
            await asyncio.wait([turn])

    def apply_preferences(self, preferences: UiPreferences) -> None:
        """The theme (following the system's colours for "system"), Enter's meaning and
        the side panels."""
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
        self.window.set_panels(preferences.show_conversations, preferences.show_memory)

    # -- what every action uses ------------------------------------------------------

    def assistant_or_say_why(self) -> Assistant | None:
        if self.assistant is None and self.window is not None:
            self.window.show_status(STILL_OPENING, 5000)
        return self.assistant

    def run_reporting(
        self, coro: Coroutine[Any, Any, Any], name: str, *, key: str | None = None
    ) -> asyncio.Task:
        """Run ``coro`` as a tracked task (under ``key``: one at a time, see
        :meth:`TaskTracker.start`); a refusal from the core goes to the status bar."""

        async def reporting() -> None:
            try:
                await coro
            except AcaiError as error:
                if self.window is not None:
                    self.window.show_status(str(error), 10_000)

        return self.tasks.start(reporting(), name=name, key=key)

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
