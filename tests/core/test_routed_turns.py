"""Turns sent to the model that fits them (issue 42, items 3 and 5), over real HTTP: the
profile's own server offers a tiny model and a strong one, and a server found on this
computer ("Ollama") a coder."""

from __future__ import annotations

from contextlib import asynccontextmanager, contextmanager

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.presets import ProviderName, RoleModels
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_lab.scripted_openai import FakeOpenAIServer, Reply, image_parts
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.closed_ports import detecting_only
from tests.support.images import data_url_of, write_png
from tests.support.memory import shared_embedder

TINY, STRONG, CODER = "SmolLM2-135M-Instruct", "gpt-4o", "qwen2.5-coder:7b"
VISION = "llava:13b"
CODE_TURN = "Write a Python function that reverses a list."


def _naming_its_model(request: dict) -> Reply:
    return Reply(text=f"Answer from {request['model']}.")


def _models_asked(server: FakeOpenAIServer) -> list[str]:
    return [r.json["model"] for r in server.chat_requests() if r.json.get("stream")]


@asynccontextmanager
async def _assistant(tmp_path, own, ollama, routing):
    """A profile on ``own`` (chat model: the tiny one) that finds ``ollama`` here."""
    profile = configure_profile(
        tmp_path / "profile", own, models=RoleModels.same(TINY), routing=routing
    )
    with detecting_only({ProviderName.OLLAMA: ollama.base_url}) as detect:
        assistant = await open_assistant(
            profile, ModelOverrides(), start_jobs=False, offline_embedder=shared_embedder(),
            detect=detect,
        )  # fmt: skip
        try:
            yield assistant
        finally:
            await assistant.close()


@contextmanager
def _servers():
    with FakeOpenAIServer() as own, FakeOpenAIServer() as ollama:
        own.models, ollama.models = [TINY, STRONG], [CODER]
        own.responder = ollama.responder = _naming_its_model
        yield own, ollama


async def _turns(tmp_path, own, ollama, routing, *texts):
    async with _assistant(tmp_path, own, ollama, routing) as assistant:
        results = []
        for text in texts:
            conversation = results[-1].conversation_id if results else None
            results.append(await assistant.orchestrator.send(conversation, text))
        stored = await assistant.conversations.messages(results[0].conversation_id)
        return results, stored


def test_each_turn_goes_to_the_model_that_fits_it_and_says_why(tmp_path):
    with _servers() as (own, ollama):
        (code, chat), stored = run(_turns(tmp_path, own, ollama, "best", CODE_TURN, "hi!"))
        asked_here, asked_own = _models_asked(ollama), _models_asked(own)
        coder_key, strong_key = speed_key(ollama.base_url, CODER), speed_key(own.base_url, STRONG)
    # Code: the coder found on this computer (the tiny model is too small for it).
    assert code.answer.content == f"Answer from {CODER}." and code.answer.model == CODER
    assert asked_here == [CODER]
    route = code.route
    assert (
        route["reason"] == f"code → {CODER} on this computer" and route["policy"] == "best quality"
    )
    ruled = {c["model"]: c["ruled_out"] for c in route["considered"]}
    assert ruled == {TINY: "too small for code", STRONG: None, CODER: None}
    # Chat: the strongest, on the profile's own server, through its own client.
    assert chat.answer.model == STRONG and asked_own == [STRONG]
    # The decision is kept with the answer; the speeds with the profile.
    answers = [m for m in stored if m.role == "assistant"]
    assert answers[0].plan["route"]["reason"] == route["reason"]
    speeds = SpeedLog(tmp_path / "profile")
    assert speeds.speed(coder_key).calls == 1
    assert speeds.speed(strong_key).error_rate == 0


def test_a_failing_model_hands_the_turn_to_the_next_and_the_answer_says_so(tmp_path):
    with _servers() as (own, ollama):
        ollama.failing_completions = 503
        ((result,), _) = run(_turns(tmp_path, own, ollama, "best", CODE_TURN))
        coder_key = speed_key(ollama.base_url, CODER)
    assert result.answer.content == f"Answer from {STRONG}." and result.answer.model == STRONG
    assert result.route["fallback"] == (
        f"answered by {STRONG} because {CODER} failed: its server failed"
    )
    assert (result.route["answered_by"], result.route["failed"]) == (STRONG, CODER)
    assert result.route["reason"] == f"code → {STRONG} on this computer"
    assert SpeedLog(tmp_path / "profile").speed(coder_key).error_rate == 1.0


