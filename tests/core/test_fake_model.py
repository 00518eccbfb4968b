"""The rule-based fake model fails loudly on a structured request it has no rule for.

Otherwise a reworded prompt gets a prose answer, the program reads that as "no facts",
and every test that expects no memories passes for the wrong reason.
"""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from acai_desktop.core.errors import ModelError
from acai_desktop.core.records.memories import MemoryKind
from acai_desktop.core.store.memories import MemoryFilter
from acai_lab.scripted_model import UnrecognisedRequest, call_kind, fake_model
from acai_lab.strict_server import ResponderFailed, StrictOpenAIServer
from tests.core.conftest import client_for
from tests.support.aio import run
from tests.support.assistant import running_assistant

REWORDED_EXTRACTION = "List what the user says about themself, as JSON."
SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {"name": "Facts", "schema": {}}}


def _request(system: str, user: str, **extra) -> dict:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return {"model": "fake-extraction", "messages": messages, **extra}


def test_our_structured_prompts_are_recognised():
    extraction = _request(
        'Reply with JSON only: {"facts": [...]}', "I live in Lyon.", response_format=SCHEMA_FORMAT
    )
    assert json.loads(fake_model(extraction).content()) == {
        "facts": [{"fact": "The user lives in Lyon", "category": "Location", "confidence": 0.9}]
    }
    triage = _request('{"durable_fact": true}', "thanks", response_format=SCHEMA_FORMAT)
    assert json.loads(fake_model(triage).content()) == {"durable_fact": False}


def test_a_reworded_structured_prompt_raises_in_every_structured_mode():
    with pytest.raises(UnrecognisedRequest, match="no rule for this structured request"):
        fake_model(_request(REWORDED_EXTRACTION, "I live in Lyon.", response_format=SCHEMA_FORMAT))
    with pytest.raises(UnrecognisedRequest):
        fake_model(_request(REWORDED_EXTRACTION, "x", response_format={"type": "json_object"}))
    # Without any response_format the schema is spelled out in the system message.
    schema_in_prompt = REWORDED_EXTRACTION + "\n\nIt must match this JSON schema:\n{}"
    with pytest.raises(UnrecognisedRequest):
        fake_model(_request(schema_in_prompt, "I live in Lyon."))


def test_chat_and_summary_requests_still_get_prose():
    assert fake_model(_request("You are ACAI.", "Hello")).content().startswith("Here is my answer")
    summary = fake_model(
        _request("", "Summarise this part of a conversation:\nuser: I live in Lyon")
    )
    assert summary.content() == "The user said: I live in Lyon"


def test_a_reworded_extraction_prompt_fails_the_test_instead_of_storing_nothing(tmp_path):
    """Through the whole program: the processor's extraction call gets an HTTP error (not a
    reply read as "no facts"), and leaving the server fails the test, naming the request."""

    async def scenario(server):
        async with running_assistant(tmp_path, server, start_jobs=False) as assistant:
            assistant.critical_info._extraction_prompt = REWORDED_EXTRACTION
            conversation = await assistant.conversations.create()
            message = await assistant.conversations.add_message(
                conversation.id, "user", "My name is John."
            )
            with pytest.raises(ModelError, match="scripted responder failed"):
                await assistant.critical_info.process_message(message.id)
            return await assistant.memories.list(MemoryFilter(kinds=[MemoryKind.FACT]))

    failure = "UnrecognisedRequest: the fake model has no rule"
    with pytest.raises(ResponderFailed, match=failure), StrictOpenAIServer() as server:
        server.responder = fake_model
        assert run(scenario(server)) == []
    assert server.responder_failures  # every retry of the call was answered with the error


def test_any_responder_error_fails_the_test():
    """Not only the fake model: a test's own responder that breaks is reported too."""

    def broken(body: dict):
        raise KeyError("messages")

    async def scenario(server):
        async with client_for(server) as client:
            with pytest.raises(ModelError):
                await client.complete([{"role": "user", "content": "Hi"}], role="chat")

    with pytest.raises(ResponderFailed, match="KeyError"), StrictOpenAIServer() as server:
        server.responder = broken
        run(scenario(server))


def test_a_request_cut_off_before_its_body_is_recorded_as_cut(fake_openai):
    """A client that cancels a call after sending its headers (a warm-up or a learning
    call that a turn interrupted) leaves a recorded request with no body: it is not a
    chat answer, and counting answers must not trip over it."""
    address = urlsplit(fake_openai.base_url)
    with socket.create_connection((address.hostname, address.port)) as connection:
        connection.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        connection.shutdown(socket.SHUT_WR)  # cancelled: the body never comes
        connection.recv(1024)
    recorded = fake_openai.chat_requests()
    assert [r.json for r in recorded] == [None]
    assert call_kind(recorded[0].json) == "cut"
