"""The MCP server's standard input and output, with a gate in front of the SDK.

The SDK's stdio transport reads a line of any length into memory and drops a line it
cannot parse without a word to the client: a client that sent a request with a lone
surrogate, a 50,000-deep ``params`` or a bad byte waited forever for its answer, and a
200 MB line without an end was buffered whole (issue 39, G12). Here every frame (one
line, one JSON-RPC message) is checked before the SDK sees it:

- at most ``MAX_FRAME_BYTES``: a longer one is answered and skipped as it streams in
  (only its first ``ID_SEARCH_BYTES`` are kept, to find its id), so memory stays small;
- UTF-8, valid JSON, nested at most ``MAX_DEPTH`` deep, no lone surrogate in any text,
  and the shape of a JSON-RPC message.

A frame that fails is answered with a JSON-RPC error naming the reason, under the
request's id (``null`` when no id can be read from it, as JSON-RPC asks); a bad
notification is only logged, since a notification gets no answer. Good frames go on to
the SDK's own transport unchanged, and its replies and ours share one writer, so no two
frames interleave. While serving, file descriptors 0 and 1 point at the null device and
at standard error: a stray print or a child process can't corrupt the protocol.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, contextmanager
from itertools import accumulate

import anyio
from mcp.server.stdio import stdio_server
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError

log = logging.getLogger(__name__)

#: The largest frame read (bytes, newline excluded). The tools take a fact of at most
#: 20,000 characters and short queries; 1 MiB leaves room for any client's requests.
MAX_FRAME_BYTES = 1024 * 1024
#: How deep a frame may nest (an MCP request needs about 5 levels).
MAX_DEPTH = 64
#: The start of a frame that is searched for its id when the whole can't be parsed.
ID_SEARCH_BYTES = 64 * 1024
_CHUNK = 64 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_COLON = re.compile(r"\s*:\s*")


class FrameRefused(ValueError):
    def __init__(self, code: int, reason: str, request_id: object = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.request_id = request_id


@asynccontextmanager
async def guarded_stdio() -> AsyncIterator[tuple]:
    """``(read_stream, write_stream)`` for ``Server.run``, like the SDK's
    ``stdio_server()``, over this process's standard input and output."""
    with _claimed_descriptors() as (stdin_fd, stdout_fd):
        out = FrameWriter(stdout_fd)
        async with stdio_server(stdin=FrameGate(stdin_fd, out), stdout=out) as streams:
            yield streams


@contextmanager
def _claimed_descriptors():
    """Private copies of fds 0 and 1 for the protocol; 0 reads the null device and 1
    writes to standard error meanwhile. Put back on the way out."""
    stdin_fd, stdout_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield stdin_fd, stdout_fd
    finally:
        sys.stdout.flush()
        os.dup2(stdin_fd, 0)
        os.dup2(stdout_fd, 1)
        for fd in (null, stdin_fd, stdout_fd):
            os.close(fd)


