"""Settings → Your models in the real window (issue 42, item 1): the models the user can
reach, asked of a scripted provider over HTTP, with what is known and measured of each."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QLabel

from acai_desktop.core.models.settings import load_model_settings
from acai_desktop.core.routing.catalogue import Offer
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_desktop.core.routing.model_table import FILE_NAME
from acai_desktop.core.routing.model_table_edits import ModelTableEdit
from acai_desktop.core.routing.reachable import listing_of
from acai_desktop.core.routing.selection import Policy, Where
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.core.routing.turn_needs import analyse_turn
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.widgets.model_figures_dialog import (
    RESET_TEXT,
    UNDO_RESET_TEXT,
    ModelFiguresDialog,
)
from acai_desktop.ui.widgets.models_list import ModelsList
from acai_desktop.ui.widgets.settings_dialog import SettingsDialog
from tests.support.assistant import configure_profile
from tests.support.gui import gui_session, run_in_session, wait_until
from tests.ui.test_wheel_in_settings import send_wheel

LEFT = Qt.MouseButton.LeftButton


def _listed(models) -> dict[str, str]:
    """Each model's two lines, by its name."""
    items = [models.list.item(row).text() for row in range(models.list.count())]
    return {text.split(" — ", 1)[0]: text for text in items}


def test_your_models_lists_what_the_provider_offers_and_what_was_measured(
    qapp, tmp_path, fake_openai
):
    fake_openai.models = ["gpt-4o-mini", "SmolLM2-135M-Instruct", "text-embedding-3-small"]
    profile = configure_profile(tmp_path / "profile", fake_openai)
    speeds = SpeedLog(profile.data_dir)
    speeds.record(
        speed_key(fake_openai.base_url, "gpt-4o-mini"),
        ok=True,
        first_token_seconds=0.4,
        tokens_per_second=42.0,
    )
    speeds.save()
    settings_before = profile.settings_path.read_bytes()

    async def scenario(session: AppController):
        window = session.window
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        models = dialog.models_list
        assert not models.list.isVisible()  # nothing is asked until the user asks
        asked_before = len(fake_openai.requests_to("/v1/models"))
        QTest.mouseClick(models.list_button, Qt.MouseButton.LeftButton)
        assert not models.list_button.isEnabled()
        await wait_until(lambda: models.list_button.isEnabled())
        assert len(fake_openai.requests_to("/v1/models")) > asked_before
        listed = _listed(models)
        # The scripted server is on 127.0.0.1: this computer, so nothing to pay.
        assert listed["gpt-4o-mini"] == (
            "gpt-4o-mini — on this computer, 128k window, sees images, tools, tier 3 of 5\n"
            "Free · measured here: 0.4 s to first words, 42 tokens/s, 0% failed (1 call)"
        )
        assert "tier 1 of 5" in listed["SmolLM2-135M-Instruct"]
        assert listed["SmolLM2-135M-Instruct"].endswith("Free · not measured yet")
        assert "text-embedding-3-small" not in listed  # an embedder does not chat
        assert "you can reach" in models.status.text()
        dialog.reject()

    run_in_session(gui_session(profile), scenario)
    assert profile.settings_path.read_bytes() == settings_before  # listing changes nothing


def test_each_answer_from_is_saved_with_the_settings_and_kept_when_unchanged(
    qapp, tmp_path, fake_openai
):
    profile = configure_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        window = session.window
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        dialog = await wait_until(lambda: window.findChild(SettingsDialog))
        box = dialog.routing_box
        assert box.currentData() is None  # nothing routes until the user chooses
        box.setCurrentIndex(box.findData("cheapest"))
        QTest.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: load_model_settings(profile.settings_path).routing == "cheapest")
        await session.until_reconnected()
        QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
        again = await wait_until(
            lambda: (d := window.findChild(SettingsDialog)) and d.isVisible() and d
        )
        assert again.routing_box.currentData() == "cheapest"
        again.reject()

    run_in_session(gui_session(profile), scenario)


# -- the user's figures for a model (issue 42, item 1: "a table the user can edit") ------


def _row_of(models, name: str) -> int:
    return next(r for r in range(models.list.count()) if _listed_name(models, r) == name)


def _listed_name(models, row: int) -> str:
    return models.list.item(row).text().split(" — ", 1)[0]


async def _listed_in_settings(session: AppController):
    window = session.window
    QTest.mouseClick(window.settings_button, Qt.MouseButton.LeftButton)
    dialog = await wait_until(lambda: window.findChild(SettingsDialog))
    models = dialog.models_list
    QTest.mouseClick(models.list_button, Qt.MouseButton.LeftButton)
    await wait_until(lambda: models.list_button.isEnabled() and models.list.count())
    return dialog, models


async def _open_figures(models, name: str) -> ModelFiguresDialog:
    assert not models.edit_button.isEnabled()  # nothing chosen yet
    models.list.setCurrentRow(_row_of(models, name))
    QTest.mouseClick(models.edit_button, Qt.MouseButton.LeftButton)
    return await wait_until(lambda: models.editor and models.editor.isVisible() and models.editor)


