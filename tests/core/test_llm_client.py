"""ModelClient through the real openai SDK against the scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
from contextlib import aclosing

import numpy as np
import pytest

from acai_desktop.core.errors import (
    ContextTooLongError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitedError,
    ModelReplyError,
    ModelServerError,
    ModelTimeoutError,
    ModelUnauthorizedError,
    ModelUnreachableError,
)
from acai_desktop.core.models.call_limits import ClientTimeouts
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.models.settings import ModelSettings
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run

HELLO = [{"role": "user", "content": "Hello"}]


async def _collect(client: ModelClient, **kwargs) -> list[str]:
    return [delta async for delta in client.stream_chat(HELLO, **kwargs)]


def test_stream_chat_yields_deltas_in_order(fake_openai):
    fake_openai.script(Reply(text="Python suits backend work well."))

    async def scenario():
        async with client_for(fake_openai) as client:
            stats = StreamStats()
            deltas = await _collect(client, stats=stats)
            return deltas, stats

    deltas, stats = run(scenario())
    assert "".join(deltas) == "Python suits backend work well."
    assert len(deltas) == 5
    assert stats.finish_reason == "stop"
    sent = fake_openai.chat_requests()[0].json
    assert sent["stream"] is True
    assert sent["model"] == "fake-chat"
    assert sent["messages"] == HELLO


def test_each_role_uses_its_own_model(fake_openai):
    async def scenario():
        async with client_for(fake_openai) as client:
            for role in ("chat", "triage", "extraction", "summary"):
                await client.complete(HELLO, role=role)

    run(scenario())
    models = [r.json["model"] for r in fake_openai.chat_requests()]
    assert models == ["fake-chat", "fake-triage", "fake-extraction", "fake-summary"]


def test_complete_returns_text_and_passes_sampling_options(fake_openai):
    fake_openai.script(Reply(text="no"))

    async def scenario():
        async with client_for(fake_openai) as client:
            return await client.complete(HELLO, role="triage", max_tokens=3, temperature=0.0)

    assert run(scenario()) == "no"
    sent = fake_openai.chat_requests()[0].json
    assert sent["max_tokens"] == 3
    assert sent["temperature"] == 0.0
    assert "stream" not in sent or sent["stream"] is False


def test_rate_limit_is_retried_then_succeeds(fake_openai):
    fake_openai.script(
        Reply(status=429, retry_after=0.01), Reply(status=429, retry_after=0.01), Reply(text="ok!")
    )

    async def scenario():
        async with client_for(fake_openai) as client:
            return await client.complete(HELLO)

    assert run(scenario()) == "ok!"
    assert len(fake_openai.chat_requests()) == 3


def test_server_errors_exhaust_retries_into_a_typed_error(fake_openai):
    fake_openai.script(*[Reply(status=500, retry_after=0.01) for _ in range(3)], Reply(text="late"))

    async def scenario():
        async with client_for(fake_openai) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelServerError, match="HTTP 500"):
        run(scenario())
    assert len(fake_openai.chat_requests()) == 3  # one try + two retries
    assert fake_openai.pending() == 1


def test_persistent_rate_limit_reports_the_wait(fake_openai):
    fake_openai.script(*[Reply(status=429, retry_after=0.01) for _ in range(3)])

    async def scenario():
        async with client_for(fake_openai) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelRateLimitedError) as caught:
        run(scenario())
    assert caught.value.retry_after == pytest.approx(0.01)


def test_streamed_chat_retries_at_most_once(fake_openai):
    fake_openai.script(*[Reply(status=503, retry_after=0.01) for _ in range(3)])

    async def scenario():
        async with client_for(fake_openai) as client:
            await _collect(client)

    with pytest.raises(ModelServerError):
        run(scenario())
    assert len(fake_openai.chat_requests()) == 2


def test_dropped_stream_becomes_reply_error(fake_openai):
    fake_openai.script(Reply(text="one two three four five six", drop_after_chunks=2))
    received: list[str] = []

    async def scenario():
        async with client_for(fake_openai) as client:
            async for delta in client.stream_chat(HELLO):
                received.append(delta)

    with pytest.raises(ModelReplyError, match="broke off"):
        run(scenario())
    assert received == ["one", " two"]


def test_stream_without_finish_reason_is_a_reply_error(fake_openai):
    fake_openai.script(Reply(text="half an answ", finish_reason=None))

    async def scenario():
        async with client_for(fake_openai) as client:
            await _collect(client)

    with pytest.raises(ModelReplyError, match="ended before it was finished"):
        run(scenario())


def test_slow_server_times_out_into_a_typed_error(fake_openai):
    fake_openai.script(*[Reply(text="too late", delay=5.0) for _ in range(3)])
    timeouts = ClientTimeouts(connect=1.0, read=0.2, write=1.0, pool=1.0)

    async def scenario():
        async with client_for(fake_openai, timeouts=timeouts, max_retries=0) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelTimeoutError, match=r"did not answer within 0\.2 s"):
        run(scenario())
    assert isinstance(ModelTimeoutError("x"), ModelUnreachableError)


def test_unreachable_server():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = ModelSettings.for_preset(ProviderName.CUSTOM, base_url=f"http://127.0.0.1:{port}/v1")

    async def scenario():
        async with ModelClient(settings, max_retries=0) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelUnreachableError, match=f"127.0.0.1:{port}"):
        run(scenario())


def test_wrong_api_key_is_unauthorised(fake_openai):
    fake_openai.require_api_key = "sk-right"

    async def scenario(key):
        async with client_for(fake_openai, api_key=key) as client:
            return await client.complete(HELLO)

    with pytest.raises(ModelUnauthorizedError, match="API key"):
        run(scenario("sk-wrong"))
    assert run(scenario("sk-right")) == "ok"
    assert fake_openai.chat_requests()[-1].headers["authorization"] == "Bearer sk-right"


def test_no_key_sends_a_placeholder_not_the_environment_key(fake_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-from-env")

    async def scenario():
        async with client_for(fake_openai) as client:
            await client.complete(HELLO)

    run(scenario())
    assert "sk-secret" not in fake_openai.chat_requests()[0].headers["authorization"]


def test_missing_model_context_too_long_and_other_refusals(fake_openai):
    fake_openai.script(
        Reply(status=404, error_message="model 'nope' not found"),
        Reply(
            status=400,
            error_message="This model's maximum context length is 4096 tokens.",
            error_code="context_length_exceeded",
        ),
        Reply(status=400, error_message="the request exceeds the available context size"),
        Reply(status=400, error_message="temperature must be <= 2"),
    )

    async def attempt():
        async with client_for(fake_openai) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelNotFoundError, match="'fake-chat'"):
        run(attempt())
    with pytest.raises(ContextTooLongError, match="context budget"):
        run(attempt())
    with pytest.raises(ContextTooLongError):
        run(attempt())
    with pytest.raises(ModelError, match="temperature must be") as caught:
        run(attempt())
    assert type(caught.value) is ModelError


def test_unreadable_body_is_a_reply_error(fake_openai):
    fake_openai.script(Reply(raw='{"not json'))

    async def scenario():
        async with client_for(fake_openai) as client:
            await client.complete(HELLO)

    with pytest.raises(ModelReplyError, match="could not be read"):
        run(scenario())


def test_cancelling_the_consumer_closes_the_http_stream(fake_openai):
    words = " ".join(f"word{i}" for i in range(400))
    fake_openai.script(Reply(text=words, chunk_delay=0.01))
    received: list[str] = []

    async def scenario():
        async with client_for(fake_openai) as client:
            first_two = asyncio.Event()

            async def consume():
                async for delta in client.stream_chat(HELLO):
                    received.append(delta)
                    if len(received) == 2:
                        first_two.set()

            task = asyncio.create_task(consume())
            await first_two.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(scenario())
    request = fake_openai.chat_requests()[0]
    # The server notices on its next write; waiting is bounded, not timed.
    assert request.client_disconnected.wait(timeout=10)
    assert 2 <= len(received) < 400


def test_breaking_out_inside_aclosing_closes_the_stream(fake_openai):
    fake_openai.script(Reply(text=" ".join(["x"] * 400), chunk_delay=0.01))

    async def scenario():
        async with (
            client_for(fake_openai) as client,
            aclosing(client.stream_chat(HELLO)) as stream,
        ):
            async for _delta in stream:
                break

    run(scenario())
    assert fake_openai.chat_requests()[0].client_disconnected.wait(timeout=10)


def test_client_is_reusable_after_a_cancelled_stream(fake_openai):
    fake_openai.script(Reply(text=" ".join(["x"] * 200), chunk_delay=0.01), Reply(text="next"))

    async def scenario():
        async with client_for(fake_openai) as client:
            task = asyncio.create_task(_collect(client))
            # Cancel mid-stream, not before the request left: on a busy machine 50 ms
            # may pass before it is even sent, and the next call would get its reply.
            while not fake_openai.requests_to("/v1/chat/completions"):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return await client.complete(HELLO)

    assert run(scenario()) == "next"


def test_embed_returns_one_row_per_text_in_order(fake_openai):
    async def scenario():
        async with client_for(fake_openai) as client:
            return await client.embed(["backend in Python", "sci-fi novels", "backend Python"])

    vectors = run(scenario())
    assert vectors.shape == (3, 128)
    assert vectors.dtype == np.float32
    similarity = vectors @ vectors.T
    assert similarity[0, 2] > 0.99
    assert similarity[0, 1] < similarity[0, 2]
    sent = fake_openai.embedding_requests()[0].json
    assert sent["model"] == "fake-embedding"
    assert sent["encoding_format"] == "float"


def test_embed_nothing_makes_no_request(fake_openai):
    async def scenario():
        async with client_for(fake_openai) as client:
            return await client.embed([])

    assert run(scenario()).shape[0] == 0
    assert fake_openai.embedding_requests() == []


def test_list_models(fake_openai):
    fake_openai.models = ["a-model", "b-model"]

    async def scenario():
        async with client_for(fake_openai) as client:
            return await client.list_models()

    assert run(scenario()) == ["a-model", "b-model"]


def test_local_settings_need_the_running_servers_address():
    with pytest.raises(ModelUnreachableError, match="not running"):
        ModelClient(ModelSettings.for_preset(ProviderName.LOCAL))


def test_responder_answers_when_the_queue_is_empty(fake_openai):
    fake_openai.responder = lambda request: Reply(text=request["messages"][-1]["content"][::-1])
    fake_openai.script(Reply(text="scripted first"))

    async def scenario():
        async with client_for(fake_openai) as client:
            return [await client.complete(HELLO), await client.complete(HELLO)]

    assert run(scenario()) == ["scripted first", "olleH"]
