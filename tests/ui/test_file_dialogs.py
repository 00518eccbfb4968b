"""The window's file dialogs open in the user's home the first time (not the folder the
app was started from), then where a file was last chosen, remembered in the profile's
settings; Qt's own dialog is asked for only where no desktop can show a native one."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from acai_desktop.ui.preferences import UiPreferences, load_last_folder, save_ui_preferences
from acai_desktop.ui.widgets import file_dialogs
from acai_desktop.ui.widgets.file_dialogs import FolderMemory, native_dialogs_possible


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Path:
    """A profile's settings file; the app started from a folder that is not home."""
    started_in = tmp_path / "started-here"
    started_in.mkdir()
    monkeypatch.chdir(started_in)
    monkeypatch.setattr(file_dialogs, "FOLDERS", FolderMemory())
    path = tmp_path / "profile" / "settings.json"
    file_dialogs.FOLDERS.attach(path)
    return path


def shown_folder(dialog: QFileDialog) -> Path:
    return Path(dialog.directory().absolutePath()).resolve()


def test_the_first_dialog_opens_in_home_then_where_a_file_was_chosen(
    window, qtbot, settings, tmp_path
):
    dialog = window.documents_panel.choose_files()
    assert shown_folder(dialog) == Path.home().resolve()
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "notes.md").write_text("# notes\n", encoding="utf-8")
    added = []
    window.documents_panel.add_files_requested.connect(added.append)
    dialog.selectFile(str(papers / "notes.md"))
    dialog.accept()
    assert added == [[str(papers / "notes.md")]]

    # Any other file dialog of the window (its choice goes nowhere here).
    again = window.dialogs.export_conversation(1, lambda *_chosen: None)
    assert shown_folder(again) == papers.resolve()
    again.reject()
    assert load_last_folder(settings) == str(papers)


def test_the_folder_survives_a_restart_and_saving_other_preferences(settings, tmp_path):
    file_dialogs.FOLDERS.remember(str(tmp_path / "notes.md"))
    save_ui_preferences(settings, UiPreferences(theme="dark"))  # Settings → Save
    next_start = FolderMemory()
    next_start.attach(settings)
    assert next_start.start_folder() == str(tmp_path)


def test_a_folder_that_is_gone_opens_home(settings, tmp_path):
    file_dialogs.FOLDERS.remember(str(tmp_path / "gone" / "file.txt"))
    assert file_dialogs.FOLDERS.start_folder() == str(Path.home())


def test_the_native_dialog_is_used_wherever_a_desktop_can_show_one(window):
    for desktop in ("xcb", "wayland", "windows", "cocoa"):
        assert native_dialogs_possible(desktop)
    assert not native_dialogs_possible("offscreen")
    dialog = window.documents_panel.choose_folder()
    # The tests run offscreen: Qt's own dialog, which they can drive.
    assert dialog.testOption(QFileDialog.Option.DontUseNativeDialog)
    dialog.reject()
