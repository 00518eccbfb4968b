"""``bench router``: labelled turns replayed against several scripted model servers, once
per policy and once always to the best model (issue 42, item 7).

Seven servers on 127.0.0.1 stand for the models a user may have: a tiny built-in model;
a small, a coder and a vision model on this computer; a model on the local network,
strong at reasoning, that is down for 4 calls in every 10; a cheap and a strong cloud
model (their list prices). Each answers at its own speed and refuses a prompt past its
window, as a real server does. Each turn of the set (``router/dev.jsonl``, the
attachments' text sent with it) is analysed, routed (``core/routing``) and answered
through the app's model client with the router's fallback; each answer's measured speed
feeds the next decisions, as in the app. Per policy: the cost of the answers, their
median and p95 time, the fallbacks, and how many turns went to a model that can't do
them by their *label* (goal: 0).
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from acai_desktop.core.errors import ModelError
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ProviderName
from acai_desktop.core.models.replies import StreamStats
from acai_desktop.core.models.settings import ModelSettings
from acai_desktop.core.routing.fallback import answer_with_fallback
from acai_desktop.core.routing.known_models import capabilities_of
from acai_desktop.core.routing.model_speed import SpeedLog, speed_key
from acai_desktop.core.routing.selection import (
    MIN_QUALITY,
    Candidate,
    Policy,
    Where,
    choose_model,
)
from acai_desktop.core.routing.turn_kinds import TurnKind
from acai_desktop.core.routing.turn_needs import analyse_turn
from acai_lab.scripted_openai import FakeOpenAIServer, Reply, prompt_words
from benchmarks.eval_router import attached_file, read_prompts

DEFAULT_PROMPTS = Path(__file__).parent / "data" / "router" / "dev.jsonl"
ANSWER_WORDS = 80


@dataclass(frozen=True)
class ServerSpec:
    model: str
    where: Where
    window: int
    first_token_seconds: float
    seconds_per_word: float
    #: Down for this many calls in every ten (503), else 0.
    down_in_ten: int = 0


SERVERS = (
    ServerSpec("SmolLM2-135M-Instruct", Where.THIS_COMPUTER, 8_192, 0.02, 0.0005),
    ServerSpec("qwen2.5:3b", Where.THIS_COMPUTER, 32_768, 0.05, 0.001),
    ServerSpec("qwen2.5-coder:7b", Where.THIS_COMPUTER, 32_768, 0.10, 0.002),
    ServerSpec("llava:7b", Where.THIS_COMPUTER, 4_096, 0.10, 0.002),
    ServerSpec("qwen3:32b", Where.LOCAL_NETWORK, 40_960, 0.06, 0.0015, down_in_ten=4),
    ServerSpec("gpt-4o-mini", Where.CLOUD, 128_000, 0.15, 0.0008),
    ServerSpec("gpt-4o", Where.CLOUD, 128_000, 0.30, 0.0015),
)
BEST = "gpt-4o"


def _responder(spec: ServerSpec):
    calls = itertools.count()
    lock = threading.Lock()

    def respond(request: dict) -> Reply:
        with lock:
            call = next(calls)
        if call % 10 < spec.down_in_ten:
            return Reply(status=503, error_message="overloaded")
        if prompt_words(request) > spec.window:
            return Reply(
                status=400,
                error_code="context_length_exceeded",
                error_message=f"This model's maximum context length is {spec.window} tokens.",
            )
        return Reply(
            text=" ".join(["word"] * ANSWER_WORDS),
            delay=spec.first_token_seconds,
            chunk_delay=spec.seconds_per_word,
        )

    return respond


def _cannot_do(candidate: Candidate, kind: str, tokens: int) -> bool:
    """Whether the turn's *label* says this model can't do it."""
    caps = candidate.capabilities
    if kind == TurnKind.VISION:
        return not caps.vision
    if kind == TurnKind.LONG and tokens > candidate.window_tokens:
        return True
    return caps.quality < MIN_QUALITY.get(TurnKind(kind), 1)


def _sample(prompts: list[dict], per_kind: int) -> list[dict]:
    by_kind: dict[str, list[dict]] = {}
    for item in prompts:
        by_kind.setdefault(item["kind"], []).append(item)
    return [item for items in by_kind.values() for item in items[:per_kind]]


async def _replay(turns, candidates, clients, policy: Policy | None, speeds: SpeedLog) -> dict:
    best = next(c for c in candidates if c.model == BEST)
    cost = 0.0
    seconds, fallbacks, misrouted, unanswered = [], 0, 0, 0
    for text, kind, files, prompt in turns:
        needs = analyse_turn(text, files)
        if policy is None:
            route = choose_model(needs, [best], Policy.BEST)
        else:
            for_route = [
                replace(c, measured=speeds.speed(speed_key(c.base_url, c.model)))
                for c in candidates
            ]
            route = choose_model(needs, for_route, policy)
        if route.chosen is None:
            unanswered += 1
            continue
        if _cannot_do(route.chosen, kind, needs.prompt_tokens):
            misrouted += 1
        stats: dict[str, StreamStats] = {}
        started = time.perf_counter()

        async def call(candidate: Candidate, _prompt=prompt, _stats=stats) -> float:
            stream_stats = _stats[candidate.model] = StreamStats()
            begun = time.perf_counter()
            first = None
            async for _ in clients[candidate.model].stream_chat(
                [{"role": "user", "content": _prompt}], stats=stream_stats, model=candidate.model
            ):
                first = first if first is not None else time.perf_counter() - begun
            elapsed = time.perf_counter() - begun
            speeds.record(
                speed_key(candidate.base_url, candidate.model),
                ok=True,
                first_token_seconds=first,
                tokens_per_second=(stream_stats.completion_tokens or ANSWER_WORDS) / elapsed,
            )
            return elapsed

        def failed(candidate: Candidate, error: ModelError) -> None:
            speeds.record(speed_key(candidate.base_url, candidate.model), ok=False)

        try:
            answered = await answer_with_fallback(route, call, failed)
        except ModelError:
            unanswered += 1
            continue
        seconds.append(time.perf_counter() - started)
        fallbacks += answered.instead_of is not None
        used = stats[answered.by.model]
        caps = answered.by.capabilities
        cost += ((used.prompt_tokens or 0) * caps.price_in) / 1e6
        cost += ((used.completion_tokens or 0) * caps.price_out) / 1e6
    seconds.sort()
    return {
        "turns": len(turns),
        "answered": len(seconds),
        "unanswered": unanswered,
        "cost_usd": round(cost, 4),
        "median_seconds": round(statistics.median(seconds), 3) if seconds else None,
        "p95_seconds": round(seconds[int(len(seconds) * 0.95)], 3) if seconds else None,
        "fallbacks": fallbacks,
        "misrouted": misrouted,
    }


async def _run(prompts_path: Path, per_kind: int) -> dict:
    prompts = _sample(read_prompts(prompts_path), per_kind)
    turns = []
    for item in prompts:
        paths = [prompts_path.parent / name for name in item.get("attachments", [])]
        files = tuple(attached_file(path) for path in paths)
        texts = [
            path.read_text(encoding="utf-8")
            for path, file in zip(paths, files, strict=True)
            if not file.is_image
        ]
        turns.append((item["text"], item["kind"], files, "\n\n".join([item["text"], *texts])))
    servers = [FakeOpenAIServer().start() for _ in SERVERS]
    clients: dict[str, ModelClient] = {}
    try:
        candidates = []
        for spec, server in zip(SERVERS, servers, strict=True):
            server.responder = _responder(spec)
            server.models = [spec.model]
            settings = ModelSettings.for_preset(ProviderName.CUSTOM).model_copy(
                update={"base_url": server.base_url}
            )
            clients[spec.model] = ModelClient(settings, base_url=server.base_url)
            # The servers all listen on 127.0.0.1; where each stands for is the spec's.
            candidates.append(
                Candidate(spec.model, "scripted", spec.where, spec.window,
                          capabilities_of(spec.model), base_url=server.base_url)
            )  # fmt: skip
        report = {}
        with tempfile.TemporaryDirectory(prefix="acai-bench-router-") as folder:
            for policy in (None, *Policy):
                name = "always the best" if policy is None else str(policy)
                speeds = SpeedLog(Path(folder) / name.replace(" ", "-"))
                report[name] = await _replay(turns, candidates, clients, policy, speeds)
        return {"turns_per_kind": per_kind, "servers": [s.model for s in SERVERS], **report}
    finally:
        for client in clients.values():
            await client.close()
        for server in servers:
            server.stop()


def run_router_benchmark(prompts_path: Path = DEFAULT_PROMPTS, per_kind: int = 10) -> dict:
    return asyncio.run(_run(prompts_path, per_kind))


def format_report(report: dict) -> str:
    lines = [
        f"{report['turns_per_kind']} turns of each kind, servers: {', '.join(report['servers'])}"
    ]
    lines.append(
        f"{'policy':<24}{'cost $':>9}{'median s':>10}{'p95 s':>8}{'fallbacks':>11}"
        f"{'misrouted':>11}{'unanswered':>12}"
    )
    for name, row in report.items():
        if not isinstance(row, dict):
            continue
        lines.append(
            f"{name:<24}{row['cost_usd']:>9.4f}{row['median_seconds'] or 0:>10.3f}"
            f"{row['p95_seconds'] or 0:>8.3f}{row['fallbacks']:>11}{row['misrouted']:>11}"
            f"{row['unanswered']:>12}"
        )
    return "\n".join(lines)
