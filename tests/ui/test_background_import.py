"""The window imports the assistant's modules on a thread that quitting does not wait
for (issue 22 item 7: start-up measured as a whole process, open and quit)."""

from __future__ import annotations

import asyncio
import sys
import threading
import types

import pytest

from acai_desktop.ui.background_import import import_in_background

#: A hang guard for a broken implementation, never a speed goal.
HANG_GUARD_S = 120


@pytest.fixture
def gated_module(tmp_path, monkeypatch):
    """A module whose import blocks until the test opens its gate."""
    gate = threading.Event()
    monkeypatch.setitem(sys.modules, "_acai_import_gate", types.SimpleNamespace(gate=gate))
    (tmp_path / "acai_gated_module.py").write_text(
        "import _acai_import_gate\n_acai_import_gate.gate.wait()\nVALUE = 42\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield gate
    gate.set()
    sys.modules.pop("acai_gated_module", None)


def test_the_module_arrives_and_errors_are_raised_to_the_caller(gated_module):
    gated_module.set()

    async def both():
        module = await import_in_background("acai_gated_module")
        with pytest.raises(ModuleNotFoundError):
            await import_in_background("acai_no_such_module_anywhere")
        return module

    assert asyncio.run(both()).VALUE == 42


def test_the_loop_closes_while_the_import_is_still_running(gated_module):
    """A quit 1 ms after the window opened ends the loop at once; the executor's threads
    (asyncio.to_thread) would be joined, and the process would wait for the import."""
    started = threading.Event()

    async def open_then_quit():
        task = asyncio.ensure_future(import_in_background("acai_gated_module"))
        while not any(t.name == "import acai_gated_module" for t in threading.enumerate()):
            await asyncio.sleep(0.01)
        started.set()
        task.cancel()  # the quit cancels the opening step

    closed = threading.Event()
    runner = threading.Thread(target=lambda: (asyncio.run(open_then_quit()), closed.set()))
    runner.start()
    runner.join(HANG_GUARD_S)
    assert started.is_set() and closed.is_set(), "closing the loop waited for the import"
    assert "acai_gated_module" not in sys.modules or not hasattr(
        sys.modules["acai_gated_module"], "VALUE"
    )  # it was indeed still importing
    importer = next(t for t in threading.enumerate() if t.name == "import acai_gated_module")
    assert importer.daemon  # the process may end without it
    gated_module.set()
    importer.join(HANG_GUARD_S)


def test_an_abandoned_import_stops_at_its_next_module(tmp_path, gated_module):
    """``acai-desktop gui`` ends its process after the window: a quit while the
    assistant's modules load stops that import at its next module, instead of letting it
    hold the GIL while the window shuts down. Its half-run modules unwind."""
    (tmp_path / "acai_after_gate.py").write_text("VALUE = 1\n")
    (tmp_path / "acai_gated_then_more.py").write_text(
        "import acai_gated_module\nimport acai_after_gate\n"
    )

    async def open_then_quit():
        task = asyncio.ensure_future(import_in_background("acai_gated_then_more", abandon=True))
        while not any(t.name == "import acai_gated_then_more" for t in threading.enumerate()):
            await asyncio.sleep(0.01)
        task.cancel()  # the quit cancels the opening step
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(open_then_quit())
    importer = next(t for t in threading.enumerate() if t.name == "import acai_gated_then_more")
    gated_module.set()  # the module being run when the quit came finishes...
    importer.join(HANG_GUARD_S)
    assert not importer.is_alive()
    assert "acai_after_gate" not in sys.modules  # ...and nothing after it is imported
    assert "acai_gated_then_more" not in sys.modules  # the half-run module unwound
    assert not any(type(finder).__name__ == "_StopAtNextModule" for finder in sys.meta_path)
