"""First start: propose what is there and remember the choice.

Hermetic: every probed preset is pointed at a scripted server or at a closed port on
127.0.0.1, and detection reads an explicit environment, so a model server running on the
developer's machine or an OPENAI_API_KEY in their shell changes nothing here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping

import pytest

from acai_desktop.core.models.choice import ModelOverrides, resolve_settings
from acai_desktop.core.models.detection import Detect, detect_providers
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.profile.paths import Profile
from tests.support.aio import run
from tests.support.closed_ports import presets_with_nothing_there


@pytest.fixture
def nothing_there() -> Iterator[dict[ProviderName, str]]:
    with presets_with_nothing_there() as urls:
        yield urls


def detection(urls: Mapping[ProviderName, str], environ: Mapping[str, str]) -> Detect:
    return functools.partial(detect_providers, urls=urls, environ=environ)


def test_a_running_server_is_proposed_saved_and_reused(tmp_path, fake_openai, nothing_there):
    fake_openai.models = ["qwen2.5:7b", "nomic-embed-text"]
    urls = nothing_there | {ProviderName.LMSTUDIO: fake_openai.base_url}
    profile = Profile.at(tmp_path).ensure()
    # A key is set too: a server the user already runs is still preferred.
    found = detection(urls, {"OPENAI_API_KEY": "sk-test-not-real"})
    chosen = run(resolve_settings(profile, ModelOverrides(), detect=found))
    assert chosen.provider == ProviderName.LMSTUDIO
    assert chosen.resolved_base_url() == fake_openai.base_url
    assert chosen.models.chat == "qwen2.5:7b"
    assert chosen.models.embedding == "nomic-embed-text"
    saved = json.loads(profile.settings_path.read_text())["llm"]
    assert saved["provider"] == "lmstudio"
    probes = len(fake_openai.requests_to("/v1/models"))
    assert probes == 1

    # Later starts read the saved choice and probe nothing, even with the server gone.
    again = run(resolve_settings(profile, ModelOverrides(), detect=detection(nothing_there, {})))
    assert again.provider == ProviderName.LMSTUDIO
    assert again.resolved_base_url() == fake_openai.base_url
    assert len(fake_openai.requests_to("/v1/models")) == probes


def test_with_no_server_a_key_proposes_openai_and_later_starts_reuse_it(tmp_path, nothing_there):
    profile = Profile.at(tmp_path).ensure()
    with_key = detection(nothing_there, {"OPENAI_API_KEY": "sk-test-not-real"})
    chosen = run(resolve_settings(profile, ModelOverrides(), detect=with_key))
    assert chosen.provider == ProviderName.OPENAI
    saved = json.loads(profile.settings_path.read_text())["llm"]
    assert saved["provider"] == "openai"

    without_key = detection(nothing_there, {})
    assert run(resolve_settings(profile, ModelOverrides(), detect=without_key)).provider == (
        ProviderName.OPENAI
    )


def test_with_nothing_there_local_is_proposed_and_an_override_wins_without_saving(
    tmp_path, nothing_there, monkeypatch
):
    # A key in the shell that runs the tests is not seen: detection reads only the
    # environment it is given.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-developers-shell")
    profile = Profile.at(tmp_path).ensure()
    nothing = detection(nothing_there, {})
    first = run(resolve_settings(profile, ModelOverrides(), detect=nothing))
    assert first.provider == ProviderName.LOCAL  # the local extra is installed for the tests
    custom = run(
        resolve_settings(
            profile,
            ModelOverrides("custom", "http://127.0.0.1:9/v1", model="tiny"),
            detect=nothing,
        )
    )
    assert custom.provider == ProviderName.CUSTOM
    assert custom.resolved_base_url() == "http://127.0.0.1:9/v1"
    assert custom.model_for("triage") == "tiny"
    assert json.loads(profile.settings_path.read_text())["llm"]["provider"] == "local"
