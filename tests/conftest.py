"""Suite-wide set-up. Runs before any test module, so before Qt loads."""

import os
import tempfile

# Qt must never need a display: CI has none, and a developer's desktop should not
# flash windows. QT_QPA_PLATFORM is read when the QApplication is created.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

# Without XDG_RUNTIME_DIR (CI as root, containers) Qt logs a warning on start-up,
# and a Qt warning fails a test; give it a private directory instead.
if not os.environ.get("XDG_RUNTIME_DIR"):
    runtime_dir = tempfile.mkdtemp(prefix="acai-xdg-runtime-")
    os.chmod(runtime_dir, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = runtime_dir
