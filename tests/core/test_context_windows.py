"""A model's context window, asked of its server (the scripted one, answering as
llama.cpp, Ollama, LM Studio or vLLM would), else taken from the known models' table;
and the automatic budget that follows it in a whole assistant, per chat model."""

from __future__ import annotations

import asyncio

from acai_desktop.core.memory.prompt_history import history_room
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.context_window import BUILT_IN_SERVER, ContextWindow, WindowSource
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.models.window_probe import OLLAMA_DEFAULT_TOKENS, ContextWindows
from acai_desktop.core.resources import resource_text
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.closed_ports import closed_ports

SYSTEM_PROMPT = resource_text("prompts", "system.txt").strip()
LLAMA_INFO = {"general.architecture": "llama", "llama.context_length": 131_072}


def ask(server, provider: ProviderName, *models: str, timeout: float = 2.0) -> list:
    """Each model's window as a ContextWindows over the scripted server finds it."""

    async def scenario():
        client = client_for(server, provider=provider)
        try:
            windows = ContextWindows(provider, client, timeout=timeout)
            return [await windows.window_for(model) for model in models]
        finally:
            await client.close()

    return run(scenario())


def paths(server) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.requests]


def test_llama_cpp_says_its_window_in_props(fake_openai):
    fake_openai.routes["GET /props"] = {"default_generation_settings": {"n_ctx": 8192}}
    [found] = ask(fake_openai, ProviderName.LLAMACPP, "default")
    assert found == ContextWindow(8192, "default", WindowSource.SERVER, "llama.cpp")


def test_ollama_num_ctx_limits_the_prompt_not_the_length_the_model_was_trained_for(fake_openai):
    shown = []

    def show(body):
        shown.append(body)
        return {"parameters": 'num_ctx                        16384\nstop "<|eot_id|>"',
                "model_info": LLAMA_INFO}  # fmt: skip

    fake_openai.routes["POST /api/show"] = show
    [found] = ask(fake_openai, ProviderName.OLLAMA, "llama3.1")
    assert found == ContextWindow(16_384, "llama3.1", WindowSource.SERVER, "Ollama", 131_072)
    assert shown[0]["model"] == "llama3.1"
    assert "GET /api/ps" not in paths(fake_openai)  # num_ctx said it all


def test_ollama_without_num_ctx_runs_a_loaded_model_with_its_window_else_its_default(
    fake_openai,
):
    fake_openai.routes["POST /api/show"] = {"parameters": "", "model_info": LLAMA_INFO}
    fake_openai.routes["GET /api/ps"] = {
        "models": [{"name": "llama3.1:latest", "model": "llama3.1:latest", "context_length": 32768}]
    }
    loaded, not_loaded = ask(fake_openai, ProviderName.OLLAMA, "llama3.1", "llama3.2")
    assert loaded == ContextWindow(32_768, "llama3.1", WindowSource.SERVER, "Ollama", 131_072)
    # Not loaded: Ollama's default window, which nothing reports: assumed, and said so.
    assert not_loaded == ContextWindow(
        OLLAMA_DEFAULT_TOKENS, "llama3.2", WindowSource.SERVER_DEFAULT, "Ollama", 131_072
    )


def test_an_ollama_that_says_nothing_gets_the_tables_figure_at_most_its_default(fake_openai):
    # No /api/show (an old or odd server): the table knows llama3.1 was trained for
    # 128k, and Ollama runs it with its default window unless told otherwise.
    [found] = ask(fake_openai, ProviderName.OLLAMA, "llama3.1:8b")
    assert found == ContextWindow(
        OLLAMA_DEFAULT_TOKENS, "llama3.1:8b", WindowSource.SERVER_DEFAULT, "Ollama", 131_072
    )


def test_lm_studio_says_a_loaded_models_window_and_any_models_maximum(fake_openai):
    fake_openai.routes["GET /api/v0/models"] = {
        "object": "list",
        "data": [
            {"id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768,
             "loaded_context_length": 8192},
            {"id": "meta-llama-3.1-8b-instruct", "state": "not-loaded",
             "max_context_length": 131072},
        ],
    }  # fmt: skip
    loaded, not_loaded = ask(
        fake_openai, ProviderName.LMSTUDIO, "qwen2.5-7b-instruct", "meta-llama-3.1-8b-instruct"
    )
    assert loaded == ContextWindow(
        8192, "qwen2.5-7b-instruct", WindowSource.SERVER, "LM Studio", 32_768
    )
    assert (not_loaded.tokens, not_loaded.source, not_loaded.trained_tokens) == (
        4096,
        WindowSource.SERVER_DEFAULT,
        131_072,
    )


def test_a_custom_server_may_say_it_in_its_model_listing(fake_openai):
    fake_openai.model_details = {
        "fake-chat": {"max_model_len": 12_000},  # vLLM
        "fake-triage": {"meta": {"n_ctx_train": 65_536}},  # llama.cpp
    }
    vllm, llama_cpp, silent = ask(
        fake_openai, ProviderName.CUSTOM, "fake-chat", "fake-triage", "fake-embedding"
    )
    assert (vllm.tokens, llama_cpp.tokens, silent) == (12_000, 65_536, None)