def test_a_models_figures_are_saved_on_save_and_shown_and_routed_and_cancel_changes_nothing(
    qapp, tmp_path, fake_openai
):
    fake_openai.models = ["gpt-4o-mini", "SmolLM2-135M-Instruct"]
    profile = configure_profile(tmp_path / "profile", fake_openai)
    table = profile.data_dir / FILE_NAME

    async def scenario(session: AppController):
        router = session.assistant.orchestrator.routed.router
        best = (await router.route(analyse_turn("Hello there"), Policy.BEST)).chosen
        assert best.model == "gpt-4o-mini" and best.capabilities.quality == 3
        dialog, models = await _listed_in_settings(session)
        before = _listed(models)["gpt-4o-mini"]
        editor = await _open_figures(models, "gpt-4o-mini")
        assert editor.tier.currentData() == 3 and editor.window_tokens.value() == 128_000
        editor.tier.setCurrentIndex(editor.tier.findData(5))
        QTest.mouseClick(editor.buttons.button(QDialogButtonBox.StandardButton.Cancel), LEFT)
        await wait_until(lambda: not editor.isVisible())
        assert not table.exists() and _listed(models)["gpt-4o-mini"] == before

        editor = await _open_figures_again(models, "gpt-4o-mini")
        editor.tier.setCurrentIndex(editor.tier.findData(5))
        editor.window_tokens.setValue(65_536)
        editor.strong[TurnKind.CODE].setChecked(True)
        editor.price_in.setValue(0.25)
        editor.where_box.setCurrentIndex(editor.where_box.findData(Where.CLOUD))
        assert not table.exists()  # nothing is written before Save
        QTest.mouseClick(editor.save_button, LEFT)
        await wait_until(lambda: models.editor is None)
        assert json.loads(table.read_text()) == {
            "models": {
                # Only what differs from ACAI's figures (at the cloud's prices now).
                "gpt-4o-mini": {
                    "quality": 5,
                    "window_tokens": 65_536,
                    "price_in": 0.25,
                    "strong_at": ["code"],
                }
            },
            "servers": {fake_openai.base_url: {"where": "the cloud"}},
        }
        assert _listed(models)["gpt-4o-mini"] == (
            "gpt-4o-mini — on the cloud (your word), 64k window, sees images, tools, "
            "tier 5 of 5, strong at code, your figures\n"
            "$0.25 in, $0.6 out per M tokens · not measured yet"
        )
        assert models.selected().model == "gpt-4o-mini"
        assert models.status.text().startswith("Saved in model-table.json: gpt-4o-mini.")
        # The router reads them before its next turn (its list was kept for minutes).
        best = (await router.route(analyse_turn("Hello there"), Policy.BEST)).chosen
        assert (best.capabilities.quality, best.where) == (5, Where.CLOUD)
        dialog.reject()

    run_in_session(gui_session(profile), scenario)


async def _open_figures_again(models, name: str) -> ModelFiguresDialog:
    models.list.clearSelection()
    return await _open_figures(models, name)


def test_a_table_that_cant_be_read_is_refused_in_the_dialog_and_left_as_it_was(
    qapp, tmp_path, fake_openai
):
    fake_openai.models = ["gpt-4o-mini"]
    profile = configure_profile(tmp_path / "profile", fake_openai)
    table = profile.data_dir / FILE_NAME
    table.write_text('{"models": {"gpt-4o": {"price_in": 2.0}')  # cut short by hand

    async def scenario(session: AppController):
        dialog, models = await _listed_in_settings(session)
        assert f"{FILE_NAME} can't be read" in models.status.text()
        editor = await _open_figures(models, "gpt-4o-mini")
        editor.tier.setCurrentIndex(editor.tier.findData(4))
        QTest.mouseClick(editor.save_button, LEFT)
        await wait_until(lambda: editor.error_label.isVisible())
        assert editor.error_label.text().startswith(f"Not saved: {FILE_NAME} can't be read (")
        assert "nothing was changed" in editor.error_label.text()
        assert editor.isVisible() and editor.save_button.isEnabled()  # nothing lost
        assert editor.tier.currentData() == 4
        editor.reject()
        dialog.reject()

    run_in_session(gui_session(profile), scenario)
    assert table.read_text() == '{"models": {"gpt-4o": {"price_in": 2.0}'


# -- the figures dialog on its own ---------------------------------------------------------

PROXY = "http://127.0.0.1:4000/v1"


