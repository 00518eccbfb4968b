"""Choosing the model for a turn (issue 42, item 3): what can't do it is ruled out, with
its reason, and the policy picks among the rest."""

import pytest

from acai_desktop.core.routing.known_models import capabilities_of, parameters_in_billions
from acai_desktop.core.routing.selection import (
    Candidate,
    Policy,
    Speed,
    Where,
    choose_model,
    where_it_runs,
)
from acai_desktop.core.routing.turn_needs import AttachedFile, analyse_turn


def _model(name, where=Where.THIS_COMPUTER, window=32_768, provider="Ollama", speed=None):
    return Candidate(name, provider, where, window, capabilities_of(name), speed)


TINY = _model("SmolLM2-135M-Instruct", provider="the built-in server", window=8_192)
CODER = _model("qwen2.5-coder:7b")
VISION = _model("llava:7b", window=4_096)
MINI = _model("gpt-4o-mini", Where.CLOUD, 128_000, "OpenAI")
STRONG = _model("gpt-4o", Where.CLOUD, 128_000, "OpenAI")
EVERY = [TINY, CODER, VISION, MINI, STRONG]


@pytest.mark.parametrize(
    ("url", "where"),
    [
        (None, Where.THIS_COMPUTER),
        ("http://localhost:11434/v1", Where.THIS_COMPUTER),
        ("http://127.0.0.1:8080/v1", Where.THIS_COMPUTER),
        ("http://[::1]:1234/v1", Where.THIS_COMPUTER),
        ("http://192.168.1.20:11434/v1", Where.LOCAL_NETWORK),
        ("http://nas.local:1234/v1", Where.LOCAL_NETWORK),
        ("http://gpu-box:8000/v1", Where.LOCAL_NETWORK),
        ("https://api.openai.com/v1", Where.CLOUD),
        ("https://8.8.8.8/v1", Where.CLOUD),
    ],
)
def test_where_a_server_runs_is_read_from_its_address(url, where):
    assert where_it_runs(url) is where


def test_a_size_in_the_name_sets_an_open_models_tier():
    assert parameters_in_billions("qwen2.5:0.5b") == 0.5
    assert parameters_in_billions("SmolLM2-135M-Instruct") == pytest.approx(0.135)
    assert parameters_in_billions("mixtral:8x7b") == 56
    assert capabilities_of("llama3.1:70b").quality == 4
    assert capabilities_of("llama3.1:8b").quality == 3
    assert capabilities_of("SmolLM2-135M-Instruct").quality == 1
    assert capabilities_of("some-finetune").known is False


def test_the_tiny_model_gets_no_code_and_a_coder_gets_it_on_this_computer():
    needs = analyse_turn("Write a Python function that merges two sorted lists.")
    route = choose_model(needs, [TINY, CODER], Policy.BEST)
    assert route.chosen is CODER
    assert route.reason == "code → qwen2.5-coder:7b on this computer"
    ruled = {c.candidate.model: c.ruled_out for c in route.considered}
    assert ruled["SmolLM2-135M-Instruct"] == "too small for code"
    assert ruled["qwen2.5-coder:7b"] is None


def test_an_image_goes_to_a_model_that_sees():
    needs = analyse_turn("What breed is this?", (AttachedFile("dog.jpg", is_image=True),))
    route = choose_model(needs, [TINY, CODER, VISION], Policy.CHEAPEST)
    assert route.chosen is VISION
    assert dict((c.candidate.model, c.ruled_out) for c in route.considered)["qwen2.5-coder:7b"] == (
        "it can't see images"
    )


def test_a_long_turn_skips_the_small_windows():
    needs = analyse_turn("Summarise this.", (AttachedFile("report.txt", tokens=40_000),))
    route = choose_model(needs, EVERY, Policy.CHEAPEST)
    assert route.chosen is MINI
    small = [c for c in route.considered if c.candidate.window_tokens < 40_000]
    assert small and all("window is too small" in c.ruled_out for c in small)


def test_a_private_turn_never_goes_to_a_remote_model():
    needs = analyse_turn("What's the capital of Australia?")
    route = choose_model(needs, [MINI, STRONG, TINY], Policy.BEST, private=True)
    assert route.chosen is TINY
    remote = [c for c in route.considered if c.candidate.where is Where.CLOUD]
    assert all(c.ruled_out == "local only, and it runs on the cloud" for c in remote)
    assert choose_model(needs, [MINI, STRONG], private=True).chosen is None


def test_each_policy_picks_by_its_own_measure():
    needs = analyse_turn("Write an essay on the causes of the French Revolution.")
    slow_strong = _model("llama3.1:70b", speed=Speed(2.0, 4.0, calls=20))
    assert choose_model(needs, [*EVERY, slow_strong], Policy.BEST).chosen is STRONG
    assert choose_model(needs, EVERY, Policy.CHEAPEST).chosen.where is Where.THIS_COMPUTER
    assert choose_model(needs, EVERY, Policy.LOCAL_ONLY).chosen is CODER  # the best here
    fast = _model("llama3.2:3b", speed=Speed(0.1, 200.0, calls=20))
    assert choose_model(needs, [*EVERY, fast], Policy.FASTEST).chosen is fast
    # Balanced: the cheapest within a tier of the best (gpt-4o is 4; 3s are in reach).
    assert choose_model(needs, EVERY, Policy.BALANCED).chosen.capabilities.quality >= 3
    assert choose_model(needs, EVERY, Policy.BALANCED).chosen.capabilities.price_out == 0


def test_a_cost_ceiling_rules_out_the_dear_models_and_says_why():
    needs = analyse_turn("Write an essay on the causes of the French Revolution.")
    route = choose_model(needs, [MINI, STRONG], Policy.BEST, cost_ceiling=0.001)
    assert route.chosen is MINI
    (dear,) = [c for c in route.considered if c.candidate is STRONG]
    assert dear.ruled_out.startswith("about $0.009") and "ceiling" in dear.ruled_out


def test_measured_errors_make_a_model_look_slower():
    needs = analyse_turn("hello there")
    flaky = _model("llama3.2:3b", speed=Speed(0.5, 50.0, error_rate=0.5, calls=10))
    steady = _model("qwen2.5:3b", speed=Speed(0.5, 50.0, error_rate=0.0, calls=10))
    assert choose_model(needs, [flaky, steady], Policy.FASTEST).chosen is steady
