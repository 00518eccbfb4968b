"""Model servers are asked to keep what they read of a prompt, where they understand it:
the next turn's prompt starts the same way (see test_stable_prompt_prefix), so they read
only what is new."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.models.local_server import (
    PROMPT_CACHE_BYTES,
    LocalModelServer,
    default_threads,
)
from acai_desktop.core.models.presets import ProviderName
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run

MESSAGES = [{"role": "user", "content": "Hello?"}]


def sent_fields(fake_openai, provider: ProviderName) -> list[dict]:
    fake_openai.responder = lambda request: Reply(text="Hi.")

    async def scenario():
        client = client_for(fake_openai, provider=provider)
        try:
            async for _ in client.stream_chat(MESSAGES):
                pass
            await client.complete(MESSAGES)
        finally:
            await client.close()

    run(scenario())
    return [request.json for request in fake_openai.chat_requests()]


def test_a_llama_cpp_server_is_asked_to_keep_the_prompt_cache(fake_openai):
    sent = sent_fields(fake_openai, ProviderName.LLAMACPP)
    assert len(sent) == 2 and all(body["cache_prompt"] is True for body in sent)


def test_other_servers_get_no_field_beyond_the_openai_api(fake_openai):
    # OpenAI refuses a request with a field it doesn't know.
    sent = sent_fields(fake_openai, ProviderName.CUSTOM)
    assert len(sent) == 2 and all("cache_prompt" not in body for body in sent)


def test_the_built_in_server_keeps_prompt_states_in_memory():
    flags = _flags(LocalModelServer(Path("model.gguf")).command(Path("model.gguf")))
    assert flags["--cache"] == "True" and flags["--cache_type"] == "ram"
    assert int(flags["--cache_size"]) == PROMPT_CACHE_BYTES


def test_the_built_in_server_reads_prompts_with_as_many_threads_as_it_writes():
    flags = _flags(LocalModelServer(Path("model.gguf")).command(Path("model.gguf")))
    assert flags["--n_threads_batch"] == flags["--n_threads"] == str(default_threads())
    chosen = _flags(LocalModelServer(Path("m.gguf"), n_threads=3).command(Path("m.gguf")))
    assert chosen["--n_threads_batch"] == chosen["--n_threads"] == "3"


def _flags(command: list[str]) -> dict[str, str]:
    return {flag: command[i + 1] for i, flag in enumerate(command) if flag.startswith("--")}
