"""``acai-desktop chat MESSAGE``: one turn, headless, in the profile's latest conversation.

``--attach FILE`` sends files with it (documents, images). Prints the answer, the
memories that fed it and, with ``--wait-jobs``, what the background processors stored
because of it. Nothing is left running on return: the job runner, the model client and
a Local model server are all stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from acai_desktop.commands.arguments import (
    add_common_arguments,
    add_cost_ceiling_argument,
    add_model_arguments,
)
from acai_desktop.commands.jobs import KIND_NAMES
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.clock import local_time_text
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.records.conversations import MESSAGE_TIER, AnswerSource
from acai_desktop.core.records.jobs import Job, JobStatus
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus, Suggestion

if TYPE_CHECKING:  # the model client (openai) loads when a chat starts, not with --help
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.documents.model import Document
    from acai_desktop.core.turns.turn_result import TurnResult

#: How long --wait-jobs waits for the turn's processors before giving up.
JOB_WAIT_SECONDS = 600
#: How often --wait-jobs looks whether a job now waits for the server (Retry-After).
WAIT_STEP = 2.0
FINISHED_JOBS = (JobStatus.DONE, JobStatus.FAILED)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "chat",
        help="send one message headless and print the answer",
        description="Send one message in the profile's latest conversation (or a new one) "
        "and print the answer with the memories used.",
    )
    add_common_arguments(parser)
    parser.add_argument("message", help="what to say")
    add_model_arguments(parser, "model name for chat, triage, extraction and summary")
    parser.add_argument(
        "--policy",
        choices=("best", "balanced", "cheapest", "fastest", "local_only", "off"),
        help="for this run, send the message to the model that fits it by this policy (off: "
        "always the chat's model); default: as chosen in Settings",
    )
    add_cost_ceiling_argument(parser)
    parser.add_argument("--new", action="store_true", help="start a new conversation")
    parser.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="send FILE with the message (repeat for more): a document, quoted as the "
        "chat's own, or an image (PNG, JPEG, WebP, GIF; up to 20 MB) for a model that sees",
    )
    parser.add_argument(
        "--local-only",
        action="store_true",
        help="mark the conversation local only first: it, and what is learned from it, "
        "never reach a model that runs elsewhere",
    )
    parser.add_argument(
        "--wait-jobs",
        action="store_true",
        help="wait for this turn's background processors and print what they stored",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.assistant import open_assistant
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.turns.turn_log import validate_user_message

    # Refused before anything is opened or written: an empty message with --new would
    # otherwise leave an empty conversation behind.
    validate_user_message(args.message)

    overrides = ModelOverrides(args.provider, args.base_url, args.model, args.policy, args.max_cost)
    # One turn, then (with --wait-jobs) its learning: never both at once, so learning
    # shares the chat's server instead of waiting at the lowest priority on its own.
    assistant = await open_assistant(profile, overrides, learning_beside_turns=False)
    try:
        for warning in assistant.warnings:
            print(f"acai-desktop: warning: {warning}", file=sys.stderr)
        conversation = None if args.new else await assistant.conversations.latest()
        # Attached first (held when the chat is new): a refused file leaves no empty chat.
        held_by = conversation.id if conversation is not None else None
        attached = await _attach(assistant, args.attach, held_by)
        if conversation is None:
            conversation = await assistant.conversations.create()
            await assistant.attachments.bind([d.id for d in attached], conversation.id)
        if args.local_only:
            await assistant.conversations.set_local_only(conversation.id, True)
        result = await assistant.orchestrator.send(
            conversation.id, args.message, attachment_ids=[d.id for d in attached]
        )
        jobs = await _wait_for_jobs(assistant, result) if args.wait_jobs else []
        stored = await _stored_by_jobs(assistant, result) if args.wait_jobs else []
        suggested = await _suggested_by_jobs(assistant, result) if args.wait_jobs else []
        forgotten = await _forgotten_by_jobs(assistant, result) if args.wait_jobs else []
    finally:
        await assistant.close()
    failed = [job for job in jobs if job.status == JobStatus.FAILED]
    if args.json:
        output = _as_json(result, stored, suggested) | {
            "attached": [{"id": d.id, "name": d.name, "kind": d.kind} for d in attached],
            "forgotten": [{"id": m.id, "content": m.content} for m in forgotten],
            "jobs": [job.to_public_dict() for job in jobs],
        }
        print(json.dumps(output, ensure_ascii=False, indent=2))
    else:
        _print_human(result, stored, args.wait_jobs, suggested, failed)
        if forgotten:
            print("\nForgotten, as you asked (`memories restore ID` brings one back):")
            for memory in forgotten:
                print(f"  #{memory.id} {memory.content}")
    return 0 if result.status == "complete" else 1


async def _attach(
    assistant: Assistant, paths: list[str], conversation_id: int | None
) -> list[Document]:
    """The files attached for the message (held by the new chat when it starts one). A
    refused file stops the command before anything is sent, and those attached before
    it are removed: a run that said no leaves nothing behind."""
    attached = []
    try:
        for path in paths:
            attached.append(await assistant.attachments.attach_file(path, conversation_id))
    except BaseException:
        for document in attached:
            await assistant.attachments.remove(document.id)
        raise
    return attached


async def _wait_for_jobs(assistant: Assistant, result: TurnResult) -> list[Job]:
    """Wait for the turn's jobs, saying on stderr what for and for how long; a job the
    server asked to wait past the limit (Retry-After) is named, and the wait ends at
    once rather than in silence at the limit."""
    if not result.job_ids:
        return []
    runner = assistant.runner
    jobs = [await runner.jobs.get(job_id) for job_id in result.job_ids]
    names = ", ".join(dict.fromkeys(KIND_NAMES.get(job.kind, job.kind) for job in jobs))
    _tell(f"Waiting up to {JOB_WAIT_SECONDS} s for this turn's background jobs ({names})…")
    deadline = datetime.now(UTC) + timedelta(seconds=JOB_WAIT_SECONDS)
    told: set[tuple[int, str]] = set()
    while True:
        left = (deadline - datetime.now(UTC)).total_seconds()
        try:
            return await runner.wait_for(result.job_ids, timeout=max(0.0, min(left, WAIT_STEP)))
        except TimeoutError:
            pass
        jobs = [await runner.jobs.get(job_id) for job_id in result.job_ids]
        unfinished = [job for job in jobs if job.status not in FINISHED_JOBS]
        for job in unfinished:
            waits_until = job.waits_until()
            if waits_until is not None and (job.id, job.run_after) not in told:
                told.add((job.id, job.run_after))
                why = (
                    "the model server asked to wait"
                    if "RateLimited" in (job.last_error or "")
                    else "it failed and tries again"
                )
                _tell(
                    f"Job #{job.id} ({KIND_NAMES.get(job.kind, job.kind)}) waits until "
                    f"{local_time_text(waits_until)}: {why} ({job.last_error})."
                )
        # Every job left waits for the server past the limit: no use waiting for it.
        later = [job.waits_until() for job in unfinished]
        beyond = bool(later) and all(at is not None and at >= deadline for at in later)
        if datetime.now(UTC) >= deadline or beyond:
            ids = ", ".join(f"#{job.id}" for job in unfinished)
            _tell(
                f"Stopped waiting: job {ids} has not finished. It runs when the window is "
                "open or at the next `chat --wait-jobs`; `jobs list` shows it, `jobs retry "
                "ID` runs it now."
            )
            return jobs


def _tell(text: str) -> None:
    print(f"acai-desktop: {text}", file=sys.stderr, flush=True)


async def _stored_by_jobs(assistant: Assistant, result: TurnResult) -> list[MemoryItem]:
    if not result.job_ids:
        return []
    return await assistant.memories.stored_from_messages([result.user_message.id, result.answer.id])


async def _suggested_by_jobs(assistant: Assistant, result: TurnResult) -> list[Suggestion]:
    """With "Ask before remembering", what this turn's processors proposed instead."""
    pending = await assistant.suggestions.pending(limit=10_000)
    return [s for s in pending if s.message_id == result.user_message.id]


