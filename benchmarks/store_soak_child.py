"""One app process of the shared-store soak (:mod:`benchmarks.store_soak`).

``python -m benchmarks.store_soak_child --data-dir DIR --store URL --turns 1,3,5``
opens the assistant on its own data dir and the shared PostgreSQL database (its job
runner learning in the background, its listener following other computers' writes),
says ``ready`` and waits for ``go``; then sends its turns in one conversation and waits
until the shared job queue is empty. Then it obeys the parent, one line at a time on
stdin: ``pick`` (name a memory learned from its own messages), ``expect ID TEXT`` (say
``seen`` once this process was told, by an event as its panel is, that memory ID now
reads TEXT), ``edit ID TEXT`` (the user edits it here), ``quit``. Everything it says is
one JSON object a line on stdout; ``at`` is ``time.monotonic()``, one clock for every
process of the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from acai_desktop.core import events as ev
from acai_desktop.core.assistant import open_assistant
from acai_desktop.core.profile.paths import Profile

#: The whole queue, both processes' turns: generous, the parent watches for silence.
IDLE_WAIT_SECONDS = 3600


def say(event: str, **fields) -> None:
    print(json.dumps({"event": event, "at": time.monotonic(), **fields}), flush=True)


async def _command() -> list[str]:
    line = await asyncio.to_thread(sys.stdin.readline)
    return line.rstrip("\n").split(" ", 2) if line else ["quit"]


async def run_child(data_dir: str, store: str, turns: list[int], message_of) -> None:
    assistant = await open_assistant(Profile.with_store(data_dir, store))
    seen: dict[int, str] = {}
    changed = asyncio.Event()

    def note(event: ev.MemoryAdded | ev.MemoryChanged) -> None:
        seen[event.memory.id] = event.memory.content
        changed.set()

    for event_type in (ev.MemoryAdded, ev.MemoryChanged):
        assistant.events.subscribe(event_type, note)
    my_messages: list[int] = []
    try:
        say("ready")
        await _command()  # "go": every process is open on the store
        conversation = await assistant.conversations.create()
        for turn in turns:
            result = await assistant.orchestrator.send(conversation.id, message_of(turn))
            my_messages.append(result.user_message.id)
            say("turn", turn=turn, status=str(result.status))
        await assistant.runner.wait_idle(timeout=IDLE_WAIT_SECONDS)
        say("idle")
        while (command := await _command())[0] != "quit":
            if command[0] == "pick":
                learned = await assistant.memories.stored_from_messages(my_messages)
                say("picked", memory_id=learned[0].id if learned else None)
            elif command[0] == "expect":
                memory_id, text = int(command[1]), command[2]
                say("watching")
                while seen.get(memory_id) != text:
                    changed.clear()
                    await changed.wait()
                say("seen", memory_id=memory_id)
            elif command[0] == "edit":
                edited = await assistant.memories.edit(int(command[1]), command[2])
                say("edited", memory_id=edited.id)
    finally:
        await assistant.close()
    say("closed")


def main(argv: list[str] | None = None) -> int:
    from acai_lab.scripted_profile import keep_away_from_the_keyring
    from benchmarks.store_soak import turn_message

    parser = argparse.ArgumentParser(prog="store_soak_child")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--turns", required=True, help="comma-separated turn numbers")
    args = parser.parse_args(argv)
    keep_away_from_the_keyring()
    turns = [int(turn) for turn in args.turns.split(",") if turn]
    asyncio.run(run_child(args.data_dir, args.store, turns, turn_message))
    return 0


if __name__ == "__main__":
    sys.exit(main())
