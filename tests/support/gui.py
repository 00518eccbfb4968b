"""Drive a real GuiSession on qasync's loop from a test. The product's self-test and soak
bench drive the window the same way, so the one implementation lives in the product."""

from acai_desktop.ui.headless import WAIT_SECONDS, run_in_session, wait_until

__all__ = ["WAIT_SECONDS", "run_in_session", "wait_until"]
