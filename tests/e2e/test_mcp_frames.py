"""Issue 39, G12: ``acai-desktop mcp`` answers every request, whatever its frame. A raw
process on pipes (the official client can't send broken frames): a lone surrogate, a bad
byte, a 50,000-deep ``params``, a frame over the size limit, broken JSON, a 5,000-digit
number and a message of the wrong shape each get a JSON-RPC error under their id with
the reason, and the server goes on serving. A huge line without an end is answered and
skipped as it streams in, and the server ends cleanly when its input closes."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

from acai_desktop.commands.mcp_stdio import MAX_FRAME_BYTES
from acai_desktop.core.profile.paths import Profile
from tests.support.timeouts import PROGRAM_TIMEOUT_S

INITIALIZE = {
    "jsonrpc": "2.0", "id": 100, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "frames-test", "version": "1"}},
}  # fmt: skip


class RawServer:
    def __init__(self, data_dir) -> None:
        Profile.at(data_dir).ensure()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "acai_desktop", "mcp", "--data-dir", str(data_dir)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )  # fmt: skip
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = b""
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def _read_stderr(self) -> None:
        self.stderr = self.process.stderr.read()

    def send(self, frame: bytes) -> None:
        self.process.stdin.write(frame)
        self.process.stdin.flush()

    def reply(self) -> dict:
        line = self.lines.get(timeout=PROGRAM_TIMEOUT_S)
        assert line, f"the server closed its output; stderr: {self.stderr[-2000:]!r}"
        return json.loads(line)

    def close(self) -> int:
        self.process.stdin.close()
        return self.process.wait(timeout=PROGRAM_TIMEOUT_S)


def request(request_id: int, params_json: str, method: str = "tools/call") -> bytes:
    head = f'{{"jsonrpc":"2.0","id":{request_id},"method":"{method}","params":'
    return (head + params_json + "}\n").encode("utf-8")


def test_every_bad_frame_gets_an_error_reply_with_its_reason(tmp_path):
    surrogate = '{"name":"search_memory","arguments":{"query":"\\ud800"}}'
    cases = {
        1: (request(1, surrogate), "lone surrogate"),
        2: (b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"\xed\xa0\x80"}}\n', "UTF-8"),
        3: (request(3, "[" * 50_000 + "]" * 50_000), "nested 50,001 levels deep"),
        4: (request(4, '{"pad":"' + "x" * (2 * MAX_FRAME_BYTES) + '"}', "ping"), "larger"),
        5: (b'{"jsonrpc":"2.0","id":5,"method":\n', "not valid JSON"),
        6: (request(6, '{"n":' + "9" * 5000 + "}", "ping"), "not valid JSON"),
        7: (b'{"jsonrpc":"1.0","id":7,"method":"ping"}\n', "not a JSON-RPC 2.0 message"),
    }
    server = RawServer(tmp_path)
    try:
        replies = {}
        for frame, _reason in cases.values():
            server.send(frame)
            reply = server.reply()
            replies[reply["id"]] = reply
        server.send(b"hello\n")
        garbage = server.reply()
        server.send(json.dumps(INITIALIZE).encode() + b"\n")
        initialized = server.reply()
    finally:
        code = server.close()
    for request_id, (_frame, reason) in cases.items():
        assert reason in replies[request_id]["error"]["message"], replies[request_id]
    assert garbage["id"] is None and "not valid JSON" in garbage["error"]["message"]
    assert initialized["id"] == 100 and initialized["result"]["serverInfo"]["name"]
    assert code == 0


def test_an_endless_line_is_answered_and_skipped_and_the_server_ends_cleanly(tmp_path):
    server = RawServer(tmp_path)
    try:
        server.send(b'{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"')
        chunk = b"x" * (1024 * 1024)
        for _ in range(24):  # 24 MiB, no newline
            server.send(chunk)
        refused = server.reply()
    finally:
        code = server.close()
    assert refused["id"] == "big"
    assert f"{MAX_FRAME_BYTES:,} bytes" in refused["error"]["message"]
    assert code == 0