class FrameWriter:
    """Standard output for the SDK's transport and for the gate's answers: each
    ``write`` is one whole frame, written and flushed under one lock."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        data = text.encode("utf-8")
        async with self._lock:
            await anyio.to_thread.run_sync(_write_all, self.fd, data)

    async def flush(self) -> None:
        """Every write is flushed already (an unbuffered descriptor)."""

    async def refuse(self, refused: FrameRefused) -> None:
        log.warning("MCP frame refused: %s", refused.reason)
        error = {"code": refused.code, "message": refused.reason}
        frame = {"jsonrpc": "2.0", "id": refused.request_id, "error": error}
        await self.write(json.dumps(frame, ensure_ascii=True) + "\n")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class FrameGate:
    """Standard input as the SDK's transport reads it (``async for line in stdin``):
    only frames that passed :func:`check_frame`; the rest are answered through
    ``writer``."""

    def __init__(self, fd: int, writer: FrameWriter) -> None:
        self.fd = fd
        self.writer = writer

    async def __aiter__(self) -> AsyncIterator[str]:
        pending = bytearray()
        #: The first bytes of a frame over the limit, while the rest is skipped.
        oversized: bytes | None = None
        while True:
            chunk = await anyio.to_thread.run_sync(os.read, self.fd, _CHUNK, abandon_on_cancel=True)
            if not chunk:
                break
            while chunk:
                end = chunk.find(b"\n")
                piece, chunk = (chunk, b"") if end < 0 else (chunk[:end], chunk[end + 1 :])
                if oversized is None:
                    pending += piece
                    if len(pending) > MAX_FRAME_BYTES:
                        oversized = bytes(pending[:ID_SEARCH_BYTES])
                        pending.clear()
                        await self.writer.refuse(too_large(oversized))
                if end < 0:
                    continue
                if oversized is not None:
                    oversized = None  # the skipped frame ends here
                    continue
                frame = bytes(pending)
                pending.clear()
                try:
                    line = check_frame(frame)
                except FrameRefused as refused:
                    if refused.request_id is not None or not _is_notification(frame):
                        await self.writer.refuse(refused)
                    else:
                        log.warning("MCP notification dropped: %s", refused.reason)
                    continue
                if line is not None:
                    yield line
        if pending and oversized is None:  # a last frame without its newline
            try:
                line = check_frame(bytes(pending))
            except FrameRefused as refused:
                await self.writer.refuse(refused)
            else:
                if line is not None:
                    yield line


def too_large(head: bytes) -> FrameRefused:
    return FrameRefused(
        INVALID_REQUEST,
        f"The message is larger than this server reads ({MAX_FRAME_BYTES:,} bytes); "
        "it was skipped.",
        sniff_id(head.decode("utf-8", errors="replace")),
    )


def check_frame(frame: bytes) -> str | None:
    """The frame as text if it may go on to the SDK; None for a blank line.

    Raises:
        FrameRefused: why not, with the request's id where one can be read.
    """
    frame = frame.rstrip(b"\r")
    if not frame.strip():
        return None
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError as error:
        loose = frame.decode("utf-8", errors="replace")
        raise FrameRefused(
            PARSE_ERROR,
            f"The message is not UTF-8 text (a bad byte at position {error.start}).",
            sniff_id(loose),
        ) from None
    depth = nesting(text)
    if depth > MAX_DEPTH:
        raise FrameRefused(
            INVALID_REQUEST,
            f"The message is nested {depth:,} levels deep; this server reads at most {MAX_DEPTH}.",
            sniff_id(text),
        )
    try:
        message = json.loads(text)
    except ValueError as error:  # JSONDecodeError, or a number of too many digits
        raise FrameRefused(
            PARSE_ERROR, f"The message is not valid JSON: {error}.", sniff_id(text)
        ) from None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
        request_id = None
    if _has_lone_surrogate(message):
        raise FrameRefused(
            INVALID_PARAMS,
            "The message holds a lone surrogate (a \\ud800-\\udfff escape without its "
            "pair), which is not text.",
            request_id,
        )
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise FrameRefused(
            INVALID_REQUEST,
            f"The message is not a JSON-RPC 2.0 message ({where}: {first['msg']}).",
            request_id,
        ) from None
    return text


def nesting(text: str) -> int:
    """How deep ``text``'s arrays and objects nest (brackets inside strings aside),
    without parsing it: a parser recurses, and a deep enough frame breaks it."""
    outside = _STRING.sub('""', text)
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(outside))
    return max(accumulate(steps, initial=0))


def sniff_id(text: str) -> int | str | None:
    """The ``id`` of the outermost object in ``text`` (which need not parse: it may be
    cut off, deep or broken further on), or None."""
    depth, index, size = 0, 0, min(len(text), ID_SEARCH_BYTES)
    decoder = json.JSONDecoder()
    while index < size:
        char = text[index]
        if char == '"':
            end = _STRING.match(text, index)
            if end is None:
                return None
            key = end.group(0)
            index = end.end()
            if depth == 1 and key == '"id"':
                colon = _COLON.match(text, index)
                if colon is not None:
                    try:
                        value, _end = decoder.raw_decode(text, colon.end())
                    except ValueError:
                        return None
                    valid = isinstance(value, (int, str)) and not isinstance(value, bool)
                    return value if valid else None
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        index += 1
    return None


def _is_notification(frame: bytes) -> bool:
    """A frame that says it is a notification (a method, no id): it gets no answer."""
    text = frame[:ID_SEARCH_BYTES].decode("utf-8", errors="replace")
    return '"method"' in text and sniff_id(text) is None and '"id"' not in text


def _has_lone_surrogate(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
