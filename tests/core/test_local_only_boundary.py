"""Local only (issue 42, item 4), over real HTTP: the profile's own server is a scripted
"cloud" (127.0.0.1, said to be the cloud in model-table.json, as a proxy would be), and
a scripted "Ollama" runs on this computer. What the user marked local only must never
reach the cloud: not in a turn, a regeneration, a title or a learning job."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager, contextmanager

from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.presets import ProviderName, RoleModels
from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.core.routing.model_table import FILE_NAME
from acai_lab.scripted_model import call_kind, fake_model
from acai_lab.scripted_openai import FakeOpenAIServer, image_parts
from tests.support.aio import run
from tests.support.assistant import configure_profile
from tests.support.closed_ports import detecting_only
from tests.support.images import data_url_of, write_png
from tests.support.memory import shared_embedder

CLOUD_MODEL, LOCAL_MODEL = "gpt-4o", "llama3.1:8b"
LOCKER = "The user's locker code is 4921."
HOME = "I live in Quarry Lane."


def _sent_to(server: FakeOpenAIServer) -> str:
    """Everything ``server`` was sent in chat requests, as one text."""
    return "\n".join(json.dumps(r.json) for r in server.chat_requests())


@contextmanager
def _servers(*, local: bool = True):
    with FakeOpenAIServer() as cloud, FakeOpenAIServer() as ollama:
        cloud.models, ollama.models = [CLOUD_MODEL], [LOCAL_MODEL] if local else []
        cloud.responder = ollama.responder = fake_model
        yield cloud, ollama


@asynccontextmanager
async def _assistant(tmp_path, cloud, ollama, *, local: bool = True, routing=None):
    profile = configure_profile(
        tmp_path / "profile", cloud, models=RoleModels.same(CLOUD_MODEL), routing=routing
    )
    (profile.data_dir / FILE_NAME).write_text(
        json.dumps({"servers": {cloud.base_url: {"where": "the cloud"}}})
    )
    with detecting_only({ProviderName.OLLAMA: ollama.base_url} if local else {}) as detect:
        assistant = await open_assistant(
            profile, ModelOverrides(), start_jobs=True, offline_embedder=shared_embedder(),
            detect=detect,
        )  # fmt: skip
        try:
            yield assistant
        finally:
            await assistant.close()


def test_a_local_only_memory_is_withheld_from_the_cloud_in_turns_and_regeneration(tmp_path):
    async def scenario(cloud, ollama):
        async with _assistant(tmp_path, cloud, ollama) as assistant:
            memory = await assistant.memories.remember(LOCKER, category="Other")
            await assistant.memories.pin(memory.id)  # in every prompt it may go to
            await assistant.memories.set_local_only(memory.id, True)
            turn = await assistant.orchestrator.send(None, "What is my locker code?")
            again = await assistant.orchestrator.retry(turn.answer.id)
            await assistant.runner.wait_idle(30)
            return memory, turn, again

    with _servers() as (cloud, ollama):
        memory, turn, again = run(scenario(cloud, ollama))
        assert "4921" not in _sent_to(cloud)
        host = cloud.base_url.split("/")[2]
    for result in (turn, again):
        assert result.answer.status == MessageStatus.COMPLETE
        assert result.withheld["memory_ids"] == [memory.id]
        assert result.withheld["reason"] == (
            f"withheld: local only; the answering model runs in the cloud ({host})"
        )
        assert memory.id not in {s.memory_id for s in result.memories_used}
    # The answer keeps what was withheld for Sources; the turn was private.
    assert turn.answer.plan["withheld"]["memory_ids"] == [memory.id]
    assert turn.answer.plan["needs"]["private"] is True


def test_a_local_only_chat_goes_to_this_computer_with_its_title_and_learning(tmp_path):
    async def scenario(cloud, ollama):
        async with _assistant(tmp_path, cloud, ollama) as assistant:
            chat = await assistant.conversations.create()
            await assistant.conversations.set_local_only(chat.id, True)
            turn = await assistant.orchestrator.send(chat.id, HOME)
            again = await assistant.orchestrator.retry(turn.answer.id)
            await assistant.runner.wait_idle(30)
            learned = await assistant.memories.list()
            for memory in learned:  # pinned: in every prompt it may go to
                await assistant.memories.pin(memory.id)
            # Another chat, not local only: what the private one taught stays out.
            elsewhere = await assistant.orchestrator.send(None, "Where do I live?")
            await assistant.runner.wait_idle(30)
            return turn, again, learned, elsewhere

    with _servers() as (cloud, ollama):
        turn, again, learned, elsewhere = run(scenario(cloud, ollama))
        assert "Quarry" not in _sent_to(cloud)
        sent_here = _sent_to(ollama)
    assert "Quarry" in sent_here  # the turn, and the learning, went to this computer
    for result in (turn, again):
        assert result.answer.status == MessageStatus.COMPLETE
        assert result.answered_by == LOCAL_MODEL
        assert result.route["answered_by"] == LOCAL_MODEL
    assert [m.content for m in learned] == ["The user lives in Quarry Lane"]  # learned here
    assert elsewhere.answer.status == MessageStatus.COMPLETE
    # The fact learned in the local-only chat is local only too.
    assert elsewhere.withheld["memory_ids"] == [learned[0].id]


def test_a_local_only_chat_with_no_model_here_is_refused_and_keeps_the_message(tmp_path):
    async def scenario(cloud, ollama):
        async with _assistant(tmp_path, cloud, ollama, local=False) as assistant:
            chat = await assistant.conversations.create()
            await assistant.conversations.set_local_only(chat.id, True)
            turn = await assistant.orchestrator.send(chat.id, HOME)
            await assistant.runner.wait_idle(30)
            return turn, await assistant.conversations.messages(chat.id)

    with _servers(local=False) as (cloud, ollama):
        turn, stored = run(scenario(cloud, ollama))
        assert "Quarry" not in _sent_to(cloud)
    assert turn.answer.status == MessageStatus.ERROR
    assert "This chat is local only" in turn.answer.error
    assert "unmark the chat as local only" in turn.answer.error
    assert [m.content for m in stored if m.role == "user"] == [HOME]


def _calls(server: FakeOpenAIServer) -> list[tuple[str, str]]:
    return [(call_kind(r.json), r.json["model"]) for r in server.chat_requests()]


def test_learning_goes_through_the_router_to_the_cheapest_model_that_does_json(tmp_path):
    """issue 42, item 3: the turn goes to the best model (in the cloud), the learning of
    it to the cheapest that keeps to JSON (free, on this computer)."""

    async def scenario(cloud, ollama):
        async with _assistant(tmp_path, cloud, ollama, routing="best") as assistant:
            turn = await assistant.orchestrator.send(None, "I live in Lisbon.")
            await assistant.runner.wait_idle(30)
            return turn, await assistant.memories.list()

    with _servers() as (cloud, ollama):
        turn, learned = run(scenario(cloud, ollama))
        to_cloud, here = _calls(cloud), _calls(ollama)
    assert turn.answered_by == CLOUD_MODEL and ("chat", CLOUD_MODEL) in to_cloud
    assert {kind for kind, _ in to_cloud} == {"chat"}  # no learning call went there
    assert {("triage", LOCAL_MODEL), ("extraction", LOCAL_MODEL)} <= set(here)
    assert [m.content for m in learned] == ["The user lives in Lisbon"]


def test_a_new_chat_is_local_only_from_its_first_message(tmp_path):
    async def scenario(cloud, ollama):
        async with _assistant(tmp_path, cloud, ollama) as assistant:
            turn = await assistant.orchestrator.send(None, HOME, local_only=True)
            await assistant.runner.wait_idle(30)
            return turn, await assistant.conversations.get(turn.conversation_id)

    with _servers() as (cloud, ollama):
        turn, chat = run(scenario(cloud, ollama))
        assert "Quarry" not in _sent_to(cloud) and "Quarry" in _sent_to(ollama)
    assert chat.local_only and turn.answered_by == LOCAL_MODEL


def test_a_local_only_image_is_answered_on_this_computer_or_not_at_all(tmp_path):
    """An image is the message itself: it can't be withheld, so a model on this computer
    that sees answers it, and without one the turn is refused; the cloud gets neither."""
    photo = tmp_path / "photo.png"
    png = write_png(photo)

    async def scenario(cloud, ollama, folder):
        async with _assistant(folder, cloud, ollama) as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            await assistant.documents.set_local_only(image.id, True)
            return await assistant.orchestrator.send(
                chat.id, "What is in this picture?", attachment_ids=[image.id]
            )

    with _servers() as (cloud, ollama):
        refused = run(scenario(cloud, ollama, tmp_path / "no-local-vision"))
        ollama.models = [LOCAL_MODEL, "llava:7b"]
        seen = run(scenario(cloud, ollama, tmp_path / "llava-here"))
        to_cloud = _sent_to(cloud)
        to_ollama = [r.json for r in ollama.chat_requests() if r.json.get("stream")]
    assert refused.answer.status == MessageStatus.ERROR
    assert "This message's image is local only" in refused.answer.error
    assert seen.answer.status == MessageStatus.COMPLETE and seen.answer.model == "llava:7b"
    assert image_parts(to_ollama[-1]["messages"][-1]) == [data_url_of(png)]
    assert "base64" not in to_cloud and "[image: photo.png]" not in to_cloud
