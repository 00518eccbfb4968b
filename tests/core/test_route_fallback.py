"""The router's fallback over real HTTP (issue 42, item 5), and the measured speeds that
steer the next choice."""

import pytest

from acai_desktop.core.errors import ModelError, ModelUnauthorizedError
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.routing.fallback import NoModelFitsError, answer_with_fallback
from acai_desktop.core.routing.known_models import capabilities_of
from acai_desktop.core.routing.selection import Candidate, Policy, Where, choose_model
from acai_desktop.core.routing.turn_needs import analyse_turn
from acai_lab.scripted_openai import FakeOpenAIServer, Reply
from tests.support.aio import run


def _candidate(model, server, where=Where.THIS_COMPUTER):
    return Candidate(
        model, "scripted", where, 32_768, capabilities_of(model), base_url=server.base_url
    )


async def _ask(candidate: Candidate) -> str:
    settings = ModelSettings.for_preset(ProviderName.CUSTOM, base_url=candidate.base_url)
    client = ModelClient(settings, base_url=candidate.base_url, max_retries=0)
    try:
        return await client.complete([{"role": "user", "content": "hi"}], model=candidate.model)
    finally:
        await client.close()


def _route(*candidates):
    return choose_model(analyse_turn("Write an essay about tides."), list(candidates), Policy.BEST)


def test_a_failed_model_hands_the_turn_to_the_next_once_and_says_so():
    with FakeOpenAIServer() as strong, FakeOpenAIServer() as backup:
        strong.failing_completions = 503
        backup.script(Reply(text="Tides follow the moon."))
        first, second = _candidate("gpt-4o", strong), _candidate("qwen2.5:7b", backup)
        route = _route(second, first)
        assert route.ranked == (first, second)
        failures = []
        answered = run(answer_with_fallback(route, _ask, lambda c, e: failures.append(c)))
    assert answered.value == "Tides follow the moon."
    assert answered.by is second and answered.instead_of is first
    assert answered.note() == ("answered by qwen2.5:7b because gpt-4o failed: its server failed")
    assert failures == [first]


def test_a_refused_key_is_the_users_to_fix_and_does_not_fall_back():
    with FakeOpenAIServer() as locked, FakeOpenAIServer() as backup:
        locked.require_api_key = "sk-right"
        route = _route(_candidate("gpt-4o", locked), _candidate("qwen2.5:7b", backup))
        with pytest.raises(ModelUnauthorizedError):
            run(answer_with_fallback(route, _ask))
        assert backup.chat_requests() == []


def test_when_both_fail_the_second_failure_is_the_turns():
    with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
        one.failing_completions = two.failing_completions = 500
        route = _route(_candidate("gpt-4o", one), _candidate("qwen2.5:7b", two))
        failures = []
        with pytest.raises(ModelError):
            run(answer_with_fallback(route, _ask, lambda c, e: failures.append(c.model)))
    assert failures == ["gpt-4o", "qwen2.5:7b"]


def test_no_model_that_fits_is_an_error_naming_each_reason():
    needs = analyse_turn("Write a function in Python.")
    tiny = Candidate(
        "SmolLM2-135M", "x", Where.THIS_COMPUTER, 8192, capabilities_of("SmolLM2-135M")
    )
    with pytest.raises(NoModelFitsError, match="SmolLM2-135M: too small for code"):
        run(answer_with_fallback(choose_model(needs, [tiny]), _ask))
