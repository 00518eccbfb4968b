"""The user's figures written into ``model-table.json`` (issue 42, item 1: "a table the
user can edit"): real files in a temp folder, what the user wrote by hand kept, wrong
values and unreadable files refused with the file left as it was, and a saved edit
reaching the router's next turn over real HTTP."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.routing.catalogue import Offer, known_figures
from acai_desktop.core.routing.known_models import capabilities_of
from acai_desktop.core.routing.model_table import FILE_NAME, load_model_table, with_model_table
from acai_desktop.core.routing.model_table_edits import (
    ModelTableEdit,
    edit_model_table,
    figures_between,
)
from acai_desktop.core.routing.reachable import listing_of
from acai_desktop.core.routing.selection import Candidate, Where
from acai_desktop.core.routing.turn_kinds import TurnKind
from tests.core.test_routed_turns import CODE_TURN, CODER, STRONG, _assistant, _servers
from tests.support.aio import run

PROXY = "http://127.0.0.1:4000/v1"


def _read(folder) -> dict:
    return json.loads((folder / FILE_NAME).read_text(encoding="utf-8"))


def _candidate(model: str, where: Where = Where.THIS_COMPUTER, base_url: str | None = None):
    capabilities, window = known_figures(model, where)
    return Candidate(model, "Ollama", where, window, capabilities, None, base_url)


def test_a_models_figures_and_its_servers_place_are_written_and_read_back(tmp_path):
    edit = ModelTableEdit(
        "qwen2.5-coder:7b",
        {"quality": 4, "window_tokens": 65_536, "strong_at": ["code", "reasoning"]},
        PROXY + "/",
        Where.CLOUD,
    )
    edit_model_table(tmp_path, edit)
    assert _read(tmp_path) == {
        "models": {"qwen2.5-coder:7b": edit.figures},
        "servers": {PROXY: {"where": "the cloud"}},
    }
    table, problems = load_model_table(tmp_path)
    assert problems == []
    coder = with_model_table(_candidate("qwen2.5-coder:7b"), table)
    assert (coder.capabilities.quality, coder.window_tokens) == (4, 65_536)
    assert coder.capabilities.strong_at == {TurnKind.CODE, TurnKind.REASONING}
    assert table.where(PROXY) is Where.CLOUD
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file became the table


def test_an_edit_keeps_what_the_user_wrote_by_hand(tmp_path):
    hand_written = {
        "$comment": "my models",
        "models": {
            "my-finetune": {"quality": 4},
            "Qwen2.5-Coder:7B": {"quality": 5, "note": "fast on my GPU"},
            "broken": {"quality": 9},
        },
        "servers": {"http://nas:8080/v1": {"where": "the local network", "note": "the NAS"}},
        "version": 1,
    }
    (tmp_path / FILE_NAME).write_text(json.dumps(hand_written), encoding="utf-8")
    edit_model_table(tmp_path, ModelTableEdit("qwen2.5-coder:7b", {"window_tokens": 65_536}))
    edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {"price_in": 2.0}, PROXY, Where.CLOUD))
    edit_model_table(tmp_path, ModelTableEdit("llama3.2", {}, "http://NAS:8080/v1/", None))
    written = _read(tmp_path)
    assert written == {
        "$comment": "my models",
        "models": {
            "my-finetune": {"quality": 4},
            # The hand-written spelling is this model's entry: its figures are the
            # edit's, its note stays.
            "Qwen2.5-Coder:7B": {"note": "fast on my GPU", "window_tokens": 65_536},
            "broken": {"quality": 9},  # wrong, and the user's to correct
            "gpt-4o": {"price_in": 2.0},
        },
        "servers": {
            "http://nas:8080/v1": {"note": "the NAS"},  # the address says it again
            PROXY: {"where": "the cloud"},
        },
        "version": 1,
    }
    assert list(written) == ["$comment", "models", "servers", "version"]


def test_the_known_figures_again_take_the_entry_away_or_shadow_a_shorter_one(tmp_path):
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"models": {"qwen2.5": {"vision": True}, "qwen2.5:7b": {"quality": 5}}})
    )
    edit_model_table(tmp_path, ModelTableEdit("qwen2.5:7b", {}))
    edit_model_table(tmp_path, ModelTableEdit("qwen2.5:14b", {}))
    # qwen2.5's entry would count for them: an empty entry of their own keeps the
    # known figures (the longest start wins, whole).
    assert _read(tmp_path) == {
        "models": {"qwen2.5": {"vision": True}, "qwen2.5:7b": {}, "qwen2.5:14b": {}}
    }
    table, _ = load_model_table(tmp_path)
    for model in ("qwen2.5:7b", "qwen2.5:14b"):
        known = _candidate(model)
        assert with_model_table(known, table).capabilities == replace(
            known.capabilities, known=True
        )
    assert with_model_table(_candidate("qwen2.5:32b"), table).capabilities.vision
    edit_model_table(tmp_path, ModelTableEdit("qwen2.5", {}))
    edit_model_table(tmp_path, ModelTableEdit("qwen2.5:7b", {}))
    assert _read(tmp_path) == {"models": {"qwen2.5:14b": {}}}


def test_an_edit_that_changes_nothing_writes_nothing(tmp_path):
    edit_model_table(tmp_path, ModelTableEdit("llama3.2", {}, PROXY, None))
    assert not (tmp_path / FILE_NAME).exists()
    (tmp_path / FILE_NAME).write_text('{"models": {"gpt-4o": {"price_in": 2}}}')
    edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {"price_in": 2}))
    assert (tmp_path / FILE_NAME).read_text() == '{"models": {"gpt-4o": {"price_in": 2}}}'


@pytest.mark.parametrize(
    ("figures", "said"),
    [
        ({"quality": 9}, "quality must be a whole number from 1 to 5"),
        ({"quality": True}, "quality must be a whole number from 1 to 5"),
        ({"window_tokens": 100}, "window_tokens must be a whole number of tokens, 256 or more"),
        ({"price_out": -1.0}, "price_out must be a number of dollars, 0 or more"),
        ({"price_in": float("nan")}, "price_in must be a number of dollars, 0 or more"),
        ({"vision": "yes"}, "vision, tools, json_schema must be true or false"),
        ({"strong_at": ["poetry"]}, "strong_at must list kinds among"),
    ],
)
def test_a_wrong_figure_is_refused_in_words_and_the_file_stays(tmp_path, figures, said):
    before = '{"models": {"gpt-4o": {"price_in": 2}}}'
    (tmp_path / FILE_NAME).write_text(before)
    with pytest.raises(InvalidInputError) as refused:
        edit_model_table(tmp_path, ModelTableEdit("gpt-4o", figures, PROXY, Where.CLOUD))
    assert str(refused.value).startswith(f"gpt-4o's figures are not saved: {said}")
    assert (tmp_path / FILE_NAME).read_text() == before


def test_no_other_key_and_no_nameless_model_or_server(tmp_path):
    with pytest.raises(InvalidInputError, match="colour: no figure a model's entry holds"):
        edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {"colour": "red"}))
    with pytest.raises(InvalidInputError, match="Figures need a model's name"):
        edit_model_table(tmp_path, ModelTableEdit(" ", {"quality": 3}))
    with pytest.raises(InvalidInputError, match="needs its address"):
        edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {}, " ", Where.CLOUD))
    with pytest.raises(InvalidInputError, match="not on 'mars'"):
        edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {}, PROXY, "mars"))
    assert not (tmp_path / FILE_NAME).exists()


@pytest.mark.parametrize(
    "content",
    [b"{nope", b'{"models": ["gpt-4o"]}', b'{"servers": 3}', b"[]", b'{"models": {}}\xff'],
)
def test_a_file_that_cant_be_read_is_never_written_over(tmp_path, content):
    (tmp_path / FILE_NAME).write_bytes(content)
    with pytest.raises(InvalidInputError) as refused:
        edit_model_table(tmp_path, ModelTableEdit("gpt-4o", {"quality": 5}))
    assert f"{FILE_NAME} " in str(refused.value)
    assert "nothing was changed: correct the file or move it away" in str(refused.value)
    assert (tmp_path / FILE_NAME).read_bytes() == content


def test_only_what_differs_from_the_known_figures_is_the_users(tmp_path):
    known, window = known_figures("gpt-4o-mini", Where.CLOUD)
    same = figures_between(known, window, known, window)
    assert same == {}
    chosen = replace(known, quality=5, price_in=0.2, strong_at=frozenset({TurnKind.CODE}))
    assert figures_between(known, window, chosen, 32_768) == {
        "quality": 5,
        "window_tokens": 32_768,
        "price_in": 0.2,
        "strong_at": ["code"],
    }
    # A model ACAI only guessed at: the tier the user kept is theirs now.
    guessed, guessed_window = known_figures("my-finetune", Where.THIS_COMPUTER)
    assert not guessed.known
    assert figures_between(guessed, guessed_window, guessed, guessed_window) == {"quality": 3}
    # Off the cloud the known price is nothing, so a price the user sets is theirs.
    local, _ = known_figures("gpt-4o-mini", Where.THIS_COMPUTER)
    assert (local.price_in, capabilities_of("gpt-4o-mini").price_in) == (0.0, 0.15)


def test_a_listing_shows_a_saved_edit_without_asking_the_servers_again(tmp_path):
    offers = [Offer("LiteLLM", PROXY, ("gpt-4o", "qwen2.5-coder:7b"))]
    listing = listing_of(offers, ["OpenAI did not list its models"], tmp_path)
    before = {c.model: c for c in listing.candidates}
    assert before["gpt-4o"].where is Where.THIS_COMPUTER
    assert before["gpt-4o"].capabilities.price_in == 0.0
    edit_model_table(
        tmp_path, ModelTableEdit("qwen2.5-coder:7b", {"quality": 5}, PROXY, "the cloud")
    )
    again = listing.refigured(tmp_path)
    after = {c.model: c for c in again.candidates}
    assert again.offers == listing.offers and again.problems == ["OpenAI did not list its models"]
    # The proxy's models now run in the cloud, and cost what the cloud charges.
    assert after["gpt-4o"].where is Where.CLOUD and after["gpt-4o"].capabilities.price_in > 0
    assert after["qwen2.5-coder:7b"].capabilities.quality == 5
    assert again.table.said_where(PROXY) is Where.CLOUD
    assert again.table.entry_for("qwen2.5-coder:7b") == ("qwen25coder7b", {"quality": 5})


def test_a_saved_edit_reaches_the_routers_next_turn(tmp_path):
    profile_dir = tmp_path / "profile"

    async def scenario(own, ollama):
        async with _assistant(tmp_path, own, ollama, "best") as assistant:
            first = await assistant.orchestrator.send(None, CODE_TURN)
            # The user says gpt-4o is strong at code: a tier above the coder now. The
            # router keeps its list for minutes, but not past a change of the table.
            edit_model_table(profile_dir, ModelTableEdit(STRONG, {"strong_at": ["code"]}))
            told = await assistant.orchestrator.send(first.conversation_id, CODE_TURN)
            # By hand too: the file's time or size changed.
            (profile_dir / FILE_NAME).write_text('{"models": {"qwen2.5-coder": {"quality": 5}}}')
            by_hand = await assistant.orchestrator.send(first.conversation_id, CODE_TURN)
        return first, told, by_hand

    with _servers() as (own, ollama):
        first, told, by_hand = run(scenario(own, ollama))
    assert first.answer.model == CODER
    assert told.answer.model == STRONG
    assert told.route["reason"] == f"code → {STRONG} on this computer"
    assert by_hand.answer.model == CODER


def test_an_entry_with_a_tag_is_that_size_alone_and_one_without_every_size(tmp_path):
    (tmp_path / FILE_NAME).write_text(
        json.dumps(
            {"models": {"qwen2.5-coder": {"quality": 4}, "qwen2.5-coder:14b": {"quality": 5}}}
        )
    )
    table, _ = load_model_table(tmp_path)
    tiers = {
        model: with_model_table(_candidate(model), table).capabilities.quality
        for model in ("qwen2.5-coder:7b", "qwen2.5-coder:14b", "qwen2.5-coder:14b-instruct-q4")
    }
    assert tiers == {
        "qwen2.5-coder:7b": 4,
        "qwen2.5-coder:14b": 5,
        "qwen2.5-coder:14b-instruct-q4": 5,
    }
