"""What the first start offers, in words, and what the command line says it chose."""

from __future__ import annotations

import functools

import pytest

from acai_desktop.core.errors import LocalModelFileMissingError, ModelNotChosenError
from acai_desktop.core.models.chat_model import next_step
from acai_desktop.core.models.choice import ModelOverrides, resolve_settings
from acai_desktop.core.models.detection import detect_providers
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.profile.paths import Profile
from tests.support.aio import run
from tests.support.closed_ports import presets_with_nothing_there


@pytest.fixture
def nothing_there():
    with presets_with_nothing_there() as urls:
        yield urls


def test_options_name_each_server_found_the_key_and_the_demo_for_what_they_are(
    fake_openai, nothing_there
):
    fake_openai.models = ["llama3.2:latest", "nomic-embed-text"]
    report = run(
        detect_providers(
            urls=nothing_there | {ProviderName.OLLAMA: fake_openai.base_url},
            environ={"OPENAI_API_KEY": "sk-test-not-real"},
        )
    )
    options = report.options()
    assert [o.provider for o in options] == ["ollama", "openai", "local"]
    ollama, openai_option, demo = options
    assert ollama.settings.resolved_base_url() == fake_openai.base_url
    assert "Ollama" in ollama.title and "running on this computer" in ollama.description
    assert "2 model(s) listed" in ollama.description
    assert "OPENAI_API_KEY" in openai_option.description
    assert demo.demo and not ollama.demo and not openai_option.demo
    assert "demo" in demo.title.lower()
    assert "remembers only what you say plainly about yourself" in demo.description


def test_nothing_found_offers_the_demo_only(nothing_there):
    report = run(detect_providers(urls=nothing_there, environ={}))
    assert [o.provider for o in report.options()] == ["local"]


def test_the_command_line_says_which_model_it_took_and_what_it_is(tmp_path, nothing_there):
    profile = Profile.at(tmp_path).ensure()
    notes: list[str] = []
    detect = functools.partial(detect_providers, urls=nothing_there, environ={})
    chosen = run(resolve_settings(profile, ModelOverrides(), detect=detect, notes=notes))
    assert chosen.provider == ProviderName.LOCAL
    assert len(notes) == 1
    assert (
        "demo" in notes[0]
        and "remembers only what you say plainly" in notes[0]
        and "--provider" in notes[0]
    )


def test_the_window_never_takes_a_model_by_itself(tmp_path, nothing_there):
    profile = Profile.at(tmp_path).ensure()
    detect = functools.partial(detect_providers, urls=nothing_there, environ={})
    with pytest.raises(ModelNotChosenError):
        run(resolve_settings(profile, ModelOverrides(), detect=detect, choose_first=False))
    assert not profile.settings_path.exists()


def test_a_missing_model_file_says_to_choose_a_file_not_to_install_anything():
    step = next_step(LocalModelFileMissingError("The model file /x.gguf does not exist."))
    assert "GGUF" in step and "pip" not in step
