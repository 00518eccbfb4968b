"""``acai-desktop models`` as a real process against a scripted provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