def test_a_chats_own_routing_wins_over_settings_both_ways(tmp_path):
    async def scenario(own, ollama):
        async with _assistant(tmp_path / "on", own, ollama, "best") as assistant:
            first = await assistant.orchestrator.send(None, "hello")
            await assistant.chat_settings.set_for_chat(first.conversation_id, routing="off")
            kept = await assistant.orchestrator.send(first.conversation_id, CODE_TURN)
        async with _assistant(tmp_path / "off", own, ollama, None) as assistant:
            first = await assistant.orchestrator.send(None, "hello")
            await assistant.chat_settings.set_for_chat(first.conversation_id, routing="best")
            routed = await assistant.orchestrator.send(first.conversation_id, CODE_TURN)
        return kept, routed

    with _servers() as (own, ollama):
        kept, routed = run(scenario(own, ollama))
    assert kept.answer.model == TINY and kept.route is None
    assert routed.answer.model == CODER and routed.route["policy"] == "best quality"


def test_a_chat_with_its_own_model_and_a_profile_without_a_policy_are_never_rerouted(tmp_path):
    async def scenario(own, ollama):
        async with _assistant(tmp_path / "pinned", own, ollama, "best") as assistant:
            first = await assistant.orchestrator.send(None, "hello")
            await assistant.chat_settings.set_for_chat(first.conversation_id, model=TINY)
            pinned = await assistant.orchestrator.send(first.conversation_id, CODE_TURN)
        async with _assistant(tmp_path / "off", own, ollama, None) as assistant:
            unrouted = await assistant.orchestrator.send(None, CODE_TURN)
        return pinned, unrouted

    with _servers() as (own, ollama):
        pinned, unrouted = run(scenario(own, ollama))
        asked_here = _models_asked(ollama)
    assert pinned.answer.model == TINY and pinned.route is None
    assert unrouted.answer.model == TINY and unrouted.route is None
    assert "route" not in (unrouted.answer.plan or {})
    assert asked_here == []


def test_a_turn_with_an_image_goes_to_the_model_that_sees_on_its_server(tmp_path):
    """The profile's own server runs text-only models (and refuses images, as such a
    server does); the one found on this computer runs LLaVA."""
    photo = tmp_path / "photo.png"
    png = write_png(photo)

    def text_only(request: dict) -> Reply:
        if any(image_parts(m) for m in request["messages"]):
            return Reply(status=400, error_message="this model does not take images")
        return _naming_its_model(request)

    async def scenario(own, ollama):
        async with _assistant(tmp_path, own, ollama, "best") as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            seen = await assistant.orchestrator.send(
                chat.id, "What is this?", attachment_ids=[image.id]
            )
            words = await assistant.orchestrator.send(chat.id, "Thanks! Any tips?")
            return seen, words

    with FakeOpenAIServer() as own, FakeOpenAIServer() as ollama:
        own.models, ollama.models = [TINY, "qwen2.5:32b"], [VISION]
        own.responder, ollama.responder = text_only, _naming_its_model
        seen, words = run(scenario(own, ollama))
        to_own = [r.json for r in own.chat_requests() if r.json.get("stream")]
        to_vision = [r.json for r in ollama.chat_requests() if r.json.get("stream")]
    assert seen.answer.content == f"Answer from {VISION}." and seen.route["kind"] == "vision"
    ruled = {c["model"]: c["ruled_out"] for c in seen.route["considered"]}
    assert ruled == {
        TINY: "it can't see images",
        "qwen2.5:32b": "it can't see images",
        VISION: None,
    }
    [asked] = to_vision
    assert image_parts(asked["messages"][-1]) == [data_url_of(png)]
    # The next turn, words only, is the text models' again, and carries no image.
    assert words.route["kind"] != "vision" and words.answer.model == "qwen2.5:32b"
    assert not any(image_parts(m) for r in to_own for m in r["messages"])


def test_a_routed_turn_with_an_image_and_no_model_that_sees_is_refused(tmp_path):
    photo = tmp_path / "photo.png"
    write_png(photo)

    async def scenario(own, ollama):
        async with _assistant(tmp_path, own, ollama, "best") as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            return await assistant.orchestrator.send(
                chat.id, "What is this?", attachment_ids=[image.id]
            )

    with FakeOpenAIServer() as own, FakeOpenAIServer() as ollama:
        own.models, ollama.models = [TINY], [CODER]
        result = run(scenario(own, ollama))
        streamed = [r for s in (own, ollama) for r in s.chat_requests() if r.json.get("stream")]
    assert result.status == "error" and streamed == []
    assert "none of the models you can reach sees images" in result.answer.error
    assert result.route["reason"] == "vision → no model can do it; the chat's model answered"