async def _forgotten_by_jobs(assistant: Assistant, result: TurnResult) -> list[MemoryItem]:
    """What the user's message asked to forget ("Forget that I have a dog"): memories
    forgotten since it was written (the profile is locked to this command meanwhile)."""
    from acai_desktop.core.memory.front_door import MemoryFilter

    if not result.job_ids:
        return []
    forgotten = await assistant.memories.list(MemoryFilter(statuses=[MemoryStatus.FORGOTTEN]))
    return [m for m in forgotten if m.updated_at >= result.user_message.created_at]


def _as_json(result: TurnResult, stored: list[MemoryItem], suggested: list[Suggestion]) -> dict:
    return {
        "conversation_id": result.conversation_id,
        # The answer's message id (`memories why --answer N` takes it).
        "answer_id": result.answer.id,
        "answer": result.answer.content,
        "status": str(result.status),
        "error": result.answer.error,
        "memories_used": [_used_as_json(result, used) for used in result.memories_used],
        "stored": [
            {"id": m.id, "content": m.content, "kind": str(m.kind), "status": str(m.status)}
            for m in stored
        ],
        "suggested": [{"id": s.id, "content": s.content} for s in suggested],
        # The document passages that fed the answer, by rank.
        "evidence_used": [
            {
                "document": e.document_name,
                "document_id": e.document_id,
                "chunk_id": e.chunk_id,
                "page": e.page,
                "rank": e.rank,
                "score": round(e.score, 4),
                "snippet": e.snippet,
            }
            for e in result.evidence_used
        ],
        "prompt_tokens": result.prompt_tokens,
        "model": result.answer.model,
        # The router's decision, when turns are routed: its reason, the fallback if the
        # first model failed, and every candidate with what ruled it out.
        "route": result.route,
        # The local-only items left out because the answering model runs elsewhere.
        "withheld": result.withheld,
    }


