"""Secrets never reach stored or logged error text; the 401 hint fits the provider."""

from __future__ import annotations

import io
import logging

import pytest

from acai_desktop.core.errors import ModelUnauthorizedError
from acai_desktop.core.llm.error_text import key_hint
from acai_desktop.core.llm.presets import ProviderName
from acai_desktop.core.redaction import (
    REDACTED,
    RedactingFilter,
    install_log_redaction,
    redact,
)
from acai_desktop.core.store.conversations import add_message, create_conversation, update_message
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.jobs import enqueue_job, fail_job
from tests.core.conftest import client_for
from tests.support.aio import run
from tests.support.fake_openai import Reply

OPENAI_STYLE = "sk-proj-Q3vT8xLm2NpR7sKw4YbZ1cDe"
CONFIGURED = "correct-horse-battery-staple"  # no pattern would spot this one


@pytest.mark.parametrize(
    "secret_text",
    [
        f"Incorrect API key provided: {OPENAI_STYLE}.",
        "Authorization: Bearer abc.def-ghi_jkl",
        "api_key=hunter2hunter2 was refused",
        '{"access_token": "zzTopSecret99"}',
        "token mKq9ZtX2vB7nL4pR8sW1yC6dF3gH5jJ0aE",  # a long random-looking token
        "gsk_A1b2C3d4E5f6G7h8, hf_Zy98Xw76Vu54Ts32",
    ],
)
def test_key_like_strings_are_redacted(secret_text):
    cleaned = redact(secret_text)
    assert REDACTED in cleaned
    for secret in (
        OPENAI_STYLE,
        "abc.def-ghi_jkl",
        "hunter2hunter2",
        "zzTopSecret99",
        "mKq9ZtX2vB7nL4pR8sW1yC6dF3gH5jJ0aE",
        "A1b2C3d4E5f6G7h8",
        "Zy98Xw76Vu54Ts32",
    ):
        assert secret not in cleaned


def test_the_configured_key_is_redacted_even_when_it_looks_like_words():
    text = f"key {CONFIGURED} rejected; again: {CONFIGURED}"
    assert redact(text, [CONFIGURED]) == f"key {REDACTED} rejected; again: {REDACTED}"
    assert redact("a short key abc", ["abc"]) == "a short key abc"  # too short to hunt


@pytest.mark.parametrize(
    "ordinary",
    [
        "The model 'llama3.2' at http://127.0.0.1:8080/v1 does not exist (model not found).",
        "memories[3].uid: '3f2c9a7e5b1d4c8f9e0a1b2c3d4e5f6a' is already used",  # hex digest
        "/home/someone/.local/share/acai-desktop/acai.sqlite3 is read-only",
        "conversation 123e4567-e89b-12d3-a456-426614174000",
        "The user asked for a token of appreciation: flowers.",
        "max token: 4096, tokens=3000",
        "pip install sk-learn-models failed",
        None,
        "",
    ],
)
def test_ordinary_text_is_left_alone(ordinary):
    assert redact(ordinary) == ordinary


def test_a_log_record_is_redacted_with_its_arguments_and_traceback():
    record = logging.LogRecord(
        "x", logging.WARNING, __file__, 1, "turn failed: %s", (f"echo {OPENAI_STYLE}",), None
    )
    try:
        raise RuntimeError(f"Bearer {OPENAI_STYLE}")
    except RuntimeError:
        import sys

        record.exc_info = sys.exc_info()
    assert RedactingFilter().filter(record)
    formatted = logging.Formatter().format(record)
    assert OPENAI_STYLE not in formatted
    assert "turn failed: echo [redacted]" in formatted and "RuntimeError" in formatted


def test_a_401_body_echoing_the_key_leaves_no_trace_of_it(fake_openai):
    fake_openai.script(
        Reply(
            status=401,
            error_message=f"Incorrect API key provided: {CONFIGURED}. Also seen: {OPENAI_STYLE}",
        )
    )

    async def scenario() -> str:
        client = client_for(fake_openai, api_key=CONFIGURED)
        try:
            with pytest.raises(ModelUnauthorizedError) as refused:
                await client.complete([{"role": "user", "content": "hi"}])
        finally:
            await client.close()
        return str(refused.value)

    message = run(scenario())
    assert fake_openai.chat_requests()[-1].headers["authorization"] == f"Bearer {CONFIGURED}"
    assert CONFIGURED not in message and OPENAI_STYLE not in message
    assert "Incorrect API key provided: [redacted]" in message
    # A custom server doesn't read OPENAI_API_KEY: the hint doesn't send the user there.
    assert "OPENAI_API_KEY" not in message
    assert "Enter the key this server expects in Settings." in message


def test_the_key_hint_names_an_environment_variable_only_where_the_app_reads_it():
    assert "OPENAI_API_KEY" in key_hint(ProviderName.OPENAI)
    for provider in ProviderName:
        if provider != ProviderName.OPENAI:
            assert "OPENAI_API_KEY" not in key_hint(provider), provider
    assert "Ollama doesn't usually ask for a key" in key_hint(ProviderName.OLLAMA)


def test_error_texts_are_redacted_where_they_are_stored(tmp_path):
    """Whatever raised it (a bug's message, a library's), no key-like string is saved."""
    leaked = f"Something went wrong (RuntimeError: header Authorization: Bearer {OPENAI_STYLE})"

    async def scenario() -> tuple[str, str]:
        store = await Store.open(tmp_path / "acai.sqlite3")
        try:
            conversation = await store.run(create_conversation)
            answer = await store.run(add_message, conversation.id, "assistant", "")
            await store.run(update_message, answer.id, status="error", error=leaked)
            job = await store.run(enqueue_job, "summary", {}, conversation.id)
            await store.run(fail_job, job.id, leaked, None)
            return await store.run(
                lambda db: (
                    db.execute("SELECT error FROM messages").fetchone()[0],
                    db.execute("SELECT last_error FROM jobs").fetchone()[0],
                )
            )
        finally:
            await store.close()

    for stored in run(scenario()):
        assert OPENAI_STYLE not in stored
        assert stored.endswith("Authorization: Bearer [redacted])")


def test_installed_redaction_covers_every_handler_of_the_logger():
    stream = io.StringIO()
    logger = logging.getLogger("acai-test-redaction")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        install_log_redaction(logger)
        install_log_redaction(logger)  # twice is once
        assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
        logger.warning("server said %r", {"error": f"bad key {OPENAI_STYLE}"})
    finally:
        logger.removeHandler(handler)
    assert OPENAI_STYLE not in stream.getvalue() and REDACTED in stream.getvalue()
