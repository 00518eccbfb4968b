"""``acai-desktop chat --attach`` as a real process against the scripted server: an
image goes with the message as the file's bytes; a file that is no image is refused
before anything is sent; a model known not to see is refused with what to do; with a
policy, the turn goes to the model that sees."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from acai_lab.scripted_openai import Reply, image_parts
from tests.support.images import data_url_of, write_png
from tests.support.timeouts import PROGRAM_TIMEOUT_S


def _chat(tmp_path, server, model: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acai_desktop", "chat", "--data-dir", str(tmp_path / "p"),
         "--provider", "custom", "--base-url", server.base_url, "--model", model, *args],
        capture_output=True, text=True, encoding="utf-8", timeout=PROGRAM_TIMEOUT_S,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip


def _streamed(server) -> list[dict]:
    return [r.json for r in server.chat_requests() if r.json.get("stream")]


def test_chat_attaches_an_image_and_sends_it_with_the_message(tmp_path, fake_openai):
    photo, notes = tmp_path / "photo.png", tmp_path / "notes.txt"
    png = write_png(photo, 6, 6)
    notes.write_text("The shelf in the photo holds the 1998 atlas.\n", encoding="utf-8")
    fake_openai.responder = lambda request: Reply(text=f"Seen by {request['model']}.")
    sent = _chat(
        tmp_path, fake_openai, "gpt-4o", "--attach", str(photo), "--attach", str(notes),
        "--json", "What is on the shelf in this photo?",
    )  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    data = json.loads(sent.stdout)
    assert data["answer"] == "Seen by gpt-4o."
    attached = [(a["name"], a["kind"]) for a in data["attached"]]
    assert attached == [("photo.png", "image"), ("notes.txt", "text")]
    # The document was indexed first and quoted; the image went whole.
    assert [e["document"] for e in data["evidence_used"]] == ["notes.txt"]
    [asked] = _streamed(fake_openai)
    assert image_parts(asked["messages"][-1]) == [data_url_of(png)]


def test_chat_refuses_a_file_that_is_no_image_before_sending(tmp_path, fake_openai):
    photo, fake = tmp_path / "photo.png", tmp_path / "fake.png"
    write_png(photo)
    fake.write_text("just words\n", encoding="utf-8")
    refused = _chat(
        tmp_path, fake_openai, "gpt-4o", "--new", "--attach", str(photo),
        "--attach", str(fake), "What are these?",
    )  # fmt: skip
    assert refused.returncode == 2
    assert "fake.png is not a PNG, JPEG, WebP or GIF image" in refused.stderr
    assert _streamed(fake_openai) == []
    # Nothing left behind: the image attached before the refusal went with it.
    folder = tmp_path / "p" / "attachments"
    assert not folder.exists() or not any(folder.rglob("*.png"))


def test_chat_says_what_to_do_when_the_model_cant_see_and_a_policy_finds_one(tmp_path, fake_openai):
    photo = tmp_path / "photo.png"
    png = write_png(photo)
    fake_openai.models = ["llama3.1:8b", "gpt-4o"]
    fake_openai.responder = lambda request: Reply(text=f"Seen by {request['model']}.")
    blind = _chat(tmp_path, fake_openai, "llama3.1:8b", "--attach", str(photo), "What is it?")
    assert blind.returncode == 1
    assert "llama3.1:8b can't see images" in blind.stderr and "--policy" in blind.stderr
    assert _streamed(fake_openai) == []

    routed = _chat(
        tmp_path, fake_openai, "llama3.1:8b", "--policy", "best", "--attach", str(photo),
        "--json", "What is it?",
    )  # fmt: skip
    assert routed.returncode == 0, routed.stderr
    data = json.loads(routed.stdout)
    assert data["model"] == "gpt-4o" and data["route"]["kind"] == "vision"
    ruled = {c["model"]: c["ruled_out"] for c in data["route"]["considered"]}
    assert ruled["llama3.1:8b"] == "it can't see images"
    assert image_parts(_streamed(fake_openai)[-1]["messages"][-1]) == [data_url_of(png)]