def _used_as_json(result: TurnResult, used: AnswerSource) -> dict:
    """One item that fed the answer: a memory (``tier`` its kind) or a message recalled
    from a conversation (``tier`` "message", with where it was said)."""
    figures = {"rank": used.rank, "score": round(used.score, 4), "reasons": used.reasons}
    if used.recalled_message_id is None:
        return {
            "id": used.memory_id,
            "tier": result.used_kinds.get(used.memory_id, ""),
            "content": result.used_contents.get(used.memory_id, ""),
            **figures,
        }
    message = result.recalled.get(used.recalled_message_id)
    return {
        "id": None,
        "tier": MESSAGE_TIER,
        "conversation_id": message.conversation_id if message else None,
        "message_id": used.recalled_message_id,
        "conversation_title": message.conversation_title if message else "",
        "author": message.speaker if message else "",
        "created_at": message.created_at if message else None,
        "content": message.content if message else "",
        **figures,
    }


def _print_human(
    result: TurnResult,
    stored: list[MemoryItem],
    waited: bool,
    suggested: list[Suggestion],
    failed: list[Job],
) -> None:
    print(result.answer.content or "(no answer)")
    if result.route is not None:
        print(f"\n({result.route['fallback'] or result.route['reason']})")
    if result.withheld is not None:
        print(f"\n({result.withheld['reason']})")
    if result.answer.error:
        print(f"\n[{result.status}] {result.answer.error}", file=sys.stderr)
    if result.memories_used:
        print("\nMemories used:")
        for used in result.memories_used:
            reasons = ", ".join(used.reasons)
            message = result.recalled.get(used.recalled_message_id or -1)
            if message is not None:
                where = f'from the chat "{message.conversation_title}", {message.created_at[:10]}'
                print(
                    f"  {used.rank}. {message.speaker}: {message.content}  ({where}; {reasons}; "
                    f"{used.score:.3f})"
                )
                continue
            content = result.used_contents.get(used.memory_id, "")
            print(f"  {used.rank}. #{used.memory_id} {content}  ({reasons}; {used.score:.3f})")
    if result.evidence_used:
        print("\nSources: " + "; ".join(dict.fromkeys(e.citation() for e in result.evidence_used)))
        for e in result.evidence_used:
            print(f"  [{e.rank}] {e.citation()} (chunk {e.chunk_id}, {e.score:.3f}): {e.snippet}")
    if waited and (stored or not failed):
        print("\nStored by the background processors:" if stored else "\nNothing new stored.")
        for memory in stored:
            print(f"  #{memory.id} [{memory.kind}/{memory.status}] {memory.content}")
    for job in failed:
        # Not "nothing new stored": the job never got to learn anything.
        what = KIND_NAMES.get(job.kind, job.kind)
        print(
            f"\nThe background job to {what} failed: {job.last_error or 'no reason recorded'} "
            f"(job #{job.id}; `acai-desktop jobs retry {job.id}` runs it again)."
        )
    if suggested:
        print("\nWaiting for your yes (Ask before remembering; `memories accept ID`):")
        for suggestion in suggested:
            print(f"  {suggestion.id}. {suggestion.content}")
