"""Settings: the model (open the dialog, detect servers, save and reconnect; Your
models is ``your_models.py``'s), the appearance preferences, the user's custom
instructions (the profile's, in the dialog and listed in the memory panel, and a chat's
own from its ⋯ menu), and Try again after the model failed to start."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

import shiboken6

from acai_desktop.core.conversations.custom_instructions import CustomInstructions
from acai_desktop.core.errors import AcaiError, InvalidInputError
from acai_desktop.ui.controllers.base import Controller, Services, in_background
from acai_desktop.ui.controllers.your_models import YourModelsController
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences, save_ui_preferences

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.models.detection import Detect
    from acai_desktop.core.models.settings import ModelSettings
    from acai_desktop.core.profile.data import ProfileData
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.core.profile.store_choice import ServerAddress
    from acai_desktop.ui.main_window import MainWindow

log = logging.getLogger(__name__)


class AppControls(Protocol):
    """What Settings asks of the app controller, which owns the profile and the
    assistant (ui.app_controller.AppController): said here, so this module needs not
    import the app controller that builds it."""

    profile: Profile
    overrides: ModelOverrides | None
    profile_data: ProfileData | None
    #: How servers on this computer are looked for (None: the real probes).
    detect: Detect | None

    def reconnect(self) -> None: ...

    async def until_reconnected(self) -> None: ...

    def use_store(self, server: ServerAddress | None) -> None: ...

    def apply_preferences(self, preferences: UiPreferences) -> None: ...


SETTINGS_TASK = "settings"
DETECT_TASK = "detect"
COPY_TASK = "copy-memory"


class SettingsController(Controller):
    """Its widgets: Settings (button, shortcut, the banner's button, the instructions
    box's Edit…), the banner's Try again, the side panels' toggles (remembered), the
    settings dialog, the conversation list's Instructions… and the chat's instructions
    dialog. It restarts the
    assistant through the app controller (``app``), which owns it."""

    def __init__(self, window: MainWindow, services: Services, app: AppControls) -> None:
        super().__init__(services)
        self.window, self.app = window, app
        #: Settings → Store's new choice (server or None, password typed), saved on Save.
        self._store_choice: tuple[ServerAddress | None, str] | None = None
        #: Settings → Your models: the listing and the user's figures for a model.
        self.your_models = YourModelsController(window, services, app)
        for clicked in (
            window.settings_button.clicked,
            window.settings_action.triggered,
            window.banner_settings_button.clicked,
        ):
            clicked.connect(self.open_dialog)
        window.reconnect_button.clicked.connect(app.reconnect)
        # The banner's button is gone while the model reconnects: the focus waits in the
        # composer, where the next message is written, not on whatever came next.
        window.reconnect_button.clicked.connect(window.focus_composer)
        window.panels_changed.connect(self.save_panels)
        # Custom instructions: the profile's (in Settings; the memory panel lists them,
        # its Edit… opens Settings) and a chat's own (the conversation list's ⋯ menu).
        window.memory_panel.instructions_box.edit_requested.connect(self.open_instructions)
        window.conversation_list.instructions_requested.connect(self.open_chat_instructions)
        window.events.instructions_changed.connect(self.show_instructions)

    def current_settings(self) -> ModelSettings:
        """What the assistant runs with, else what is saved, else the defaults."""
        from acai_desktop.core.models.settings import ModelSettings, load_model_settings

        assistant = self.services.assistant
        if assistant is not None and assistant.model_problem is None:
            return assistant.settings
        return load_model_settings(self.app.profile.settings_path) or ModelSettings()

    def open_dialog(self) -> None:
        self.services.tasks.start(self._open_dialog(), name="settings-open")

    def open_instructions(self) -> None:
        """Settings, opened at the custom instructions."""
        self.services.tasks.start(self._open_dialog(at_instructions=True), name="settings-open")

    async def _open_dialog(self, *, at_instructions: bool = False) -> None:
        from acai_desktop.core.models.api_keys import SecretStore
        from acai_desktop.core.models.presets import ProviderName
        from acai_desktop.core.models.settings import ModelSettings

        problem = None
        try:
            settings = self.current_settings()
        except InvalidInputError as error:  # a damaged settings file: start from defaults
            settings, problem = ModelSettings(), str(error)
        profile = self.app.profile
        secrets = SecretStore(profile.data_dir)

        def providers_with_key() -> set[str]:
            # The keyring may answer slowly (D-Bus): not on the loop's thread.
            return {str(name) for name in ProviderName if secrets.get_api_key(str(name))}

        with_key = await asyncio.to_thread(providers_with_key)
        server = profile.server.without_password() if profile.server else None
        password_saved = server is not None and bool(
            await asyncio.to_thread(secrets.get_server_password, server.secret_name)
        )
        instructions = await self._profile_instructions()
        automatic = None  # what an automatic budget comes to for the running chat model
        assistant = self.services.assistant
        if assistant is not None and assistant.model_problem is None:
            _, automatic = await assistant.chat_settings.budgets_for(settings.model_for("chat"))
        dialog, created = self.window.dialogs.open_settings(
            settings,
            automatic_budget=automatic,
            instructions=instructions,
            providers_with_key=with_key,
            key_warning=secrets.warning or secrets.new_key_warning,
            preferences=load_ui_preferences(profile.settings_path),
            store=server,
            store_password_saved=password_saved,
        )
        if created:
            dialog.instructions_save_requested.connect(self.save_instructions)
            dialog.preferences_save_requested.connect(self.save_preferences)
            dialog.store_save_requested.connect(self.choose_store)
            dialog.save_requested.connect(self.save)
            dialog.detect_requested.connect(self.detect)
            dialog.store_fields.copy_requested.connect(self.copy_local_memory)
            self.your_models.wire(dialog.models_list)
        if problem:
            dialog.show_error(problem)
        if at_instructions:
            dialog.show_instructions()

    def detect(self, provider: str, url: str) -> None:
        from acai_desktop.core.models.presets import ProviderName

        # The address typed in the dialog is probed too (a custom server, another port).
        urls = {provider: url} if url and provider != ProviderName.LOCAL else None

        async def detect() -> None:
            from acai_desktop.core.models.detection import detect_providers

            try:
                report = await detect_providers(urls=urls)
            except Exception as error:  # shown in the dialog, whose button comes back
                log.exception("provider detection failed")
                report, failure = None, f"Detection failed: {error}"
            dialog = self.window.dialogs.settings
            if dialog is None or not shiboken6.isValid(dialog):
                return
            if report is None:
                dialog.detection_failed(failure)
            else:
                dialog.show_detection(report)

        self.services.tasks.start(detect(), key=DETECT_TASK)

    def save_preferences(self, preferences: UiPreferences) -> None:
        self.app.apply_preferences(preferences)
        try:
            save_ui_preferences(self.app.profile.settings_path, preferences)
        except OSError as error:
            self.window.show_status(f"Appearance not saved: {error}", 10_000)

    def save_panels(self, conversations: bool, memory: bool) -> None:
        """Remember which side panels show (the rest of the preferences as saved)."""
        path = self.app.profile.settings_path
        saved = load_ui_preferences(path)
        try:
            save_ui_preferences(
                path, replace(saved, show_conversations=conversations, show_memory=memory)
            )
        except OSError as error:
            self.window.show_status(f"Layout not saved: {error}", 10_000)

    def save(self, settings: ModelSettings, api_key: str) -> None:
        self.services.tasks.start(self._save(settings, api_key), key=SETTINGS_TASK)

    async def _save(self, settings: ModelSettings, api_key: str) -> None:
        from acai_desktop.core.models.api_keys import SecretStore
        from acai_desktop.core.models.settings import save_model_settings

        app, dialog = self.app, self.window.dialogs.settings
        secrets = SecretStore(app.profile.data_dir)

        store, self._store_choice = self._store_choice, None

        def write() -> None:
            save_model_settings(app.profile.settings_path, settings)
            if api_key:
                secrets.set_api_key(str(settings.provider), api_key)
            if store is not None:
                from acai_desktop.core.profile.store_choice import save_store

                save_store(app.profile, *store)

        try:
            await asyncio.to_thread(write)
        except (AcaiError, OSError) as error:
            if dialog is not None and shiboken6.isValid(dialog):
                dialog.saving_failed(f"Not saved: {error}")
            return
        if dialog is not None and shiboken6.isValid(dialog):
            dialog.accept()
        if store is not None:
            await self.services.stop_turn()
            app.use_store(store[0])  # the memory moves: reopen the profile there
            return
        running = self.services.assistant
        connected = running is not None and running.model_problem is None
        if connected and settings == running.settings and not api_key:
            return  # only the appearance changed: no need to restart the model
        # What the user chose in the window wins over the command line from now on.
        app.overrides = None
        # Stop the answer being written: its model is about to go away.
        await self.services.stop_turn()
        await app.until_reconnected()
        if api_key and secrets.warning:
            self.window.show_status(secrets.warning, 20_000)

    # -- the store (Settings → Store) ------------------------------------------------

    def choose_store(self, server: ServerAddress | None, password: str) -> None:
        """Saved with the rest on Save (announced just before ``save``)."""
        self._store_choice = (server, password)

    def copy_local_memory(self, server: ServerAddress, password: str) -> None:
        self.services.tasks.start(self._copy(server, password), key=COPY_TASK)

    async def _copy(self, server: ServerAddress, password: str) -> None:
        """Copy this computer's memory to ``server``, the dialog showing how far it is
        and, at the end, the counts; a failure says why (run it again to finish)."""
        from acai_desktop.core.profile.memory_copy import copy_local_memory
        from acai_desktop.core.profile.store_choice import server_password

        profile = replace(self.app.profile, server=server)
        loop = asyncio.get_running_loop()

        def fields():
            dialog = self.window.dialogs.settings
            return dialog.store_fields if dialog and shiboken6.isValid(dialog) else None

        def progress(step) -> None:  # on the copy's thread
            def show() -> None:
                if (shown := fields()) is not None:
                    shown.show_copy_progress(step.table, step.rows_done, step.rows_total)

            loop.call_soon_threadsafe(show)

        try:
            password = password or await asyncio.to_thread(server_password, profile)
            report = await copy_local_memory(profile.database_path, server, password, progress)
        except AcaiError as error:
            text = f"Not copied: {error}"
        else:
            text = report.summary()
        if (shown := fields()) is not None:
            shown.show_copy_result(text)
        self.window.show_status(text.splitlines()[-1], 10_000)

    # -- custom instructions ---------------------------------------------------------

    async def _profile_instructions(self) -> CustomInstructions | None:
        """The profile's custom instructions (None when the database can't say): from
        the assistant, else from the database opened before it."""
        try:
            if (assistant := self.services.assistant) is not None:
                return await assistant.instructions.profile()
            if (data := self.app.profile_data) is not None:
                return await data.profile_instructions()
        except AcaiError as error:
            log.warning("custom instructions not read: %s", error)
        return None

    @in_background("instructions-save")
    async def save_instructions(self, assistant: Assistant, instructions: CustomInstructions):
        await assistant.instructions.set_profile(instructions.respond, instructions.about)

    @in_background("chat-instructions")
    async def open_chat_instructions(self, assistant: Assistant, conversation_id: int) -> None:
        profile = await assistant.instructions.profile()
        own = await assistant.instructions.for_chat(conversation_id)
        dialog = self.window.dialogs.chat_instructions(conversation_id, profile, own)
        dialog.save_requested.connect(self.save_chat_instructions)

    @in_background("chat-instructions-save")
    async def save_chat_instructions(
        self, assistant: Assistant, conversation_id: int, own: CustomInstructions | None
    ) -> None:
        if own is None:
            await assistant.instructions.use_profile_for_chat(conversation_id)
        else:
            await assistant.instructions.set_for_chat(conversation_id, own.respond, own.about)
        self.say("This chat's instructions are saved; the next answer follows them.")

    def show_instructions(self, conversation_id: int | None) -> None:
        """The memory panel lists the profile's instructions: read them again."""
        if conversation_id is None:
            self.services.tasks.start(self._show_instructions(), name="instructions-show")

    async def _show_instructions(self) -> None:
        instructions = await self._profile_instructions()
        if instructions is not None:
            self.window.memory_panel.instructions_box.set_instructions(instructions)
