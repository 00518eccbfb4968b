"""The user's own figures for their models (``model-table.json``) over the known table."""

import json

from acai_desktop.core.routing.catalogue import Offer, candidates_from
from acai_desktop.core.routing.known_models import capabilities_of
from acai_desktop.core.routing.model_table import (
    FILE_NAME,
    ModelTable,
    load_model_table,
    with_model_table,
)
from acai_desktop.core.routing.selection import Candidate, Where
from acai_desktop.core.routing.turn_kinds import TurnKind


def _candidate(model, window=8_192):
    return Candidate(model, "Ollama", Where.THIS_COMPUTER, window, capabilities_of(model))


def test_the_users_figures_win_for_the_models_they_name_and_a_bad_entry_is_said(tmp_path):
    (tmp_path / FILE_NAME).write_text(
        json.dumps(
            {
                "models": {
                    "my-finetune": {"quality": 4, "strong_at": ["code"], "window_tokens": 65536},
                    "qwen2.5": {"vision": True},
                    "qwen2.5-coder": {"price_in": 0.5, "price_out": 1.5},
                    "broken": {"quality": 9},
                }
            }
        )
    )
    table, problems = load_model_table(tmp_path)
    assert problems == [
        f"{FILE_NAME}: 'broken' is left out: quality must be a whole number from 1 to 5."
    ]
    tuned = with_model_table(_candidate("my-finetune:latest"), table)
    assert tuned.capabilities.quality == 4 and tuned.capabilities.known
    assert tuned.capabilities.strong_at == frozenset({TurnKind.CODE})
    assert tuned.window_tokens == 65536
    # The longest start wins: the coder takes its own entry, not "qwen2.5"'s.
    coder = with_model_table(_candidate("qwen2.5-coder:7b"), table)
    assert (coder.capabilities.price_in, coder.capabilities.vision) == (0.5, False)
    assert with_model_table(_candidate("qwen2.5:7b"), table).capabilities.vision
    untouched = _candidate("llama3.2")
    assert with_model_table(untouched, table) is untouched


def test_an_unreadable_table_is_said_and_the_known_figures_stay(tmp_path):
    assert load_model_table(tmp_path) == (ModelTable(), [])
    (tmp_path / FILE_NAME).write_text("{nope")
    table, (problem,) = load_model_table(tmp_path)
    assert table == ModelTable() and problem.startswith(f"{FILE_NAME} can't be read")
    (tmp_path / FILE_NAME).write_text('{"models": ["gpt-4o"]}')
    assert load_model_table(tmp_path)[1] == [
        f'{FILE_NAME} needs a "models" or a "servers" object; the known figures are used.'
    ]


def test_the_user_says_where_a_server_runs_when_its_address_cant_tell(tmp_path):
    proxy, nas = "http://127.0.0.1:4000/v1", "https://gpu.example.org/v1"
    (tmp_path / FILE_NAME).write_text(
        json.dumps(
            {
                "servers": {
                    proxy + "/": {"where": "the cloud"},
                    nas: {"where": "the local network"},
                    "http://127.0.0.1:9/v1": {"where": "mars"},
                }
            }
        )
    )
    table, (problem,) = load_model_table(tmp_path)
    assert "server 'http://127.0.0.1:9/v1' is left out" in problem
    assert table.where(proxy) is Where.CLOUD
    assert table.where(nas) is Where.LOCAL_NETWORK
    assert table.where("http://127.0.0.1:11434/v1") is Where.THIS_COMPUTER
    offers = [Offer("LiteLLM", proxy, ("gpt-4o",)), Offer("Ollama", nas, ("llama3.1:8b",))]
    relayed, boxed = candidates_from(offers, where_of=table.where)
    # A proxy's cloud model costs what the cloud charges; the user's own box costs nothing.
    assert relayed.where is Where.CLOUD and relayed.capabilities.price_in > 0
    assert boxed.where is Where.LOCAL_NETWORK and boxed.capabilities.price_in == 0
