"""Settings → Your models: list the models the user can reach, and save the figures the
user gives one of them (``model-table.json``), which the list then shows and the router
reads before its next turn."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

import shiboken6

from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.controllers.base import Controller, Services

if TYPE_CHECKING:
    from acai_desktop.core.models.detection import Detect
    from acai_desktop.core.profile.paths import Profile
    from acai_desktop.core.routing.model_table_edits import ModelTableEdit
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.models_list import ModelsList

LIST_MODELS_TASK = "list-models"
SAVE_FIGURES_TASK = "save-model-figures"


class ProfileAndDetection(Protocol):
    """What Your models asks of the app controller (``settings.AppControls`` and more)."""

    profile: Profile
    #: How servers on this computer are looked for (None: the real probes).
    detect: Detect | None


class YourModelsController(Controller):
    """Its widget: the settings dialog's Your models (and the figures dialog it opens),
    wired by :meth:`wire` each time Settings opens."""

    def __init__(self, window: MainWindow, services: Services, app: ProfileAndDetection) -> None:
        super().__init__(services)
        self.window, self.app = window, app

    def wire(self, models_list: ModelsList) -> None:
        models_list.list_requested.connect(self.list_models)
        models_list.figures_save_requested.connect(self.save_figures)

    def _shown(self) -> ModelsList | None:
        """Settings' Your models, while the dialog is open."""
        dialog = self.window.dialogs.settings
        return dialog.models_list if dialog is not None and shiboken6.isValid(dialog) else None

    def list_models(self) -> None:
        """The models the saved settings and this computer's servers offer, into the
        dialog's list (a first start's choice is not made here: no settings, no list)."""

        async def listing() -> None:
            from acai_desktop.core.models.choice import ModelOverrides
            from acai_desktop.core.routing.reachable import reachable_listing

            try:
                found = await reachable_listing(
                    self.app.profile, ModelOverrides(), detect=self.app.detect, choose_first=False
                )
                failure = None
            except AcaiError as error:  # no model chosen yet, a damaged settings file
                found, failure = None, str(error)
            if (shown := self._shown()) is None:
                return
            if found is None:
                shown.show_error(failure)
            else:
                shown.show_listing(found)

        self.services.tasks.start(listing(), key=LIST_MODELS_TASK)

    def save_figures(self, edit: ModelTableEdit) -> None:
        """Write the user's figures for a model; the list then shows them (the same
        servers' offers, the figures read again), and the router, which sees the file
        change, before its next turn. A refusal (a wrong figure, a file that can't be
        read) is said in the figures dialog, which stays open."""

        async def saving() -> None:
            from acai_desktop.core.routing.model_table_edits import edit_model_table

            data_dir = self.app.profile.data_dir
            try:
                await asyncio.to_thread(edit_model_table, data_dir, edit)
            except (AcaiError, OSError) as error:
                if (shown := self._shown()) is not None:
                    shown.figures_refused(f"Not saved: {error}")
                return
            shown = self._shown()
            if shown is None or shown.listing is None:
                return
            listing = await asyncio.to_thread(shown.listing.refigured, data_dir)
            if (shown := self._shown()) is not None:
                shown.figures_saved(listing, edit.model)

        self.services.tasks.start(saving(), key=SAVE_FIGURES_TASK)
