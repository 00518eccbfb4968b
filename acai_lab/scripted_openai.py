"""A scripted OpenAI-compatible HTTP server on 127.0.0.1, for runs that go through the real SDK.

Standard library only: a ``ThreadingHTTPServer`` on a free port in a background thread, so the
``openai`` SDK's real HTTP stack, SSE parsing, retries and timeouts are exercised.
``--self-test`` and ``bench soak`` use it; the tests use it in a strict form
(:class:`acai_lab.strict_server.StrictOpenAIServer`).

Endpoints
    ``POST /v1/chat/completions`` (streamed SSE when ``"stream": true``, plain JSON otherwise),
    ``POST /v1/embeddings``, ``GET /v1/models``; and any route set in ``server.routes``
    (a server's own API beside OpenAI's: llama.cpp's ``GET /props``, Ollama's
    ``POST /api/show``, LM Studio's ``GET /api/v0/models``).

Use
    ::

        with FakeOpenAIServer() as server:           # or the ``fake_openai`` fixture
            client = AsyncOpenAI(base_url=server.base_url, api_key="test")
            server.script(Reply(text="Hello!"), Reply(status=429, retry_after=0.01))
            ...
            assert server.chat_requests()[-1].json["model"] == "fake-triage"

Scripting
    ``server.script(*replies, endpoint="chat")`` appends to a FIFO queue for that endpoint
    (``"chat"``, ``"embeddings"`` or ``"models"``). Each request takes the next reply of its
    endpoint's queue. When the chat queue is empty, ``server.responder(request_json) -> Reply``
    answers (default: ``Reply(text="ok")``) — set it to a rule-based fake model for tests that
    make many calls. When the embeddings queue is empty, every input gets a deterministic
    hashed bag-of-words vector (``hashed_embedding``), so texts sharing content words are
    similar and semantic tests mean something. When the models queue is empty, ``server.models``
    is listed.

``Reply`` fields (all optional)
    ``text``               the assistant's content (streamed in small chunks when asked to stream)
    ``json_obj``           content = ``json.dumps(json_obj)``
    ``raw``                the HTTP body sent verbatim (``application/json``), e.g. ``'{"not json'``
    ``status``             HTTP status; non-200 sends an OpenAI-style ``{"error": {...}}`` body
    ``error_message``      that error's message (``error_code`` its code)
    ``retry_after``        seconds, sent as ``retry-after-ms`` (the SDK honours it when retrying)
    ``delay``              seconds to wait before answering at all (for timeout tests)
    ``chunk_delay``        seconds between streamed chunks (for cancellation tests)
    ``chunk_chars``        stream pieces of about this many characters instead of single words
    ``drop_after_chunks``  stream that many content chunks, then close the connection abruptly
    ``hold_after_chunks``  stream that many content chunks, then send nothing more until the
                           client goes away or the server stops (an answer that can't finish)
    ``finish_reason``      default ``"stop"``; ``None`` ends the stream without one
    ``keep_alive_every``   a stream that sends only SSE keep-alive comments, one this often (s),
                           and never an answer, until the client goes away
    ``trickle_every``      a reply that never ends: a plain reply's body is one whitespace byte
                           this often (s); a stream sends its text's pieces, one this often, over
                           and over
    ``headers``            extra headers of an error reply, e.g. ``{"retry-after": "86400"}``
    ``embeddings``         explicit vectors for an embeddings reply
    ``models``             explicit model ids for a models reply

Server switches
    ``server.require_api_key = "sk-..."``  answer 401 to any other bearer token;
    ``server.reject_response_formats = {"json_schema"}``  answer 400 to chat requests asking for
    those ``response_format`` types, without taking a scripted reply (a server without schema
    support);
    ``server.models = [...]`` the ids listed by ``/v1/models``;
    ``server.model_details = {"id": {...}}``  more fields of that model's ``/v1/models``
    entry (``{"meta": {"n_ctx_train": 131072}}``, vLLM's ``{"max_model_len": 8192}``);
    ``server.routes = {"GET /props": ...}``  another route, keyed by method and path: its
    value is the JSON body to answer, a function of the request's JSON giving that body,
    or a ``Reply`` (an error status, a delay);
    ``server.failing_completions = 500``  answer every chat completion with that status (a
    server whose ``/v1/models`` works but whose model does not), without taking a scripted
    reply; None again: the server is fixed;
    ``server.reports_usage = False``  never report token usage: no ``usage`` in a plain
    reply, and no usage chunk in a stream even when asked (an older server).

Token usage
    A plain reply carries ``usage``; a stream ends with a usage chunk (``choices`` empty)
    when the request asks for it with ``stream_options: {"include_usage": true}``, as
    OpenAI's does. The figures are words, not tokens: the prompt's are the words of the
    request's messages' contents (:func:`prompt_words`), the completion's those of the
    reply's text.

Recording
    ``server.requests`` lists every ``RecordedRequest(method, path, headers, json)`` in arrival
    order; ``chat_requests()`` / ``embedding_requests()`` filter them. A streamed request whose
    client went away before the stream ended has ``client_disconnected`` set (a
    ``threading.Event``), which is how a test sees that cancelling closed the HTTP stream.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import itertools
import json
import re
import select
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

EMBEDDING_DIMENSIONS = 128
_STOP_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an and are as at be but by do does for from has have i i'm in is it its me my of on "
        "or should so that the this to use was what which will with would you your",
    )
)


@dataclass
class Reply:
    text: str | None = None
    json_obj: Any = None
    raw: str | None = None
    status: int = 200
    error_message: str | None = None
    error_code: str | None = None
    retry_after: float | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunk_chars: int | None = None
    drop_after_chunks: int | None = None
    hold_after_chunks: int | None = None
    finish_reason: str | None = "stop"
    embeddings: list[list[float]] | None = None
    models: list[str] | None = None
    keep_alive_every: float | None = None
    trickle_every: float | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def content(self) -> str:
        if self.json_obj is not None:
            return json.dumps(self.json_obj)
        return self.text if self.text is not None else ""


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    json: Any
    client_disconnected: threading.Event = field(default_factory=threading.Event)

    @property
    def response_format_type(self) -> str | None:
        fmt = (self.json or {}).get("response_format") if isinstance(self.json, dict) else None
        return fmt.get("type") if isinstance(fmt, dict) else None


def _content_words(text: str) -> Iterator[str]:
    for word in re.findall(r"\w+", text.lower()):
        if word in _STOP_WORDS:
            continue
        # A crude stem so "novels" meets "novel" and "prefers" meets "prefer".
        yield word[:-1] if len(word) > 3 and word.endswith("s") else word


def hashed_embedding(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic unit vector: each content word adds ±1 at a hashed position."""
    vector = np.zeros(dimensions, dtype=np.float32)
    for word in _content_words(text):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dimensions
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm else vector).tolist()


