"""``acai-desktop models [--json] [--route TEXT [--policy P] [--local-only]]``.

Lists the chat models the user can reach (the configured provider, the model servers
found on this computer, OpenAI when a key is kept, the built-in model) with what is known
of each; ``--route`` says which of them would answer a message, and why the others
would not (``core/routing``). Nothing is sent to a model: the servers are only asked
what they list.
"""

from __future__ import annotations

import argparse
import asyncio
import json

from acai_desktop.commands.arguments import (
    add_common_arguments,
    add_cost_ceiling_argument,
    add_model_arguments,
)
from acai_desktop.commands.runner import command_handler
from acai_desktop.core.profile.paths import Profile
from acai_desktop.core.routing.selection import Candidate, Policy, Route


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common, store=False)
    parser = subparsers.add_parser(
        "models",
        parents=[common],
        help="list the models you can reach; say which would answer a message",
        description="List the chat models of the configured provider, of the model servers "
        "on this computer, of OpenAI (when a key is kept) and the built-in model, with their "
        "window, what they can do, where they run and their price.",
    )
    add_model_arguments(parser, "the configured provider's chat model, for this run")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--route", metavar="TEXT", help="which model would answer TEXT, and why")
    parser.add_argument(
        "--policy",
        choices=[policy.name.lower() for policy in Policy],
        default="balanced",
        help="how to choose among the models that can answer (default: balanced)",
    )
    parser.add_argument(
        "--local-only",
        action="store_true",
        help="the message holds something marked local only: no model off this computer",
    )
    add_cost_ceiling_argument(parser)
    parser.set_defaults(handler=run)


@command_handler
async def run(args: argparse.Namespace, profile: Profile) -> int:
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.core.models.settings import load_model_settings
    from acai_desktop.core.routing.reachable import reachable_candidates
    from acai_desktop.core.routing.selection import choose_model
    from acai_desktop.core.routing.turn_meaning import offline_turn_meaning
    from acai_desktop.core.routing.turn_needs import analyse_turn

    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    saved = await asyncio.to_thread(load_model_settings, profile.settings_path)
    ceiling = args.max_cost or (saved.max_answer_cost if saved else None)
    candidates, problems = await reachable_candidates(profile, overrides)
    route = None
    if args.route is not None:
        policy = Policy[args.policy.upper()]
        # The words read as the window reads them, with the meaning signal.
        needs = analyse_turn(args.route, meaning=offline_turn_meaning())
        route = choose_model(
            needs, candidates, policy, private=args.local_only, cost_ceiling=ceiling
        )
    if args.json:
        print(json.dumps(_as_json(candidates, problems, route), ensure_ascii=False, indent=2))
    else:
        _print_human(candidates, problems, route)
    return 0


def _candidate_json(candidate: Candidate) -> dict:
    caps = candidate.capabilities
    return {
        "model": candidate.model,
        "provider": candidate.provider,
        "where": str(candidate.where),
        "window_tokens": candidate.window_tokens,
        "vision": caps.vision,
        "tools": caps.tools,
        "json_schema": caps.json_schema,
        "quality": caps.quality,
        "strong_at": sorted(str(kind) for kind in caps.strong_at),
        "price_per_million": {"prompt": caps.price_in, "answer": caps.price_out},
        "known": caps.known,
        "measured": candidate.measured
        and {
            "first_token_seconds": round(candidate.measured.first_token_seconds, 3),
            "tokens_per_second": round(candidate.measured.tokens_per_second, 1),
            "error_rate": round(candidate.measured.error_rate, 3),
            "calls": candidate.measured.calls,
        },
    }


def _as_json(candidates: list[Candidate], problems: list[str], route: Route | None) -> dict:
    data: dict = {"models": [_candidate_json(c) for c in candidates], "problems": problems}
    if route is not None:
        data["route"] = {
            "kind": str(route.kind),
            "policy": str(route.policy),
            "chosen": route.chosen and _candidate_json(route.chosen),
            "reason": route.reason,
            "considered": [
                {
                    "model": c.candidate.model,
                    "provider": c.candidate.provider,
                    "ruled_out": c.ruled_out,
                    "expected_cost": round(c.expected_cost, 6),
                    "expected_seconds": round(c.expected_seconds, 2),
                }
                for c in route.considered
            ],
        }
    return data


def _print_human(candidates: list[Candidate], problems: list[str], route: Route | None) -> None:
    for problem in problems:
        print(f"! {problem}")
    if not candidates:
        print("No chat models can be reached. Start a model server or check Settings.")
    for c in candidates:
        caps = c.capabilities
        can = ", ".join(
            name for name, yes in (("vision", caps.vision), ("tools", caps.tools)) if yes
        )
        price = f"${caps.price_in:g}/${caps.price_out:g} per M" if caps.price_out else "free"
        guess = "" if caps.known else " (unknown model: guessed)"
        if (speed := c.measured) is not None:
            guess += (
                f"  measured: first words {speed.first_token_seconds:.1f} s, "
                f"{speed.tokens_per_second:.0f} tokens/s, {speed.error_rate:.0%} errors "
                f"over {speed.calls} calls"
            )
        print(
            f"{c.model:<32} {c.provider:<20} {c.where!s:<18} {c.window_tokens:>9,} tokens  "
            f"tier {caps.quality}  {price}{'  ' + can if can else ''}{guess}"
        )
    if route is None:
        return
    print()
    print(f"{route.reason} ({route.policy})")
    for c in route.considered:
        mark = "→" if c.candidate is route.chosen else ("✗" if c.ruled_out else " ")
        why = c.ruled_out or f"about {c.expected_seconds:.1f} s, ${c.expected_cost:.4f}"
        print(f"  {mark} {c.candidate.model} ({c.candidate.provider}): {why}")
