"""First-start detection, with the preset addresses pointed at the scripted server or at
closed ports (never at the machine's own servers) and an explicit environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from acai_desktop.core.models.detection import PROBED_PROVIDERS, detect_providers
from acai_desktop.core.models.local_model_files import bundled_model_path
from acai_desktop.core.models.presets import ProviderName
from tests.support.aio import run
from tests.support.closed_ports import presets_with_nothing_there


@pytest.fixture
def nothing_there() -> Iterator[dict[ProviderName, str]]:
    with presets_with_nothing_there() as urls:
        yield urls


def test_the_probed_presets_are_the_local_servers():
    assert set(PROBED_PROVIDERS) == {
        ProviderName.OLLAMA,
        ProviderName.LMSTUDIO,
        ProviderName.LLAMACPP,
    }


def test_a_running_server_is_found_and_proposed_with_its_models(fake_openai, nothing_there):
    fake_openai.models = ["qwen2.5:7b", "nomic-embed-text"]
    urls = nothing_there | {ProviderName.LMSTUDIO: fake_openai.base_url}
    report = run(detect_providers(timeout=0.5, urls=urls, environ={"OPENAI_API_KEY": "sk-x"}))
    assert [p.provider for p in report.reachable] == [ProviderName.LMSTUDIO]
    assert report.reachable[0].models == ["qwen2.5:7b", "nomic-embed-text"]
    assert report.openai_key_set
    assert report.proposal == ProviderName.LMSTUDIO  # a running server beats the key
    settings = report.proposed_settings()
    assert settings.provider == ProviderName.LMSTUDIO
    assert settings.resolved_base_url() == fake_openai.base_url
    assert settings.models.chat == "qwen2.5:7b"
    assert settings.models.embedding == "nomic-embed-text"
    unreachable = [p for p in report.probes if not p.reachable]
    assert len(unreachable) == 2 and all(p.error for p in unreachable)


def test_the_preset_model_is_kept_when_the_server_has_it(fake_openai, nothing_there):
    fake_openai.models = ["mistral", "llama3.2", "nomic-embed-text"]
    urls = nothing_there | {ProviderName.OLLAMA: fake_openai.base_url}
    report = run(detect_providers(urls=urls, environ={}))
    assert report.proposed_settings().models.chat == "llama3.2"


def test_without_servers_an_openai_key_is_proposed_then_the_local_model(nothing_there):
    urls = nothing_there
    with_key = run(detect_providers(urls=urls, environ={"OPENAI_API_KEY": "sk-x"}))
    assert with_key.proposal == ProviderName.OPENAI
    assert with_key.reachable == []
    without_key = run(detect_providers(urls=urls, environ={"OPENAI_API_KEY": "  "}))
    assert not without_key.openai_key_set
    # The test environment installs the local extra and the bundled model.
    assert without_key.local_extra_installed
    assert without_key.bundled_model == bundled_model_path()
    assert without_key.bundled_model.suffix == ".gguf"
    assert without_key.proposal == ProviderName.LOCAL
    assert without_key.proposed_settings().provider == ProviderName.LOCAL
