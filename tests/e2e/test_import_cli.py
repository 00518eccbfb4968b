"""``acai-desktop import`` as a real process beside the open window: the window shows the
conversations and learns from them without a restart; a bad file changes nothing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.records.jobs import JobStatus
from acai_lab.scripted_model import fake_model
from tests.support.aio import run
from tests.support.assistant import running_assistant

EXPORTS = Path(__file__).parents[1] / "fixtures" / "chat_exports"
#: The window looks for other processes' writes every 2 s.
SEEN_WITHIN_SECONDS = 60


async def acai(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "acai_desktop", *args,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return process.returncode, out.decode(), err.decode()


def test_an_import_beside_the_window_is_shown_and_learned_from(tmp_path, fake_openai):
    fake_openai.responder = fake_model

    async def scenario():
        async with running_assistant(tmp_path, fake_openai) as assistant:
            titles: list[str] = []
            learned: set[int] = set()
            all_learned = asyncio.Event()

            def on_job(event: ev.JobStatusChanged) -> None:
                if event.job.kind == "learn_imported" and event.job.status == JobStatus.DONE:
                    learned.add(event.job.id)
                    if len(learned) == 4:
                        all_learned.set()

            assistant.events.subscribe(ev.ConversationChanged, lambda e: titles.append(
                e.conversation.title))  # fmt: skip
            assistant.events.subscribe(ev.JobStatusChanged, on_job)
            code, out, err = await acai(
                "import", "claude", str(EXPORTS / "claude_conversations.json"),
                "--data-dir", str(tmp_path),
            )  # fmt: skip
            # The window runs the learning the import queued, without a restart.
            await asyncio.wait_for(all_learned.wait(), SEEN_WITHIN_SECONDS)
            facts = [m.content for m in await assistant.memories.list()]
            return code, out, err, titles, facts

    code, out, err, titles, facts = run(scenario())
    assert code == 0, err
    assert "Imported 3 conversations (9 messages) from Claude." in out
    assert {"Marathon training plan", "Choosing a road bike"} <= set(titles)
    assert any(fact.startswith("The user lives in Porto") for fact in facts)


def test_a_truncated_export_is_refused_in_one_line(tmp_path):
    truncated = tmp_path / "conversations.json"
    truncated.write_bytes((EXPORTS / "chatgpt_conversations.json").read_bytes()[:4000])

    code, out, err = run(
        acai("import", "chatgpt", str(truncated), "--data-dir", str(tmp_path / "profile"))
    )
    assert code == 2 and out == ""
    assert err.startswith("acai-desktop: error: ") and err.count("\n") == 1
    assert "ends early (truncated?)" in err and "nothing was imported" in err
