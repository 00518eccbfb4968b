"""``python -m benchmarks eval ablation`` as a real process against the scripted server: the JSON
it prints, and Ctrl+C printing what was measured so far."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from acai_lab.scripted_openai import Reply
from tests.core.test_ablation_eval import FIXTURE, scripted_reader
from tests.support.benchmarks import benchmark_environment
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def ablation_command(data_dir: Path, server, *args: str) -> list[str]:
    return [
        sys.executable, "-m", "benchmarks", "eval", "ablation", "--data-dir", str(data_dir),
        "--dataset", FIXTURE, "--provider", "custom", "--base-url", server.base_url,
        "--model", "fake-model", *args,
    ]  # fmt: skip


ENV = benchmark_environment()


def test_json_has_every_configuration_and_the_budget_comes_first(tmp_path, fake_openai):
    fake_openai.responder = scripted_reader
    done = subprocess.run(
        ablation_command(tmp_path, fake_openai, "--limit", "2", "--configs", "A,C,D,F", "--json"),
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "7 questions x 4 configurations, 7 messages to learn from: about 35–44 model calls" in (
        done.stderr
    )
    report = json.loads(done.stdout)
    assert set(report) >= {
        "configs",
        "per_category",
        "questions",
        "model",
        "storage_bytes_per_message",
    }
    assert list(report["configs"]) == ["A", "C", "D", "F"]
    for figures in report["configs"].values():
        assert set(figures) >= {"f1", "judge", "prompt_tokens", "latency_ms"}
        assert set(figures["latency_ms"]) == {"p50", "p95"}
        assert figures["judge"] is None  # not asked for
    assert report["configs"]["A"]["f1"] == 0.0 and report["configs"]["D"]["f1"] == 1.0
    assert report["model"] == "fake-model (custom)" and report["questions"] == 7


def test_ctrl_c_stops_and_prints_the_answers_so_far(tmp_path, fake_openai):
    def slow(body: dict) -> Reply:
        reply = scripted_reader(body)
        reply.delay = 0.3
        return reply

    fake_openai.responder = slow
    process = subprocess.Popen(
        ablation_command(tmp_path, fake_openai, "--limit", "2", "--configs", "A,F"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=ENV,
    )  # fmt: skip
    try:
        for line in process.stderr:
            if line.startswith("steps 2/"):
                break
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PROGRAM_TIMEOUT_S)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Stopping after the current step" in err
    assert "(stopped early: partial results)" in out
    # answered, F1, judge, strict, credited, tokens, off-topic, p50, p95: 9th from the end.
    answered = [int(line.split()[-9]) for line in out.splitlines() if line.startswith("  A ")]
    assert answered and 1 <= answered[0] < 7


def test_scripted_reader_needs_no_model_and_refuses_model_options(tmp_path):
    command = [sys.executable, "-m", "benchmarks", "eval", "ablation", "--data-dir",
               str(tmp_path), "--dataset", FIXTURE, "--limit", "2", "--scripted"]  # fmt: skip
    done = subprocess.run(
        [*command, "--configs", "A,C,F", "--json"],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    configs = json.loads(done.stdout)["configs"]
    assert [configs[c]["f1"] for c in "ACF"] == [0.0, 1.0, 1.0]
    refused = subprocess.run(
        [*command, "--model", "x"],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S, env=ENV,
    )  # fmt: skip
    assert refused.returncode != 0 and "leave out --provider" in refused.stderr


def test_no_model_there_is_an_error_and_no_table(tmp_path):
    from tests.support.closed_ports import closed_urls

    with closed_urls(1) as (url,):
        command = [sys.executable, "-m", "benchmarks", "eval", "ablation", "--data-dir",
                   str(tmp_path), "--dataset", FIXTURE, "--limit", "1", "--provider", "custom",
                   "--base-url", url, "--model", "m"]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8",
            timeout=PROGRAM_TIMEOUT_S, env=ENV,
        )  # fmt: skip
    assert done.returncode not in (0, 130)
    assert "Ablation on" not in done.stdout and "Traceback" not in done.stderr
    assert url.removesuffix("/v1") in done.stderr or "127.0.0.1" in done.stderr
