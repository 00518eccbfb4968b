"""Settings → Store: copy this computer's memory to a PostgreSQL server (progress, counts),
then move the profile there; the password goes to the secrets module, never to the
settings file (issue 27 item 2). Real widgets, the real throwaway server."""

from __future__ import annotations

import json

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from acai_desktop.core.models.api_keys import SecretStore
from acai_desktop.core.profile.store_choice import load_store_choice
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from acai_desktop.ui.widgets.store_fields import A_SERVER
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.old_profile import old_profile
from tests.support.postgres_logins import login_with_password

PASSWORD = "correct horse"


@pytest.fixture
def no_keyring(monkeypatch):
    monkeypatch.setattr(keyring, "get_keyring", lambda: keyring.backends.fail.Keyring())


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_copy_to_the_server_then_move_there(
    qapp, tmp_path, fake_openai, postgres_cluster, no_keyring
):
    data_dir = tmp_path / "profile"
    old_profile(data_dir, messages=60)  # three chats on this computer
    profile = configure_profile(data_dir, fake_openai)
    login = login_with_password(postgres_cluster, PASSWORD)

    async def scenario(session):
        window = session.window
        assert window.conversations_model.rowCount() == 3
        click(window.settings_button)
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        store = dialog.store_fields
        assert not store.server_fields.isVisibleTo(dialog)  # this computer, to begin with
        store.kind_box.setCurrentIndex(store.kind_box.findData(A_SERVER))
        assert store.server_fields.isVisibleTo(dialog)
        store.host.setText(login.host)
        store.database.setText(login.database)
        store.user.setText(login.user)
        store.password.setText(PASSWORD)

        click(store.copy_button)
        await wait_until(lambda: store.copy_result.isVisibleTo(dialog))
        counts = store.copy_result.text()
        assert "messages: 60 of 60 on the server" in counts
        assert "conversations: 3 of 3 on the server" in counts
        assert "Every row of your local memory is on the server." in counts
        assert store.copy_button.isEnabled()

        click(dialog.save_button)
        await wait_until(lambda: session.profile.server is not None)
        await wait_until(lambda: session.profile_shown and session.profile_data is not None)
        assert not window.store_banner.isVisible()
        assert window.conversations_model.rowCount() == 3  # read from the server now
        return True

    assert run_in_session(gui_session(profile), scenario)
    saved = load_store_choice(profile.settings_path)
    assert (saved.host, saved.database, saved.user) == (login.host, login.database, login.user)
    assert PASSWORD not in profile.settings_path.read_text()
    assert json.loads(profile.settings_path.read_text())["store"]["kind"] == "postgresql"
    assert SecretStore(profile.data_dir).get_server_password(saved.secret_name) == PASSWORD
