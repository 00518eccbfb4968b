"""Drive a real GuiSession on qasync's loop from a test. The product's self-test and soak
bench drive the window the same way, so the one implementation lives in the product."""

from acai_desktop.core.profile import Profile
from acai_desktop.ui.headless import WAIT_SECONDS, run_in_session, wait_until
from acai_desktop.ui.session import GuiSession
from tests.support.memory import shared_embedder

__all__ = ["WAIT_SECONDS", "gui_session", "run_in_session", "wait_until"]


def gui_session(profile: Profile, **options) -> GuiSession:
    """A real GuiSession whose assistant uses the test run's one loaded WordLlama."""
    return GuiSession(profile, offline_embedder=shared_embedder(), **options)
