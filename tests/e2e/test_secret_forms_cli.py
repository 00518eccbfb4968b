"""Issue 39, G8: secrets in other forms. A key a server echoes URL-encoded or spaced out,
a password in a base URL and a key glued into its path reach neither the database nor
the output; a base URL carrying credentials is refused; the configured key quoted in a
model's answer is not stored or indexed (recall could send it to another provider)."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

from acai_lab.scripted_openai import Reply
from tests.e2e.test_clear_errors_cli import acai, assert_clear_refusal, scripted
from tests.support.sqlite_rows import rows

#: A custom server's key with characters that URL encoding changes.
KEY = "amber+falcon/lantern=grove-42"


def _profile_with_key(tmp_path):
    data = tmp_path / "profile"
    data.mkdir()
    (data / "secrets.json").write_text(json.dumps({"custom": KEY}), encoding="utf-8")
    return data


def _forms(key: str) -> list[str]:
    return [key, quote(key, safe=""), quote_plus(key), quote(key, safe="").lower(),
            " ".join(key), f"{key[:9]} {key[9:18]}\n{key[18:]}"]  # fmt: skip


def test_a_key_echoed_encoded_or_spaced_is_stored_and_printed_without_it(tmp_path, fake_openai):
    data = _profile_with_key(tmp_path)
    echoed = "; ".join(f"form {i}: {form}" for i, form in enumerate(_forms(KEY)))
    fake_openai.responder = lambda body: Reply(status=500, error_message=f"refused {echoed}")
    result = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "Hello", env={})
    assert result.returncode == 1, result.stderr
    assert fake_openai.chat_requests()[0].headers["authorization"] == f"Bearer {KEY}"
    ((error,),) = rows(data / "acai.sqlite3", "select error from messages where role='assistant'")
    assert "form 0: [redacted]; form 1: [redacted]; form 2: [redacted]" in error
    assert "form 4: [redacted]; form 5: [redacted]" in error
    for text in (error, result.stdout, result.stderr):
        for form in _forms(KEY):
            assert form not in text, (form, text)
        assert "lantern" not in text


def test_a_password_or_key_in_the_base_url_is_refused_and_never_shown(tmp_path, fake_openai):
    data = _profile_with_key(tmp_path)
    host = fake_openai.base_url.split("://", 1)[1]
    for url in (
        f"http://alice:S3cretPass@{host}",
        f"{fake_openai.base_url}?api_key=S3cretPass",
        f"{fake_openai.base_url}/x_api_key=S3cretPass",
    ):
        result = acai(
            "chat", "--data-dir", str(data), "--provider", "custom", "--base-url", url,
            "--model", "fake-model", "Hello", env={},
        )  # fmt: skip
        assert_clear_refusal(result, "base URL", "API key")
        assert "S3cretPass" not in result.stderr + result.stdout
    assert fake_openai.requests == []  # nothing was sent anywhere


def test_the_configured_key_quoted_in_an_answer_is_not_stored_or_indexed(tmp_path, fake_openai):
    data = _profile_with_key(tmp_path)
    fake_openai.responder = lambda body: Reply(text=f"Your key is {KEY}, keep it safe.")
    result = acai("chat", "--data-dir", str(data), *scripted(fake_openai), "What is my key?",
                  env={})  # fmt: skip
    assert result.returncode == 0, result.stderr
    ((content,),) = rows(
        data / "acai.sqlite3", "select content from messages where role='assistant'"
    )
    assert content == "Your key is [redacted], keep it safe."
    assert KEY not in result.stdout and "Your key is [redacted]" in result.stdout
    indexed = rows(
        data / "acai.sqlite3",
        "select count(*) from messages_fts where messages_fts match 'lantern OR falcon'",
    )
    assert indexed == [(0,)]