@pytest.fixture
def listed(qtbot, tmp_path):
    """Settings' Your models showing a proxy's models (the proxy said to be the cloud,
    gpt-4o with the user's own price), as a listing would."""
    (tmp_path / FILE_NAME).write_text(
        json.dumps(
            {
                "models": {"gpt-4o": {"price_in": 2.0, "note": "my contract"}},
                "servers": {PROXY: {"where": "the cloud"}},
            }
        )
    )
    offers = [
        Offer("LiteLLM", PROXY, ("gpt-4o", "<b>my-finetune</b>", "llama3.1:8b")),
        Offer("the built-in server", None, ("SmolLM2-135M-Instruct",)),
    ]
    models = ModelsList()
    qtbot.addWidget(models)
    models.resize(560, 400)
    models.show()
    models.show_listing(listing_of(offers, [], tmp_path))
    return models


def test_reset_fills_in_the_known_figures_offers_undo_and_saves_only_on_save(listed, qtbot):
    editor = listed.edit_figures(listed.listing.candidates[0])
    saved = []
    editor.save_requested.connect(saved.append)
    assert editor.source_note.text().startswith("Your figures (model-table.json).")
    assert editor.price_in.value() == 2.0 and editor.where() is Where.CLOUD
    editor.window_tokens.setValue(32_768)
    QTest.mouseClick(editor.reset_button, LEFT)
    # ACAI's list price for gpt-4o, its known window: shown, not saved.
    assert (editor.price_in.value(), editor.window_tokens.value()) == (2.5, 128_000)
    assert editor.reset_button.text() == UNDO_RESET_TEXT and saved == []
    QTest.mouseClick(editor.reset_button, LEFT)  # Undo: the figures as they were
    assert (editor.price_in.value(), editor.window_tokens.value()) == (2.0, 32_768)
    assert editor.reset_button.text() == RESET_TEXT
    QTest.mouseClick(editor.reset_button, LEFT)
    QTest.mouseClick(editor.save_button, LEFT)
    # After Reset, Save says "the known figures": the model's entry goes; the proxy's
    # place is the user's word still.
    assert saved == [ModelTableEdit("gpt-4o", {}, PROXY, Where.CLOUD)]


def test_a_known_price_follows_where_the_server_runs_and_a_guess_is_said(listed, qtbot):
    llama = next(c for c in listed.listing.candidates if c.model == "llama3.1:8b")
    editor = listed.edit_figures(llama)
    assert "ACAI's known figures" in editor.source_note.text()
    assert editor.where_note.text().startswith("Your word, for every model at this address")
    assert editor.price_in.value() == 0.0
    # Said to run on this computer (as the address says): the user's word goes.
    editor.where_box.setCurrentIndex(editor.where_box.findData(Where.THIS_COMPUTER))
    assert editor.where_box.currentText() == "this computer (as its address says)"
    assert editor.edit() == ModelTableEdit("llama3.1:8b", {}, PROXY, None)
    editor.reject()
    guess = next(c for c in listed.listing.candidates if c.model == "<b>my-finetune</b>")
    editor = listed.edit_figures(guess)
    assert "ACAI doesn't know this model" in editor.source_note.text()
    assert editor.edit().figures == {"quality": 3}  # the user vouches for the tier


def test_the_built_in_servers_place_is_this_computer_and_not_the_users_to_say(listed, qtbot):
    built_in = listed.listing.candidates[-1]
    editor = listed.edit_figures(built_in)
    assert not editor.where_box.isEnabled() and editor.where_box.currentText() == "this computer"
    assert editor.where_note.text() == "The built-in server runs on this computer."
    editor.tier.setCurrentIndex(editor.tier.findData(2))
    assert editor.edit() == ModelTableEdit("SmolLM2-135M-Instruct", {"quality": 2}, None, None)


def test_model_names_show_as_the_text_they_are(listed, qtbot):
    row = _row_of(listed, "<b>my-finetune</b>")
    tip = listed.list.item(row).toolTip()
    assert "&lt;b&gt;my-finetune&lt;/b&gt;" in tip and "<b>my" not in tip
    editor = listed.edit_figures(listed.listing.candidates[row])
    naming = [label for label in editor.findChildren(QLabel) if "my-finetune" in label.text()]
    assert [label.text() for label in naming] == ["<b>my-finetune</b>"]
    assert naming[0].textFormat() == Qt.TextFormat.PlainText


def test_the_wheel_over_the_figures_boxes_changes_nothing_until_one_is_chosen(listed, qtbot):
    editor = listed.edit_figures(listed.listing.candidates[0])
    qtbot.waitExposed(editor)
    editor.setFocus()
    boxes = [
        editor.tier,
        editor.window_tokens,
        editor.price_in,
        editor.price_out,
        editor.where_box,
    ]
    before = [_value(box) for box in boxes]
    for box in boxes:
        for steps in (-1, 1, -3):
            send_wheel(box, steps)
    assert [_value(box) for box in boxes] == before
    editor.window_tokens.setFocus()
    qtbot.waitUntil(editor.window_tokens.hasFocus)
    send_wheel(editor.window_tokens, 1)
    assert editor.window_tokens.value() != before[1]


def _value(box) -> object:
    return box.currentIndex() if isinstance(box, QComboBox) else box.value()
