"""``acai-desktop models`` as a real process against a scripted provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import Reply
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def _models(tmp_path, server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", "models", "--data-dir", str(tmp_path / "p"),
         "--provider", "custom", "--base-url", server.base_url, "--model", "gpt-4o", *args],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip


def test_models_lists_what_the_provider_offers_and_routes_a_message(tmp_path, fake_openai):
    fake_openai.models = ["gpt-4o", "SmolLM2-135M-Instruct", "text-embedding-3-small"]
    shown = _models(tmp_path, fake_openai, "--json", "--route", "Write a SQL query for sales.")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    ours = {m["model"]: m for m in data["models"] if m["provider"].startswith("Custom")}
    assert set(ours) == {"gpt-4o", "SmolLM2-135M-Instruct"}
    assert ours["gpt-4o"]["vision"] and ours["gpt-4o"]["where"] == "this computer"
    # A model on the user's own machine costs nothing, whatever its name.
    assert ours["gpt-4o"]["price_per_million"] == {"prompt": 0.0, "answer": 0.0}
    route = data["route"]
    assert route["kind"] == "code" and route["policy"] == "balanced"
    ruled = {c["model"]: c["ruled_out"] for c in route["considered"]}
    assert ruled["SmolLM2-135M-Instruct"] == "too small for code"
    assert ruled["gpt-4o"] is None

    human = _models(tmp_path, fake_openai, "--route", "hello", "--local-only")
    assert human.returncode == 0, human.stderr
    assert "gpt-4o" in human.stdout and "(balanced)" in human.stdout


def test_chat_with_a_policy_sends_the_message_to_the_model_that_fits(tmp_path, fake_openai):
    fake_openai.models = ["SmolLM2-135M-Instruct", "gpt-4o"]
    fake_openai.responder = lambda request: Reply(text=f"Answer from {request['model']}.")
    chat = subprocess.run(
        [sys.executable, "-m", "acai_desktop", "chat", "--data-dir", str(tmp_path / "p"),
         "--provider", "custom", "--base-url", fake_openai.base_url,
         "--model", "SmolLM2-135M-Instruct", "--policy", "best", "--json",
         "Write a Python function that reverses a list."],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    data = json.loads(chat.stdout)
    assert data["answer"] == "Answer from gpt-4o." and data["model"] == "gpt-4o"
    assert data["route"]["reason"] == "code → gpt-4o on this computer"
    ruled = {c["model"]: c["ruled_out"] for c in data["route"]["considered"]}
    assert ruled["SmolLM2-135M-Instruct"] == "too small for code"


def _cli(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", *args, "--data-dir", str(tmp_path / "p")],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip


def test_chat_withholds_what_is_local_only_from_a_server_in_the_cloud(tmp_path, fake_openai):
    """issue 42, item 4, from the command line: the profile's server is said to be the
    cloud (a proxy on this computer, in model-table.json)."""
    fake_openai.models = ["gpt-4o"]
    model = ("--provider", "custom", "--base-url", fake_openai.base_url, "--model", "gpt-4o")
    added = _cli(tmp_path, "memories", "add", "The user's locker code is 4921.", "--pin", "--json")
    assert added.returncode == 0, added.stderr
    memory_id = json.loads(added.stdout)["id"]
    kept = _cli(tmp_path, "memories", "keep-local", str(memory_id))
    assert kept.returncode == 0 and "local only" in kept.stdout, kept.stderr
    (tmp_path / "p" / "model-table.json").write_text(
        json.dumps({"servers": {fake_openai.base_url: {"where": "the cloud"}}})
    )
    asked = _cli(tmp_path, "chat", *model, "--new", "--json", "What is my locker code?")
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["withheld"]["memory_ids"] == [memory_id]
    private = _cli(tmp_path, "chat", *model, "--new", "--local-only", "My locker is blue.")
    assert private.returncode == 1
    assert "This chat is local only" in private.stderr
    sent = json.dumps([r.json for r in fake_openai.chat_requests()])
    assert "4921" not in sent and "locker is blue" not in sent


def _said_to_be_cloud(tmp_path, server) -> tuple[str, ...]:
    (tmp_path / "p").mkdir(parents=True, exist_ok=True)
    (tmp_path / "p" / "model-table.json").write_text(
        json.dumps({"servers": {server.base_url: {"where": "the cloud"}}})
    )
    return ("--provider", "custom", "--base-url", server.base_url, "--model", "gpt-4o")


def test_chat_falls_back_once_and_says_which_model_failed(tmp_path, fake_openai):
    fake_openai.models = ["gpt-4o", "gpt-4o-mini"]

    def failing_best(request: dict) -> Reply:
        if request["model"] == "gpt-4o":
            return Reply(status=503, error_message="overloaded")
        return Reply(text=f"Answer from {request['model']}.")

    fake_openai.responder = failing_best
    model = _said_to_be_cloud(tmp_path, fake_openai)
    chat = _cli(tmp_path, "chat", *model, "--policy", "best", "--json", "Hello, how are you?")
    assert chat.returncode == 0, chat.stderr
    data = json.loads(chat.stdout)
    assert data["answer"] == "Answer from gpt-4o-mini."
    assert data["route"]["fallback"].startswith("answered by gpt-4o-mini because gpt-4o failed")


def test_chat_learns_through_the_router_with_the_cheapest_model_that_does_json(
    tmp_path, fake_openai
):
    fake_openai.models = ["gpt-4o", "gpt-4o-mini"]
    fake_openai.responder = fake_model
    model = _said_to_be_cloud(tmp_path, fake_openai)
    chat = _cli(
        tmp_path, "chat", *model, "--policy", "best", "--wait-jobs", "--json", "I live in Lisbon."
    )
    assert chat.returncode == 0, chat.stderr
    data = json.loads(chat.stdout)
    assert data["model"] == "gpt-4o"
    assert [m["content"] for m in data["stored"]] == ["The user lives in Lisbon"]
    calls = {(call_kind(r.json), r.json["model"]) for r in fake_openai.chat_requests()}
    assert {("triage", "gpt-4o-mini"), ("extraction", "gpt-4o-mini")} <= calls
    assert not {("triage", "gpt-4o"), ("extraction", "gpt-4o")} & calls


def test_chat_with_a_cost_ceiling_leaves_out_the_models_that_cost_more(tmp_path, fake_openai):
    fake_openai.models = ["gpt-4o", "gpt-4o-mini"]
    fake_openai.responder = lambda request: Reply(text=f"Answer from {request['model']}.")
    model = _said_to_be_cloud(tmp_path, fake_openai)
    chat = _cli(
        tmp_path, "chat", *model, "--policy", "best", "--max-cost", "0.001", "--json",
        "Hello, how are you?",
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    data = json.loads(chat.stdout)
    assert data["answer"] == "Answer from gpt-4o-mini."
    ruled = {c["model"]: c["ruled_out"] for c in data["route"]["considered"]}
    assert ruled["gpt-4o"].endswith("over the $0.0010 ceiling")
    assert ruled["gpt-4o-mini"] is None
    refused = _cli(tmp_path, "chat", *model, "--max-cost", "0", "Hello")
    assert refused.returncode == 2 and "more than $0" in refused.stderr
