"""Drive a real AppController on qasync's loop from a test, as the self-test and the soak
bench do (the one implementation: :mod:`acai_lab.headless`)."""

from acai_desktop.core.profile.paths import Profile
from acai_desktop.ui.app_controller import AppController
from acai_lab.headless import WAIT_SECONDS, run_in_session, wait_until
from tests.support.memory import shared_embedder

__all__ = ["WAIT_SECONDS", "gui_session", "run_in_session", "shown_main_window", "wait_until"]


def gui_session(profile: Profile, **options) -> AppController:
    """A real AppController whose assistant uses the test run's one loaded WordLlama."""
    return AppController(profile, offline_embedder=shared_embedder(), **options)


def shown_main_window(qtbot, qapp, size: tuple[int, int] | None = None):
    """The main window on its own (no session), themed and shown (``size``: before showing)."""
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.theme import apply_theme

    apply_theme(qapp)
    window = MainWindow()
    qtbot.addWidget(window)
    if size is not None:
        window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    return window
