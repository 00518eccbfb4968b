"""``python -m benchmarks bench conversation`` as a process against the scripted server."""

import json
import subprocess
import sys

from acai_lab.scripted_model import call_counts, facts_in, fake_model
from benchmarks.bench_conversation import (
    FACTS,
    QUESTIONS,
    SMALL_TALK,
    scripted_messages,
)
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def test_counts_calls_and_compares_prompt_tokens(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    result = subprocess.run(
        [
            sys.executable, "-m", "benchmarks", "bench", "conversation",
            "--provider", "custom", "--base-url", fake_openai.base_url, "--model", "fake",
            "--messages", "20", "--turns", "60", "--json",
        ],
        capture_output=True, text=True, timeout=PROGRAM_TIMEOUT_S,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    calls, prompt = report["processor_calls"], report["prompt"]

    messages = scripted_messages(20)
    small_talk = sum(text in SMALL_TALK for text in messages)
    with_facts = sum(bool(facts_in(text)) for text in messages)
    assert calls["gated_without_a_call"] == small_talk > 0
    assert calls["triage_calls"] == 20 - small_talk
    assert calls["extraction_calls"] == with_facts  # the fake triage says yes to facts only
    assert call_counts(fake_openai)["triage"] == calls["triage_calls"]

    assert prompt["turns"] == 60 and prompt["summaries"] >= 1
    assert prompt["tokens_sent"] <= prompt["budget_tokens"] < prompt["tokens_whole_history"]
    assert prompt["ratio"] == round(prompt["tokens_sent"] / prompt["tokens_whole_history"], 3)


def test_scripted_messages_mix_facts_questions_and_small_talk():
    messages = scripted_messages(50)
    assert len(messages) == 50
    assert sum(m in SMALL_TALK for m in messages) == 18
    assert sum(m in FACTS for m in messages) == 12
    assert sum(m in QUESTIONS for m in messages) == 20
    assert scripted_messages(50) == messages  # deterministic
