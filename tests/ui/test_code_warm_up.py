"""Pygments is imported a while after the profile is on screen, not counted from the
chat view's creation: on a slow machine that fixed delay fell inside the start-up."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import json, sys
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
import acai_desktop.ui.widgets.chat_view as chat_view
chat_view.WARM_UP_MS = 0  # the start-up took longer than the delay
view = chat_view.ChatView()
for _ in range(5):
    app.processEvents()
before = "pygments" in sys.modules
view.warm_up_later()  # the profile is on screen
for _ in range(5):
    app.processEvents()
print(json.dumps([before, "pygments" in sys.modules]))
"""


def test_creating_the_chat_view_leaves_pygments_until_the_profile_shows():
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.stdout.splitlines()[-1] == "[false, true]"
