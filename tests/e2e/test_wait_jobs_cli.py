"""Issue 39, G17: a refused key on a learning job is not retried, and ``chat --wait-jobs``
says what it waits for, and gives up with a message instead of blocking silently."""

from __future__ import annotations

import json

from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.e2e.test_bad_input_cli import acai, scripted
from tests.support.sqlite_rows import rows


def _learning_refused(reply: Reply):
    def responder(body: dict) -> Reply:
        return fake_model(body) if body.get("stream") else reply

    return responder


def test_a_refused_key_fails_the_learning_job_at_once_with_the_reason(tmp_path, fake_openai):
    fake_openai.responder = _learning_refused(
        Reply(status=401, error_message="Incorrect API key provided.")
    )
    data = tmp_path / "profile"
    result = acai(
        "chat", "--data-dir", str(data), *scripted(fake_openai), "--wait-jobs", "--json",
        "My name is John.",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (learning,) = [j for j in json.loads(result.stdout)["jobs"] if j["kind"] == "critical_info"]
    assert learning["status"] == "failed" and learning["attempts"] == 1
    assert "refused the API key" in learning["last_error"]
    assert "not retried" in learning["last_error"]
    triage = [
        r for r in fake_openai.chat_requests()
        if r.json["messages"][0]["content"].startswith("You decide whether")
    ]  # fmt: skip
    assert len(triage) == 1  # asked once, not four times
    assert rows(data / "acai.sqlite3", "select run_after from jobs where kind='critical_info'") == [
        (None,)
    ]


def test_wait_jobs_says_what_it_waits_for_and_gives_up_on_a_long_retry_after(tmp_path, fake_openai):
    fake_openai.responder = _learning_refused(
        Reply(status=429, error_message="Slow down.", retry_after=3000)
    )
    data = tmp_path / "profile"
    result = acai(
        "chat", "--data-dir", str(data), *scripted(fake_openai), "--wait-jobs", "My name is John."
    )
    assert result.returncode == 0, result.stderr
    assert "Waiting up to 600 s for this turn's background jobs" in result.stderr
    assert "learn from a message" in result.stderr
    assert "the model server asked to wait" in result.stderr
    assert "Stopped waiting" in result.stderr and "jobs list" in result.stderr