def test_a_server_that_says_nothing_leaves_the_table_to_answer(fake_openai):
    llama, unknown = ask(fake_openai, ProviderName.CUSTOM, "llama3.1", "fake-chat")
    assert (llama.tokens, llama.source) == (131_072, WindowSource.TABLE)
    assert unknown is None


def test_a_slow_server_falls_back_to_the_table(fake_openai):
    fake_openai.routes["GET /props"] = Reply(delay=30)  # far longer than the probe waits
    [slow] = ask(fake_openai, ProviderName.LLAMACPP, "qwen2.5:7b", timeout=0.2)
    assert (slow.tokens, slow.source) == (32_768, WindowSource.TABLE)


def test_a_server_that_is_not_there_falls_back_to_the_table():
    async def scenario(port: int):
        settings = ModelSettings.for_preset(
            ProviderName.LLAMACPP, base_url=f"http://127.0.0.1:{port}/v1"
        )
        client = ModelClient(settings)
        try:
            return await ContextWindows(ProviderName.LLAMACPP, client).window_for("gemma2:9b")
        finally:
            await client.close()

    with closed_ports(1) as [port]:
        absent = run(scenario(port))
    assert (absent.tokens, absent.source) == (8192, WindowSource.TABLE)


def test_each_model_is_asked_once_even_by_callers_asking_at_once(fake_openai):
    fake_openai.routes["GET /props"] = {"default_generation_settings": {"n_ctx": 8192}}

    async def scenario():
        client = client_for(fake_openai, provider=ProviderName.LLAMACPP)
        try:
            windows = ContextWindows(ProviderName.LLAMACPP, client)
            first = await asyncio.gather(*(windows.window_for("default") for _ in range(3)))
            again = await windows.window_for("default")
            return first, again
        finally:
            await client.close()

    first, again = run(scenario())
    assert {w.tokens for w in [*first, again]} == {8192}
    assert paths(fake_openai).count("GET /props") == 1


def test_the_built_in_server_knows_its_own_window_without_asking():
    windows = ContextWindows(ProviderName.LOCAL, None, built_in_n_ctx=4096)
    found = run(windows.window_for("any-name.gguf"))
    assert found == ContextWindow(4096, "any-name.gguf", WindowSource.SERVER, BUILT_IN_SERVER)


# -- a whole assistant ---------------------------------------------------------------


def ollama_show(windows: dict[str, int]):
    """An Ollama /api/show giving each model's num_ctx."""
    return lambda body: {"parameters": f"num_ctx {windows[body['model']]}", "model_info": {}}


def test_the_assistants_budget_follows_the_window_of_each_chats_model(tmp_path, fake_openai):
    fake_openai.responder = fake_model
    fake_openai.routes["POST /api/show"] = ollama_show({"fake-chat": 8192, "big-model": 65_536})

    async def scenario():
        async with running_assistant(
            tmp_path, fake_openai, start_jobs=False, provider=ProviderName.OLLAMA
        ) as assistant:
            orchestrator, service = assistant.orchestrator, assistant.chat_settings
            plain = await assistant.conversations.create()
            big = await assistant.conversations.create()
            await service.set_for_chat(big.id, model="big-model")
            fixed = await assistant.conversations.create()
            await service.set_for_chat(fixed.id, context_budget_tokens=5000)
            turn = await orchestrator.send(big.id, "Hello there, what can you do?")
            return (
                orchestrator.prompts.budget_tokens,
                assistant.summary.prompt_room,
                orchestrator.prompts.history_room(),
                await service.in_effect(plain.id),
                await service.in_effect(big.id),
                await service.in_effect(fixed.id),
                turn.settings,
                await orchestrator.prompts.own_history_room(plain.id),
                await orchestrator.prompts.own_history_room(big.id),
            )

    profile_budget, prompt_room, room, plain, big, fixed, turn, plain_room, big_room = run(
        scenario()
    )
    assert profile_budget == 4096 and prompt_room == room  # half of fake-chat's 8k
    assert (plain.context_budget_tokens, plain.budget.automatic) == (4096, True)
    assert big.context_budget_tokens == 16_000  # half of 64k, capped
    assert big.budget.describe() == (
        "Automatic: 16,000 tokens (half of big-model's 64k window, capped)"
    )
    assert (fixed.context_budget_tokens, fixed.budget.automatic) == (5000, False)
    assert (turn.model, turn.context_budget_tokens) == ("big-model", 16_000)
    # The summaries fold a chat by its own prompt's room: the profile's for the plain
    # chat, the bigger one of its own model's budget for the other.
    assert plain_room is None
    assert big_room == history_room(SYSTEM_PROMPT, 16_000) and big_room > prompt_room


def test_a_budget_the_user_chose_is_kept_whatever_the_window(tmp_path, fake_openai):
    fake_openai.routes["GET /props"] = {"default_generation_settings": {"n_ctx": 131_072}}

    async def scenario():
        async with running_assistant(
            tmp_path,
            fake_openai,
            start_jobs=False,
            provider=ProviderName.LLAMACPP,
            context_budget_tokens=3000,
        ) as assistant:
            return (
                assistant.orchestrator.prompts.budget_tokens,
                await assistant.chat_settings.in_effect(None),
            )

    budget, settings = run(scenario())
    assert budget == 3000 and settings.budget.automatic is False
