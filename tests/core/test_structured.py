"""Structured output: schema requests, fallbacks, and every kind of bad reply -> no result."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel, Field

from acai_desktop.core.errors import ModelServerError
from acai_desktop.core.models.presets import StructuredMode
from acai_desktop.core.models.structured import (
    MAX_REPLY_CHARS,
    parse_structured_reply,
    response_format_for,
)
from acai_lab.scripted_openai import Reply
from tests.core.conftest import client_for
from tests.support.aio import run


class Fact(BaseModel):
    fact: str
    category: str
    confidence: float = Field(ge=0, le=1)


class Facts(BaseModel):
    facts: list[Fact]


ASK = [
    {"role": "system", "content": "Extract durable facts about the user."},
    {"role": "user", "content": "I prefer Python for backend development."},
]
GOOD = {
    "facts": [
        {"fact": "The user prefers Python for backend", "category": "Preference", "confidence": 0.9}
    ]
}


def ask(server, **client_options):
    async def scenario():
        async with client_for(server, **client_options) as client:
            result = await client.structured(ASK, Facts, role="extraction")
            return result, client.structured_mode

    return run(scenario())


def test_asks_for_the_json_schema_and_validates(fake_openai):
    fake_openai.script(Reply(json_obj=GOOD))
    result, _mode = ask(fake_openai)
    assert result.ok and result.reason is None
    assert result.value == Facts.model_validate(GOOD)
    assert result.mode == StructuredMode.JSON_SCHEMA
    sent = fake_openai.chat_requests()[0].json
    assert sent["model"] == "fake-extraction"
    assert sent["response_format"]["type"] == "json_schema"
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema == Facts.model_json_schema()
    assert sent["messages"] == ASK  # the schema travels in response_format, not the prompt


def test_falls_back_to_json_mode_with_instructions_when_schema_is_refused(fake_openai):
    fake_openai.reject_response_formats = {"json_schema"}
    fake_openai.script(Reply(json_obj=GOOD), Reply(json_obj=GOOD))
    result, mode = ask(fake_openai)
    assert result.ok
    assert result.mode == StructuredMode.JSON_OBJECT_SCHEMA
    assert mode == StructuredMode.JSON_OBJECT_SCHEMA
    first, second = fake_openai.chat_requests()
    assert first.response_format_type == "json_schema"
    assert second.json["response_format"] == {
        "type": "json_object",
        "schema": Facts.model_json_schema(),
    }
    system = second.json["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("Extract durable facts about the user.")
    assert '"facts"' in system["content"] and "JSON" in system["content"]
    assert len(second.json["messages"]) == len(ASK)


def test_falls_back_to_plain_text_and_remembers_the_step_down(fake_openai):
    fake_openai.reject_response_formats = {"json_schema", "json_object"}
    fake_openai.script(Reply(json_obj=GOOD), Reply(json_obj=GOOD))

    async def scenario():
        async with client_for(fake_openai) as client:
            first = await client.structured(ASK, Facts, role="extraction")
            second = await client.structured(ASK, Facts, role="extraction")
            return first, second

    first, second = run(scenario())
    assert first.ok and second.ok
    assert first.mode == second.mode == StructuredMode.TEXT
    types = [r.response_format_type for r in fake_openai.chat_requests()]
    # json_schema, json_object+schema, json_object refused; text answers; then text directly
    assert types == ["json_schema", "json_object", "json_object", None, None]


def test_local_preset_starts_with_the_schema_inside_json_mode(fake_openai):
    fake_openai.script(Reply(json_obj=GOOD))
    result, _ = ask(fake_openai, structured_mode=StructuredMode.JSON_OBJECT_SCHEMA)
    assert result.ok
    assert fake_openai.chat_requests()[0].json["response_format"]["schema"]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(text='{"facts": [{"fact": "x", "categ'), "not valid JSON"),
        (Reply(text='{"facts": [{"fact": "x"', finish_reason="length"), "cut off"),
        (Reply(text=""), "empty"),
        (Reply(text="   \n"), "empty"),
        (Reply(text="Sorry, I cannot help with that."), "not valid JSON"),
        (Reply(json_obj=["a", "list"]), "did not match Facts"),
        (Reply(json_obj={"facts": "none"}), "did not match Facts"),
        (
            Reply(json_obj={"facts": [{"fact": "x", "category": "y", "confidence": 7}]}),
            "less than or equal to 1",
        ),
        (Reply(text="{" + " " * (MAX_REPLY_CHARS + 10) + "}"), "too large"),
        (Reply(raw='{"not json'), "could not be read"),
    ],
)
def test_bad_replies_become_no_result_with_a_logged_reason(fake_openai, caplog, reply, reason):
    fake_openai.script(reply)
    with caplog.at_level(logging.WARNING, logger="acai_desktop.core.models.structured"):
        result, _ = ask(fake_openai)
    assert result.value is None
    assert reason in result.reason
    assert any(reason in record.getMessage() for record in caplog.records)


def test_fenced_and_wrapped_json_is_accepted(fake_openai):
    import json

    body = json.dumps(GOOD)
    fake_openai.script(
        Reply(text=f"```json\n{body}\n```"),
        Reply(text=f"Here you are:\n```\n{body}\n```\nAnything else?"),
        Reply(text=f"Sure! {body} Hope that helps."),
    )

    async def scenario():
        async with client_for(fake_openai) as client:
            return [(await client.structured(ASK, Facts, role="extraction")) for _ in range(3)]

    assert all(result.value == Facts.model_validate(GOOD) for result in run(scenario()))


def test_transport_failures_still_raise(fake_openai):
    fake_openai.script(*[Reply(status=500, retry_after=0.01) for _ in range(3)])
    with pytest.raises(ModelServerError):
        ask(fake_openai)


def test_parse_does_not_log_the_reply_text(caplog):
    secret = "my bank PIN is 4321"
    result = parse_structured_reply(secret, Facts)
    assert result.value is None
    assert secret not in result.reason


def test_response_formats_per_mode():
    assert response_format_for(StructuredMode.TEXT, Facts) is None
    assert response_format_for(StructuredMode.JSON_OBJECT, Facts) == {"type": "json_object"}
    strict = response_format_for(StructuredMode.JSON_SCHEMA, Facts)
    assert strict["json_schema"]["name"] == "Facts"


def test_a_500_naming_response_format_also_steps_down(fake_openai):
    # llama-cpp-python answers an unknown response_format type with HTTP 500, not 400.
    refusal = Reply(
        status=500,
        retry_after=0.01,
        error_message="1 validation error: ('body', 'response_format', 'type') Input should "
        "be 'text' or 'json_object'",
    )
    fake_openai.script(refusal, refusal, refusal, Reply(json_obj=GOOD))
    result, mode = ask(fake_openai)
    assert result.ok
    assert mode == StructuredMode.JSON_OBJECT_SCHEMA
    assert [r.response_format_type for r in fake_openai.chat_requests()] == [
        "json_schema",
        "json_schema",
        "json_schema",
        "json_object",
    ]
