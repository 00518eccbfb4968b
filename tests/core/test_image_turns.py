"""Images in a turn, over real HTTP against the scripted server: the message that carries
an image sends it as a content part (the file's bytes in base64), later turns name it
only; a chat's model known not to see images is refused before any call, with nothing
lost; a model nobody knows is asked, and its server's refusal is the answer's error."""

from __future__ import annotations

from acai_desktop.core.models.presets import RoleModels
from acai_desktop.core.records.conversations import MessageStatus
from acai_lab.scripted_model import extraction_inputs
from acai_lab.scripted_openai import Reply, image_parts, text_of
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.images import data_url_of, write_png

QUESTION = "What is in this picture?"


def _streamed(server) -> list[dict]:
    """The answers' requests (learning and titles ask without streaming)."""
    return [r.json for r in server.chat_requests() if r.json.get("stream")]


def test_the_message_with_an_image_sends_it_and_later_turns_only_name_it(tmp_path, fake_openai):
    photo = tmp_path / "photo.png"
    png = write_png(photo, 5, 4)
    fake_openai.responder = lambda request: Reply(text="A small orange square.")

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            first = await assistant.orchestrator.send(chat.id, QUESTION, attachment_ids=[image.id])
            second = await assistant.orchestrator.send(chat.id, "Is it bright?")
            edited = await assistant.orchestrator.edit(first.user_message.id, "What colour is it?")
            await assistant.runner.wait_for(first.job_ids + second.job_ids, timeout=60)
            stored = await assistant.attachments.of_conversation(chat.id)
            return first, second, edited, image, stored

    first, second, edited, image, stored = run(scenario())
    # The image is a document of the chat, ready at once, with nothing indexed.
    assert (image.kind, str(image.status), image.chunk_count) == ("image", "ready", 0)
    assert [d.id for d in stored] == [image.id]
    assert first.plan.needs.kind == "vision" and first.plan.needs.needs_vision
    assert second.plan.needs.kind != "vision"
    asked, after, again = _streamed(fake_openai)
    # The message that carries it: its text (naming the image), then the image as sent.
    user = asked["messages"][-1]
    assert isinstance(user["content"], list)
    assert text_of(user).endswith(f"{QUESTION}\n\n[image: photo.png]")
    assert image_parts(user) == [data_url_of(png)]
    assert first.answer.sent_content == text_of(user)  # the history's form of the question
    # The next turn sends no image: the earlier message names it.
    assert not any(image_parts(m) for m in after["messages"])
    history = [text_of(m) for m in after["messages"] if m["role"] == "user"]
    assert "[image: photo.png]" in history[0] and "[image:" not in history[-1]
    # An edit of the message that carried it carries it again.
    assert edited.plan.needs.needs_vision
    assert image_parts(again["messages"][-1]) == [data_url_of(png)]
    # Learning reads the user's words: no image, no marker, in any other request.
    others = [r.json for r in fake_openai.chat_requests() if not r.json.get("stream")]
    assert others and not any(image_parts(m) for r in others for m in r["messages"])
    assert not any("[image:" in text for text in extraction_inputs(fake_openai))


def test_a_chat_model_known_blind_is_refused_before_any_call_and_nothing_is_lost(
    tmp_path, fake_openai
):
    photo = tmp_path / "photo.png"
    png = write_png(photo)
    fake_openai.responder = lambda request: Reply(text=f"Seen by {request['model']}.")

    async def scenario():
        async with running_assistant(
            tmp_path / "profile", fake_openai, models=RoleModels.same("llama3.1:8b")
        ) as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            refused = await assistant.orchestrator.send(
                chat.id, QUESTION, attachment_ids=[image.id]
            )
            asked_before = len(_streamed(fake_openai))
            kept = await assistant.conversations.messages(chat.id)
            still_attached = await assistant.attachments.of_conversation(chat.id)
            # What the refusal says to do: a model that sees, in the chat's ⚙; then Retry.
            await assistant.chat_settings.set_for_chat(chat.id, model="gpt-4o")
            retried = await assistant.orchestrator.retry(refused.answer.id)
            return refused, asked_before, kept, still_attached, retried

    refused, asked_before, kept, still_attached, retried = run(scenario())
    assert refused.status == MessageStatus.ERROR and asked_before == 0
    error = refused.answer.error
    assert "llama3.1:8b can't see images" in error
    assert "chat's ⚙" in error and "routing" in error and "Retry" in error
    assert [m.content for m in kept if m.role == "user"] == [QUESTION]
    assert [d.name for d in still_attached] == ["photo.png"]
    assert retried.status == MessageStatus.COMPLETE
    assert retried.answer.content == "Seen by gpt-4o."
    assert image_parts(_streamed(fake_openai)[-1]["messages"][-1]) == [data_url_of(png)]


def test_a_model_nobody_knows_is_asked_and_its_servers_refusal_is_the_answers_error(
    tmp_path, fake_openai
):
    photo = tmp_path / "photo.png"
    write_png(photo)

    def text_only_server(request: dict) -> Reply:
        if any(image_parts(m) for m in request["messages"]):
            return Reply(status=400, error_message="image input is not supported")
        return Reply(text="ok")

    fake_openai.responder = text_only_server

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            chat = await assistant.conversations.create()
            image = await assistant.attachments.attach_file(photo, chat.id)
            result = await assistant.orchestrator.send(chat.id, QUESTION, attachment_ids=[image.id])
            kept = await assistant.conversations.messages(chat.id)
            return result, kept

    result, kept = run(scenario())
    assert len(_streamed(fake_openai)) == 1  # "fake-chat" is unknown: it was asked
    assert result.status == MessageStatus.ERROR
    assert "image input is not supported" in result.answer.error
    assert [m.content for m in kept if m.role == "user"] == [QUESTION]


def test_without_the_users_table_the_known_one_says_which_models_see():
    """Evaluations build turns with no profile folder: the known table alone answers."""
    from acai_desktop.core.routing.sight import ModelSight

    sight = ModelSight()
    assert run(sight.sees("gpt-4o")) is True
    assert run(sight.sees("llama3.1:8b")) is False
    assert run(sight.sees("my-own-finetune")) is None
