"""Settings: the model (open the dialog, detect servers, save and reconnect), the
appearance preferences, and Try again after the model failed to start."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import TYPE_CHECKING

import shiboken6

from acai_desktop.core.custom_instructions import CustomInstructions
from acai_desktop.core.errors import AcaiError, InvalidInputError
from acai_desktop.ui.actions.base import ActionGroup, in_background
from acai_desktop.ui.preferences import UiPreferences, load_ui_preferences, save_ui_preferences

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.llm.settings import ModelSettings
    from acai_desktop.ui.main_window import MainWindow

log = logging.getLogger(__name__)

SETTINGS_TASK = "settings"
DETECT_TASK = "detect"


class SettingsActions(ActionGroup):
    def connect(self, window: MainWindow) -> None:
        window.settings_requested.connect(self.open_dialog)
        window.settings_detect_requested.connect(self.detect)
        window.settings_save_requested.connect(self.save)
        window.preferences_save_requested.connect(self.save_preferences)
        window.panels_changed.connect(self.save_panels)
        window.reconnect_requested.connect(self.session.reconnect)
        # Custom instructions: the profile's (Settings), a chat's own (its ⋯ menu).
        window.instructions_save_requested.connect(self.save_instructions)
        window.chat_instructions_requested.connect(self.open_chat_instructions)
        window.chat_instructions_save_requested.connect(self.save_chat_instructions)
        window.events.instructions_changed.connect(self.show_instructions)

    def current_settings(self) -> ModelSettings:
        """What the assistant runs with, else what is saved, else the defaults."""
        from acai_desktop.core.llm.settings import ModelSettings, load_model_settings

        assistant = self.session.assistant
        if assistant is not None and assistant.model_problem is None:
            return assistant.settings
        return load_model_settings(self.session.profile.settings_path) or ModelSettings()

    def open_dialog(self) -> None:
        if self.window is None:
            return
        self.session.tasks.start(self._open_dialog(), name="settings-open")

    async def _open_dialog(self) -> None:
        from acai_desktop.core.llm.presets import ProviderName
        from acai_desktop.core.llm.settings import ModelSettings
        from acai_desktop.core.secrets import SecretStore

        problem = None
        try:
            settings = self.current_settings()
        except InvalidInputError as error:  # a damaged settings file: start from defaults
            settings, problem = ModelSettings(), str(error)
        profile = self.session.profile
        secrets = SecretStore(profile.data_dir)

        def providers_with_key() -> set[str]:
            # The keyring may answer slowly (D-Bus): not on the loop's thread.
            return {str(name) for name in ProviderName if secrets.get_api_key(str(name))}

        with_key = await asyncio.to_thread(providers_with_key)
        instructions = await self._profile_instructions()
        if self.window is None:
            return
        dialog = self.window.dialogs.open_settings(
            settings,
            instructions=instructions,
            providers_with_key=with_key,
            key_warning=secrets.warning or secrets.new_key_warning,
            preferences=load_ui_preferences(profile.settings_path),
        )
        if problem:
            dialog.show_error(problem)

    def detect(self, provider: str, url: str) -> None:
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
            dialog = self.window.dialogs.settings if self.window is not None else None
            if dialog is None or not shiboken6.isValid(dialog):
                return
            if report is None:
                dialog.detection_failed(failure)
            else:
                dialog.show_detection(report)

        self.session.tasks.start(detect(), key=DETECT_TASK)

    def save_preferences(self, preferences: UiPreferences) -> None:
        if self.window is None:
            return
        self.session.apply_preferences(preferences)
        try:
            save_ui_preferences(self.session.profile.settings_path, preferences)
        except OSError as error:
            self.window.show_status(f"Appearance not saved: {error}", 10_000)

    def save_panels(self, conversations: bool, memory: bool) -> None:
        """Remember which side panels show (the rest of the preferences as saved)."""
        path = self.session.profile.settings_path
        saved = load_ui_preferences(path)
        try:
            save_ui_preferences(
                path, replace(saved, show_conversations=conversations, show_memory=memory)
            )
        except OSError as error:
            if self.window is not None:
                self.window.show_status(f"Layout not saved: {error}", 10_000)

    def save(self, settings: ModelSettings, api_key: str) -> None:
        self.session.tasks.start(self._save(settings, api_key), key=SETTINGS_TASK)

    async def _save(self, settings: ModelSettings, api_key: str) -> None:
        from acai_desktop.core.llm.settings import save_model_settings
        from acai_desktop.core.secrets import SecretStore

        session, window = self.session, self.window
        assert window is not None
        dialog = window.dialogs.settings
        secrets = SecretStore(session.profile.data_dir)

        def write() -> None:
            save_model_settings(session.profile.settings_path, settings)
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
        running = session.assistant
        connected = running is not None and running.model_problem is None
        if connected and settings == running.settings and not api_key:
            return  # only the appearance changed: no need to restart the model
        # What the user chose in the window wins over the command line from now on.
        session.overrides = None
        # Stop the answer being written: its model is about to go away.
        await session.stop_turn()
        await session.until_reconnected()
        if api_key and secrets.warning and self.window is not None:
            self.window.show_status(secrets.warning, 20_000)

    async def _profile_instructions(self) -> CustomInstructions | None:
        """The profile's custom instructions (None when the database can't say)."""
        data = self.session.profile_data
        if self.session.assistant is not None:
            data = self.session.assistant.data
        if data is None:
            return None
        try:
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
        if (window := self.window_if_open()) is not None:
            window.dialogs.chat_instructions(conversation_id, profile, own)

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
        if conversation_id is None and self.window is not None:
            self.session.tasks.start(self._show_instructions(), name="instructions-show")

    async def _show_instructions(self) -> None:
        instructions = await self._profile_instructions()
        if instructions is not None and (window := self.window_if_open()) is not None:
            window.memory_panel.instructions_box.set_instructions(instructions)
