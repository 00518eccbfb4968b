"""The memory on a PostgreSQL server that is down: the window opens and says so, what the
user types stays in the composer, and the app reconnects by itself when the server comes
back (issue 27 item 4). Real widgets, the real throwaway server."""

from __future__ import annotations

from acai_desktop.core.profile.reconnect import Backoff
from acai_desktop.core.profile.store_choice import parse_server_url
from acai_desktop.ui.controllers.base import STILL_OPENING
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.support.postgres_outage import start_server, stop_server

TYPED = "Remember that my sister's name is Ada."


def test_the_window_opens_with_the_server_down_and_reconnects(
    qapp, tmp_path, fake_openai, postgres_cluster, postgres_url
):
    local = configure_profile(tmp_path / "profile", fake_openai)
    profile = local.__class__.at(local.data_dir, server=parse_server_url(postgres_url))
    # Short waits: the test need not wait long for the next attempt.
    session = gui_session(profile, store_backoff=Backoff(first=0.2, ceiling=1.0))

    async def scenario(session):
        window = session.window
        await wait_until(lambda: window.store_banner.isVisible())
        banner = window.store_banner_label.text()
        assert "can't be reached" in banner and "keeps trying by itself" in banner
        assert session.assistant is None and not session.profile_shown
        # Typed while the server is down: Send is refused and the text stays.
        window.composer.set_text(TYPED)
        window.composer.send_button.click()
        assert window.composer.text() == TYPED
        assert window.statusBar().currentMessage() == STILL_OPENING
        # It tries again by itself, each wait longer (0.2 s, 0.4 s, then 0.8 s here).
        await wait_until(lambda: session.store_wait.backoff._next == 1.0)
        assert window.store_banner.isVisible() and session.assistant is None
        start_server(postgres_cluster)
        await wait_until(lambda: session.profile_shown and not window.store_banner.isVisible())
        assert window.composer.text() == TYPED
        assert not (profile.data_dir / "acai.sqlite3").exists()  # never the local store
        return True

    stop_server(postgres_cluster)
    try:
        assert run_in_session(session, scenario, wait_for_open=False)
    finally:
        if session.store_wait.problem is not None or not _server_up(postgres_url):
            start_server(postgres_cluster)


def _server_up(url: str) -> bool:
    import psycopg

    try:
        psycopg.connect(url).close()
    except psycopg.OperationalError:
        return False
    return True


def test_a_wrong_password_is_said_and_not_retried_on_a_timer(
    qapp, tmp_path, fake_openai, postgres_cluster
):
    import dataclasses

    from tests.support.postgres_logins import login_with_password

    login = login_with_password(postgres_cluster, "the right one")
    local = configure_profile(tmp_path / "profile", fake_openai)
    wrong = dataclasses.replace(login, password="not it")
    session = gui_session(local.__class__.at(local.data_dir, server=wrong))

    async def scenario(session):
        window = session.window
        await wait_until(lambda: window.store_banner.isVisible())
        assert "refused the password" in window.store_banner_label.text()
        assert "Settings → Store" in window.store_banner_label.text()
        backoff = session.store_wait.backoff
        assert backoff._next == backoff.first  # no timer: it waits for the user
        return session.assistant

    assert run_in_session(session, scenario, wait_for_open=False) is None
    assert not (local.data_dir / "acai.sqlite3").exists()


def test_the_server_going_away_mid_chat_keeps_the_message_and_reconnects(
    qapp, tmp_path, fake_openai, postgres_cluster, postgres_url
):
    local = configure_profile(tmp_path / "profile", fake_openai)
    profile = local.__class__.at(local.data_dir, server=parse_server_url(postgres_url))
    session = gui_session(profile, store_backoff=Backoff(first=0.2, ceiling=1.0))

    async def scenario(session):
        window = session.window
        window.composer.set_text("Hello there.")
        window.composer.send_button.click()
        await wait_until(lambda: window.composer.text() == "" and not window.composer.busy)
        stop_server(postgres_cluster)
        try:
            window.composer.set_text(TYPED)
            window.composer.send_button.click()
            await wait_until(lambda: window.store_banner.isVisible())
            assert "can't be reached" in window.store_banner_label.text()
            assert window.composer.text() == TYPED  # not sent, not lost
        finally:
            start_server(postgres_cluster)
        await wait_until(
            lambda: session.assistant is not None and not window.store_banner.isVisible()
        )
        assert window.composer.text() == TYPED
        window.composer.send_button.click()
        await wait_until(lambda: window.composer.text() == "" and not window.composer.busy)
        return [m.content for m in window.messages_model._records if m.role == "user"]

    sent = run_in_session(session, scenario)
    assert sent == ["Hello there.", TYPED]


def test_an_older_schema_waits_for_the_user_to_update_it(
    qapp, tmp_path, fake_openai, postgres_url, monkeypatch
):
    import asyncio

    from acai_desktop.core.profile import server_check
    from acai_desktop.core.store.migrations import migrations
    from acai_desktop.core.store.store_url import open_store

    async def made_by_this_version() -> None:
        await (await open_store(postgres_url)).close()

    asyncio.run(made_by_this_version())
    # As a later ACAI sees this database: one migration behind.
    monkeypatch.setattr(
        server_check,
        "_known_migrations",
        lambda: [*migrations.recorded_names(postgres=True), "m099_next"],
    )
    local = configure_profile(tmp_path / "profile", fake_openai)
    session = gui_session(local.__class__.at(local.data_dir, server=parse_server_url(postgres_url)))

    async def scenario(session):
        window = session.window
        await wait_until(lambda: window.store_banner.isVisible())
        assert "older ACAI Desktop (1 update behind: m099_next)" in window.store_banner_label.text()
        assert window.store_retry_button.text() == "Update the server's memory"
        assert not session.profile_shown  # nothing is opened (or changed) before the user agrees
        window.store_retry_button.click()
        await wait_until(lambda: session.profile_shown and not window.store_banner.isVisible())
        return True

    assert run_in_session(session, scenario, wait_for_open=False)


def test_the_server_going_away_while_idle_shows_the_banner_and_reconnects(
    qapp, tmp_path, fake_openai, postgres_cluster, postgres_url
):
    local = configure_profile(tmp_path / "profile", fake_openai)
    profile = local.__class__.at(local.data_dir, server=parse_server_url(postgres_url))
    session = gui_session(profile, store_backoff=Backoff(first=0.2, ceiling=1.0))

    async def scenario(session):
        window = session.window
        assistant = session.assistant
        stop_server(postgres_cluster)  # nothing is asked of it: the listener notices
        try:
            await wait_until(lambda: window.store_banner.isVisible())
            assert "can't be reached" in window.store_banner_label.text()
        finally:
            start_server(postgres_cluster)
        await wait_until(
            lambda: (
                session.assistant not in (None, assistant) and not window.store_banner.isVisible()
            )
        )
        return True

    assert run_in_session(session, scenario)
