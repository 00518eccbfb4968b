"""``acai-desktop jobs list|retry``: the background processors' queue, from a terminal.

``list`` shows the jobs not yet done (``--all``: every job), with why a failed one
failed and until when a delayed one waits (the server asked for a pause); ``retry``
queues failed jobs again and makes delayed ones run now (the ids given, or ``--all``). A
queued job runs in the open window within half a minute, or at the next start of ACAI
Desktop; ``--wait`` runs it now and waits for it. ``--json`` prints ``{"jobs": [...]}``,
each job ``{"id", "kind", "status", "payload", "conversation_id", "attempts",
"revivals", "retryable", "last_error", "run_after", "created_at", "updated_at"}``
(``run_after``: when a pending job may run next, ISO 8601 UTC, or null).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from acai_desktop.commands.arguments import options_of_every_action
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.clock import local_time_text
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.jobs import Job, JobStatus

#: How long ``retry --wait`` waits for the jobs it queued.
WAIT_SECONDS = 600
#: How often ``retry --wait`` looks at the jobs another process (the window) runs.
OTHER_PROCESS_POLL_SECONDS = 0.5
OPEN_STATUSES = (JobStatus.PENDING, JobStatus.RUNNING, JobStatus.FAILED)
UNFINISHED = (JobStatus.PENDING, JobStatus.RUNNING)
KIND_NAMES = {
    "critical_info": "learn from a message",
    "summary": "summarise a conversation",
    "index_document": "index a document",
    "learn_imported": "learn from an imported message",
}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = options_of_every_action()
    parser = subparsers.add_parser(
        "jobs",
        parents=[common],
        help="list the background jobs and retry failed ones",
        description="The background processors' jobs: learning facts from your messages "
        "and summarising long conversations.",
    )
    actions = parser.add_subparsers(dest="jobs_action", metavar="ACTION", required=True)
    listing = actions.add_parser(
        "list",
        parents=[common],
        help="list pending, running and failed jobs",
        description="List the jobs not done yet, with the reason a failed job failed.",
    )
    listing.add_argument("--all", action="store_true", help="every job, done ones included")
    retry = actions.add_parser(
        "retry",
        parents=[common],
        help="queue failed jobs again, run delayed ones now",
        description="Queue failed jobs again, and run jobs waiting for a later retry now: "
        "the ids given, or every such job with --all.",
    )
    retry.add_argument("ids", nargs="*", metavar="ID", help="a failed or delayed job's id")
    retry.add_argument("--all", action="store_true", help="every failed or delayed job")
    retry.add_argument(
        "--wait", action="store_true", help="run them now (starts the model) and wait"
    )
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    as_json = getattr(args, "json", False)
    if args.jobs_action == "list":
        jobs = await _read(profile, lambda queue: queue.list(None if args.all else OPEN_STATUSES))
        _print(jobs, as_json, empty="No jobs waiting or failed.")
        return 0
    ids = _job_ids(args)
    revived = await _read(profile, lambda queue: queue.retry(ids))
    if ids is not None and len(revived) < len(ids):
        missing = sorted(set(ids) - {job.id for job in revived})
        listed = ", ".join(str(i) for i in missing)
        raise InvalidInputError(
            f"No failed or delayed job with id {listed}; see `acai-desktop jobs list`. "
            "Nothing was queued."
            if not revived
            else f"No failed or delayed job with id {listed}; the others were queued again."
        )
    if args.wait and revived:
        revived = await _run_now(profile, [job.id for job in revived])
    _print(revived, as_json, empty="No failed or delayed jobs to retry.")
    if revived and not args.wait and not as_json:
        print(
            "Queued again: they run in the open window within half a minute, or the next "
            "time ACAI Desktop starts (`jobs retry --wait` runs them now)."
        )
    return 1 if args.wait and any(job.status == JobStatus.FAILED for job in revived) else 0


def _job_ids(args: argparse.Namespace) -> list[int] | None:
    if args.all and args.ids:
        raise InvalidInputError("Give job ids or --all, not both.")
    if args.all:
        return None
    if not args.ids:
        raise InvalidInputError("Which jobs? Give their ids, or --all for every failed job.")
    try:
        return [int(i) for i in args.ids]
    except ValueError:
        raise InvalidInputError("A job id is a number (see `acai-desktop jobs list`).") from None


async def _read(profile: Profile, action):
    # Imported here: every start of the app builds the command line, and the window
    # must not wait for the database layer (or, below, the model client) to import.
    from acai_desktop.core.learning.job_queue import open_job_queue

    async with open_job_queue(profile) as queue:
        return await action(queue)


async def _run_now(profile: Profile, job_ids: list[int]) -> list[Job]:
    """Run the jobs here and wait for them. While another process (the open window, a
    chat) holds the profile, it runs the queue: wait for it to finish them, and take
    over if it closes first."""
    from acai_desktop.core.assistant import open_assistant
    from acai_desktop.core.profile.lock import ProfileInUseError

    deadline = time.monotonic() + WAIT_SECONDS
    announced = False
    while True:
        try:
            # The user waits for these jobs: they run at the chat server's priority.
            assistant = await open_assistant(profile, learning_beside_turns=False)
        except ProfileInUseError:
            if not announced:
                print(
                    "Queued again; this profile is open in another ACAI Desktop, which runs "
                    "them (within half a minute). Waiting for it...",
                    file=sys.stderr,
                    flush=True,
                )
                announced = True
            jobs = await _read(profile, lambda queue: queue.read(job_ids))
            if not any(job.status in UNFINISHED for job in jobs) or time.monotonic() >= deadline:
                return jobs
            await asyncio.sleep(OTHER_PROCESS_POLL_SECONDS)
            continue
        try:
            left = max(1.0, deadline - time.monotonic())
            return await assistant.runner.wait_for(job_ids, timeout=left)
        finally:
            await assistant.close()


def _print(jobs: list[Job], as_json: bool, *, empty: str) -> None:
    if as_json:
        print(json.dumps({"jobs": [job.to_public_dict() for job in jobs]}, ensure_ascii=False))
        return
    if not jobs:
        print(empty)
        return
    for job in jobs:
        what = KIND_NAMES.get(job.kind, job.kind)
        target = ", ".join(f"{k} {v}" for k, v in job.payload.items())
        line = f"#{job.id}  {job.status:<8} {what} ({target}), attempts {job.attempts}"
        if job.status == JobStatus.FAILED and not job.retryable:
            line += ", can't succeed"
        waits_until = job.waits_until()
        if waits_until:
            line += (
                f", waits until {local_time_text(waits_until)} (`jobs retry {job.id}` runs it now)"
            )
        print(line)
        if job.last_error and job.status != JobStatus.DONE:
            print(f"      {job.last_error}")
