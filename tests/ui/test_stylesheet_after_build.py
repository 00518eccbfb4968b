"""The window is built before the application's stylesheet is set, and looks the same
as one built under it (ui/theme.py, apply_theme: with a stylesheet set, each pane
parented into the window re-styled its whole subtree; issue 22, start-up).

Each run is a fresh process: the tests' shared QApplication keeps whatever stylesheet
an earlier test set."""

from __future__ import annotations

import json
import os
import subprocess
import sys

#: A hang guard for a broken implementation, never a speed goal.
HANG_GUARD_S = 240

START_PROBE = """
import json, sys
from PySide6.QtWidgets import QApplication
from acai_desktop.commands import gui
from acai_desktop.ui import main_window
seen = {}
built = main_window.MainWindow.__init__
def init(self, *args, **kwargs):
    seen["sheet_while_built"] = QApplication.instance().styleSheet()
    built(self, *args, **kwargs)
main_window.MainWindow.__init__ = init
shown = main_window.MainWindow.showEvent
def show_event(self, event):
    seen.setdefault("sheet_when_shown", QApplication.instance().styleSheet())
    shown(self, event)
main_window.MainWindow.showEvent = show_event
end = gui.end_process
def end_process(code):
    print(json.dumps(seen), flush=True)
    end(code)
gui.end_process = end_process
from acai_desktop.cli import main
main(["gui", "--quit-after-ms", "1", "--data-dir", sys.argv[1]])
"""

GRAB = """
import sys
from PySide6.QtWidgets import QApplication
from acai_desktop.ui.main_window import MainWindow
from acai_desktop.ui.theme import apply_theme
app = QApplication(sys.argv[:1])
order, theme, out = sys.argv[1:4]
if order == "under":
    apply_theme(app, theme)
    window = MainWindow()
else:
    apply_theme(app, "light", stylesheet=False)  # as create_application
    window = MainWindow()
    apply_theme(app, theme)  # as AppController.run
window.resize(1200, 800)
window.show()
for _ in range(5):
    app.processEvents()
window.grab().save(out)
"""


def _environment() -> dict[str, str]:
    return dict(os.environ, QT_QPA_PLATFORM="offscreen")


def test_the_window_is_built_before_the_stylesheet_and_shown_with_it(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", START_PROBE, str(tmp_path / "profile")],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=_environment(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["sheet_while_built"] == ""
    assert "QPushButton" in seen["sheet_when_shown"]


def test_a_window_built_before_its_stylesheet_looks_the_same_as_one_built_under_it(tmp_path):
    for theme in ("light", "dark"):
        images = []
        for order in ("under", "before"):
            out = tmp_path / f"{theme}-{order}.png"
            subprocess.run(
                [sys.executable, "-c", GRAB, order, theme, str(out)],
                check=True,
                timeout=HANG_GUARD_S,
                env=_environment(),
            )
            images.append(out.read_bytes())
        assert images[0] == images[1], f"the {theme} window differs"
