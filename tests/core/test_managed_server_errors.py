"""When the app's own model server is down, the error says so, not "check the address"."""

import socket

import pytest

from acai_desktop.core.errors import LocalModelUnavailableError, ModelUnreachableError
from acai_desktop.core.models.local_server import LocalModelServer
from tests.core.conftest import client_for
from tests.support.aio import run


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there any more


async def first_chunk(client):
    try:
        async for _ in client.stream_chat([{"role": "user", "content": "hi"}]):
            break
    finally:
        await client.close()


def test_a_managed_server_that_is_down_gives_its_own_reason(fake_openai):
    client = client_for(
        fake_openai,
        base_url=closed_port_url(),
        unreachable_reason=lambda: "The local model server is restarting; try again soon.",
    )
    with pytest.raises(LocalModelUnavailableError, match="restarting"):
        run(first_chunk(client))


def test_any_other_server_asks_to_check_it(fake_openai):
    client = client_for(fake_openai, base_url=closed_port_url())
    with pytest.raises(ModelUnreachableError, match="Check that it is running") as raised:
        run(first_chunk(client))
    assert not isinstance(raised.value, LocalModelUnavailableError)


def test_the_server_reports_why_it_is_unavailable():
    server = LocalModelServer()
    assert "restarting" in server.unavailable_reason()
    server.failure = "the model file is damaged (see local-model.log)"
    assert server.unavailable_reason() == (
        "The local model server stopped: the model file is damaged (see local-model.log)"
    )
