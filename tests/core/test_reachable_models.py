"""The models the user can reach (issue 42, item 1), asked of real servers over HTTP: the
configured provider and a model server found on this computer, both scripted."""

import dataclasses
from pathlib import Path

from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.detection import DetectionReport, detect_providers
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_desktop.core.routing.reachable import reachable_candidates
from acai_desktop.core.routing.selection import Speed, Where, choose_model
from acai_desktop.core.routing.turn_needs import analyse_turn
from acai_lab.scripted_openai import FakeOpenAIServer
from tests.support.aio import run
from tests.support.closed_ports import closed_urls


def _detect(urls, bundled_model=None):
    """Detection at ``urls``, with the built-in model installed or not as the test says
    (not as this machine has it)."""

    async def detect() -> DetectionReport:
        found = await detect_providers(0.5, urls=urls, environ={})
        return dataclasses.replace(
            found, bundled_model=bundled_model, local_extra_installed=bundled_model is not None
        )

    return detect


def test_the_configured_provider_and_a_server_found_here_are_listed_and_routed(tmp_path):
    profile = Profile.at(tmp_path).ensure()
    with FakeOpenAIServer() as configured, FakeOpenAIServer() as ollama, closed_urls(2) as shut:
        configured.models = ["SmolLM2-135M-Instruct", "nomic-embed-text"]
        ollama.models = ["qwen2.5-coder:7b", "llava:7b"]
        urls = {
            ProviderName.OLLAMA: ollama.base_url,
            ProviderName.LMSTUDIO: shut[0],
            ProviderName.LLAMACPP: shut[1],
        }
        coder = speed_key(ollama.base_url, "qwen2.5-coder:7b")
        speeds = SpeedLog(profile.data_dir)
        speeds.record(coder, ok=True, first_token_seconds=0.4, tokens_per_second=25.0)
        speeds.save()
        overrides = ModelOverrides("custom", configured.base_url, "SmolLM2-135M-Instruct")
        candidates, problems = run(reachable_candidates(profile, overrides, detect=_detect(urls)))
    assert problems == []
    listed = {(c.model, c.provider) for c in candidates}
    # The embedder is listed by the server but does not chat.
    assert listed == {
        ("SmolLM2-135M-Instruct", "Custom (OpenAI-compatible URL)"),
        ("qwen2.5-coder:7b", "Ollama"),
        ("llava:7b", "Ollama"),
    }
    assert {c.where for c in candidates} == {Where.THIS_COMPUTER}
    measured = {c.model: c.measured for c in candidates}
    assert measured["qwen2.5-coder:7b"] == Speed(0.4, 25.0, error_rate=0.0, calls=1)
    assert measured["llava:7b"] is None
    code = choose_model(analyse_turn("Write a Python function to sort a list."), candidates)
    assert code.chosen.model == "qwen2.5-coder:7b"


def test_a_provider_that_cannot_list_is_said_and_its_chosen_model_kept(tmp_path):
    profile = Profile.at(tmp_path).ensure()
    with closed_urls(4) as shut:
        urls = dict(
            zip(
                [ProviderName.OLLAMA, ProviderName.LMSTUDIO, ProviderName.LLAMACPP],
                shut[:3],
                strict=True,
            )
        )
        overrides = ModelOverrides("custom", shut[3], "my-model")
        detect = _detect(urls, bundled_model=Path("smollm2.gguf"))
        candidates, problems = run(reachable_candidates(profile, overrides, detect=detect))
    assert [(c.model, c.provider) for c in candidates] == [
        ("my-model", "Custom (OpenAI-compatible URL)"),
        ("SmolLM2-135M-Instruct", "the built-in server"),
    ]
    (problem,) = problems
    assert problem.startswith(
        f"Custom (OpenAI-compatible URL) at {shut[3]} did not list its models"
    )