def text_of(message: dict) -> str:
    """A message's text: its content, or the text parts of a content list (a user
    message carrying images: ``[{"type": "text", …}, {"type": "image_url", …}]``)."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content)


def image_parts(message: dict) -> list[str]:
    """The image URLs (``data:…;base64,…``) a message's content parts carry."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


def prompt_words(request: dict) -> int:
    """The prompt's "tokens" as this server reports them: its messages' words (an
    image's bytes are not words)."""
    return sum(len(text_of(m).split()) for m in request.get("messages", []))


def _usage(request: dict, content: str) -> dict:
    prompt, completion = prompt_words(request), len(content.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion}  # fmt: skip


def _split_for_streaming(text: str, chunk_chars: int | None = None) -> Iterator[str]:
    # Word-sized pieces keeping their whitespace, like a tokenizer's deltas; made as they
    # are sent, so a huge answer the client stops reading is never split whole.
    words = (match.group() for match in re.finditer(r"\s*\S+|\s+", text))
    if not text:
        yield ""
        return
    if not chunk_chars:
        yield from words
        return
    piece: list[str] = []
    size = 0
    for word in words:
        if piece and size + len(word) > chunk_chars:
            yield "".join(piece)
            piece, size = [], 0
        piece.append(word)
        size += len(word)
    yield "".join(piece)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # -- plumbing -----------------------------------------------------------------

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            return json.loads(body) if body else None
        except json.JSONDecodeError:
            return body.decode("utf-8", "replace")

    def _record(self, body: Any) -> RecordedRequest:
        record = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            json=body,
        )
        with self.server.fake.lock:
            self.server.fake.requests.append(record)
        return record

    def _send_json(self, status: int, payload: Any, extra_headers: dict[str, str] | None = None):
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_error_reply(self, reply: Reply) -> None:
        headers = dict(reply.headers)
        if reply.retry_after is not None:
            headers["retry-after-ms"] = str(int(reply.retry_after * 1000))
        message = reply.error_message or f"scripted error {reply.status}"
        payload = {
            "error": {
                "message": message,
                "type": "invalid_request_error" if reply.status < 500 else "server_error",
                "code": reply.error_code,
            }
        }
        self._send_json(reply.status, payload, headers)

    def _authorised(self) -> bool:
        wanted = self.server.fake.require_api_key
        if wanted is None:
            return True
        if self.headers.get("Authorization") == f"Bearer {wanted}":
            return True
        self._send_error_reply(
            Reply(
                status=401,
                error_message="Incorrect API key provided.",
                error_code="invalid_api_key",
            )
        )
        return False

    def _prepare(self, reply: Reply) -> bool:
        """Wait out the reply's delay and send it if it is an error or raw body; True if done."""
        if reply.delay:
            # Interruptible, so stopping the server does not wait for a long scripted delay.
            self.server.fake.stopping.wait(reply.delay)
        if reply.raw is not None:
            self._send_json(reply.status, reply.raw.encode())
            return True
        if reply.status != 200:
            self._send_error_reply(reply)
            return True
        return False

    # -- endpoints ----------------------------------------------------------------

    def do_GET(self) -> None:
        record = self._record(None)
        if not self._authorised():
            return
        if self._routed(record):
            return
        if record.path.rstrip("/") != "/v1/models":
            self._send_error_reply(Reply(status=404, error_message=f"no route {record.path}"))
            return
        reply = self.server.fake.next_reply("models", None)
        if self._prepare(reply):
            return
        ids = reply.models if reply.models is not None else list(self.server.fake.models)
        details = self.server.fake.model_details
        data = [
            {"id": i, "object": "model", "created": 0, "owned_by": "fake", **details.get(i, {})}
            for i in ids
        ]
        self._send_json(200, {"object": "list", "data": data})

    def _routed(self, record: RecordedRequest) -> bool:
        """Answer a route of ``server.routes``; True if it was one."""
        route = self.server.fake.routes.get(f"{record.method} {record.path.split('?')[0]}")
        if route is None:
            return False
        if isinstance(route, Reply):
            if not self._prepare(route):
                self._send_json(200, json.loads(route.content() or "null"))
            return True
        self._send_json(200, route(record.json) if callable(route) else route)
        return True

    def do_POST(self) -> None:
        body = self._read_json()
        record = self._record(body)
        if not self._authorised():
            return
        path = record.path.rstrip("/")
        if self._routed(record):
            return
        if path == "/v1/chat/completions":
            self._chat(record)
        elif path == "/v1/embeddings":
            self._embeddings(record)
        else:
            self._send_error_reply(Reply(status=404, error_message=f"no route {record.path}"))

    def _chat(self, record: RecordedRequest) -> None:
        request = record.json if isinstance(record.json, dict) else {}
        fake = self.server.fake
        if record.response_format_type in fake.reject_response_formats:
            self._send_error_reply(
                Reply(
                    status=400,
                    error_message=f"response_format {record.response_format_type!r} "
                    "is not supported by this server",
                )
            )
            return
        if fake.failing_completions is not None:
            self._send_error_reply(
                Reply(status=fake.failing_completions, error_message="the model crashed")
            )
            return
        reply = fake.next_reply("chat", request)
        if self._prepare(reply):
            return
        model = request.get("model", "fake-model")
        if request.get("stream"):
            self._stream_chat(record, reply, model)
            return
        if reply.trickle_every is not None:
            self._trickle_forever(record, reply.trickle_every)
            return
        content = reply.content()
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": reply.finish_reason,
                }
            ],
        }
        if fake.reports_usage:
            body["usage"] = _usage(request, content)
        self._send_json(200, body)

    def _stream_chat(self, record: RecordedRequest, reply: Reply, model: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(delta: dict, finish_reason: str | None = None) -> dict:
            return {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }

        def send(data: str) -> None:
            self._send_chunk(f"data: {data}\n\n".encode())

        try:
            if reply.keep_alive_every is not None:
                while not self.server.fake.stopping.wait(reply.keep_alive_every):
                    self._send_chunk(b": keep-alive\n\n")
                self.close_connection = True  # the server stops: the body stays unfinished
                return
            send(json.dumps(event({"role": "assistant", "content": ""})))
            if reply.trickle_every is not None:
                pieces = itertools.cycle(
                    _split_for_streaming(reply.content() or "word", reply.chunk_chars)
                )
                while not self.server.fake.stopping.wait(reply.trickle_every):
                    send(json.dumps(event({"content": next(pieces)})))
                self.close_connection = True
                return
            for number, piece in enumerate(
                _split_for_streaming(reply.content(), reply.chunk_chars)
            ):
                if reply.drop_after_chunks is not None and number >= reply.drop_after_chunks:
                    self._drop_connection()
                    return
                if reply.hold_after_chunks is not None and number >= reply.hold_after_chunks:
                    self._hold_until_client_leaves(record)
                    return
                if reply.chunk_delay:
                    self.server.fake.stopping.wait(reply.chunk_delay)
                send(json.dumps(event({"content": piece})))
            if reply.drop_after_chunks is not None:
                self._drop_connection()
                return
            if reply.finish_reason is not None:
                send(json.dumps(event({}, reply.finish_reason)))
            request = record.json if isinstance(record.json, dict) else {}
            options = request.get("stream_options") or {}
            if self.server.fake.reports_usage and options.get("include_usage"):
                last = {**event({}), "choices": [], "usage": _usage(request, reply.content())}
                send(json.dumps(last))
            send("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            record.client_disconnected.set()
            self.close_connection = True

    def _hold_until_client_leaves(self, record: RecordedRequest) -> None:
        # A closed client makes its socket readable with nothing to read (EOF).
        while not self.server.fake.stopping.wait(0.05):
            readable, _, _ = select.select([self.connection], [], [], 0)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                record.client_disconnected.set()
                break
        self.close_connection = True

    def _send_chunk(self, payload: bytes) -> None:
        """One piece of a chunked body, sent at once."""
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _trickle_forever(self, record: RecordedRequest, every: float) -> None:
        """A plain reply whose body never ends: one space (valid leading JSON whitespace)
        at a time, until the client goes away or the server stops."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while not self.server.fake.stopping.wait(every):
                self._send_chunk(b" ")
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            record.client_disconnected.set()
        self.close_connection = True

    def _drop_connection(self) -> None:
        # Close without the chunked terminator: the client sees an incomplete body.
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _embeddings(self, record: RecordedRequest) -> None:
        request = record.json if isinstance(record.json, dict) else {}
        reply = self.server.fake.next_reply("embeddings", request)
        if self._prepare(reply):
            return
        inputs = request.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        vectors = reply.embeddings or [hashed_embedding(str(text)) for text in inputs]
        as_base64 = request.get("encoding_format") == "base64"
        data = []
        for index, vector in enumerate(vectors):
            if as_base64:
                encoded = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode()
                data.append({"object": "embedding", "index": index, "embedding": encoded})
            else:
                data.append({"object": "embedding", "index": index, "embedding": list(vector)})
        tokens = sum(len(str(text).split()) for text in inputs)
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": request.get("model", "fake-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAIServer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Open client connections: a stop closes them too, as a server that dies does
        #: (else a keep-alive connection's thread would go on answering).
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def process_request(self, request, client_address) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        with self.connections_lock:
            connections, self.connections = self.connections, set()
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request, client_address) -> None:
        # A client that went away (cancelled, killed) is part of the script, not news.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class FakeOpenAIServer:
    """See the module docstring. Start with ``start()`` or ``with``; stop with ``stop()``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[dict], Reply] | None = None
        self.require_api_key: str | None = None
        self.reject_response_formats: set[str] = set()
        self.failing_completions: int | None = None
        self.reports_usage = True
        self.models: list[str] = ["fake-chat", "fake-triage", "fake-embedding"]
        self.model_details: dict[str, dict[str, Any]] = {}
        self.routes: dict[str, Reply | dict | Callable[[Any], Any]] = {}
        self._queues: dict[str, deque[Reply]] = {
            "chat": deque(),
            "embeddings": deque(),
            "models": deque(),
        }
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ---------------------------------------------------------------

    def start(self, port: int = 0) -> FakeOpenAIServer:
        """Listen on ``port`` (0: any free one; the port it had: a server back after a
        stop, at the address the app was given)."""
        self.stopping.clear()
        self._httpd = _HTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd.drop_connections()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ----------------------------------------------------------------

    def script(self, *replies: Reply, endpoint: str = "chat") -> None:
        with self.lock:
            self._queues[endpoint].extend(replies)

    def pending(self, endpoint: str = "chat") -> int:
        with self.lock:
            return len(self._queues[endpoint])

    def next_reply(self, endpoint: str, request: dict | None) -> Reply:
        with self.lock:
            if self._queues[endpoint]:
                return self._queues[endpoint].popleft()
            responder = self.responder
        if endpoint == "chat":
            return responder(request or {}) if responder is not None else Reply(text="ok")
        return Reply()

    # -- recording ----------------------------------------------------------------

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.path.rstrip("/") == path]

    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/v1/chat/completions")

    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/v1/embeddings")
