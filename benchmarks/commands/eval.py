"""``python -m benchmarks eval ...``: measure retrieval and memory on a LoCoMo-format dataset.

``eval retrieval --dataset FILE`` ingests each sample into a fresh temporary profile
and scores recall_any@k / recall_all@k of the orchestrator's retrieval (see
:mod:`benchmarks.retrieval_harness`). The options after ``--k`` try one idea
at a time against the defaults (the figures are in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from acai_desktop.commands.arguments import add_common_arguments, add_model_arguments
from acai_desktop.commands.runner import profile_of
from acai_desktop.core.errors import InvalidInputError
from benchmarks.commands.embedders import add_embedder_argument, offline_embedder
from benchmarks.commands.eval_ablation import add_ablation_parser
from benchmarks.commands.eval_router import add_router_parser


def parse_positive_list(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InvalidInputError(
            f"{what} must be comma-separated whole numbers, not {text!r}."
        ) from None
    if not values or any(v <= 0 for v in values):
        raise InvalidInputError(f"{what} must be positive whole numbers, not {text!r}.")
    return values


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_common_arguments(common, store=False)
    parser = subparsers.add_parser(
        "eval", parents=[common], help="evaluate retrieval and memory on a LoCoMo-format dataset"
    )
    actions = parser.add_subparsers(dest="eval_action", metavar="ACTION", required=True)

    retrieval = actions.add_parser(
        "retrieval",
        parents=[common],
        help="recall@k of hybrid retrieval on a dataset",
        description="Ingest each sample into a temporary profile and score retrieval.",
    )
    retrieval.add_argument("--dataset", required=True, help="LoCoMo-format JSON file")
    retrieval.add_argument("--unit", choices=("turns", "observations"), default="turns")
    retrieval.add_argument("--k", default="1,5,10,20", help="cut-offs, e.g. 1,5,10,20")
    retrieval.add_argument("--json", action="store_true", help="print one JSON object")
    retrieval.add_argument(
        "--store",
        metavar="URL",
        help="keep each sample's profile on this PostgreSQL server (a database of its own, "
        "dropped after; the user needs CREATEDB) instead of a SQLite file",
    )
    add_embedder_argument(retrieval)
    ideas = retrieval.add_argument_group("ideas (each changes one thing from the defaults)")
    ideas.add_argument("--fusion", choices=("normalised", "rrf", "lexical", "semantic"))
    ideas.add_argument(
        "--message-context",
        type=float,
        metavar="W",
        help="BM25 weight of a message's neighbouring turns (default 0.5; 0: the message alone)",
    )
    ideas.add_argument(
        "--author-boost",
        type=float,
        metavar="W",
        help="score + W for a message whose author the question names (default 0.2)",
    )
    ideas.add_argument(
        "--message-semantic",
        type=float,
        metavar="W",
        help="weight of a message's cosine with the question (default 0.1; 0: words only)",
    )
    ideas.add_argument(
        "--message-vector-context",
        type=float,
        metavar="W",
        help="weight of the neighbouring turns' cosines in a message's (default 0.5; 0: its own)",
    )
    ideas.add_argument("--prf", type=int, metavar="N", help="pseudo-relevance feedback docs")
    ideas.add_argument("--no-stop-words", action="store_true")
    ideas.add_argument("--semantic-query", choices=("raw", "terms"))
    ideas.add_argument("--lexical-norm", choices=("max", "saturate"))
    ideas.add_argument("--semantic-norm", choices=("minmax", "raw"))
    ideas.add_argument(
        "--date-boost",
        type=float,
        metavar="W",
        help="score + W for a message written on a day or month the question names (0.5)",
    )
    ideas.add_argument(
        "--event-window",
        type=float,
        metavar="W",
        help="score + W for a message on the side of an event the question names "
        "('before I moved'; default 0.05)",
    )
    ideas.add_argument(
        "--no-adjustments", action="store_true", help="no importance/recency adjustment"
    )
    retrieval.set_defaults(handler=run_retrieval)

    grounding = actions.add_parser(
        "grounding",
        parents=[common],
        help="how the grounding check judges the dataset's gold facts (no model)",
        description="Check each gold fact against the turns it cites (supported) and "
        "against other turns of its speaker (unsupported).",
    )
    grounding.add_argument("--dataset", required=True, help="LoCoMo-format JSON file")
    grounding.add_argument("--json", action="store_true", help="print one JSON object")
    grounding.set_defaults(handler=run_grounding)

    extraction = actions.add_parser(
        "extraction",
        parents=[common],
        help="what the memory processor stores from a dataset, against its gold facts",
        description="Play each speaker of each sample as the user through the real "
        "critical-info processor with the configured models, and score the stored facts "
        "against the speaker's gold facts.",
    )
    extraction.add_argument("--dataset", required=True, help="LoCoMo-format JSON file")
    add_model_arguments(extraction, "model name for triage and extraction")
    extraction.add_argument(
        "--limit", type=int, metavar="N", help="the first N sessions of each sample"
    )
    extraction.add_argument(
        "--judge", action="store_true", help="ask the model whether two facts are the same"
    )
    extraction.add_argument("--json", action="store_true", help="print one JSON object")
    extraction.set_defaults(handler=run_extraction)

    updates = actions.add_parser(
        "updates",
        parents=[common],
        help="does the memory follow facts that change (update accuracy, stale memories)",
        description="A scripted user states facts, then new values of them, through the "
        "real processors with the configured models; prints update accuracy and the stale "
        "memory rate.",
    )
    add_model_arguments(updates, "model name for triage, extraction and reconcile")
    updates.add_argument(
        "--unsaid",
        type=Path,
        metavar="FILE",
        help="instead: facts that change without a word (JSON lines {fact, category, "
        "learned, changed}; benchmarks/data/updates/dev.jsonl): the stale-memory rate with "
        "and without the Review, on a test clock, no model needed",
    )
    updates.add_argument("--json", action="store_true", help="print one JSON object")
    updates.set_defaults(handler=run_updates)

    policy = actions.add_parser(
        "policy",
        parents=[common],
        help="does the memory policy keep what lasts (labelled user statements)",
        description="Play labelled user statements through the real critical-info processor "
        "(scripted extraction returns each statement's labelled fact) and print how many "
        "long-term ones are kept long-term and how many transient ones are.",
    )
    policy.add_argument(
        "--statements", metavar="FILE", help="labelled statements (JSON lines); default: built in"
    )
    policy.add_argument(
        "--facts-by",
        choices=("labels", "rules"),
        default="labels",
        help="labels: extraction returns each statement's labelled fact (the policy alone); "
        "rules: the processor picks facts from the statement itself, as with the bundled "
        "model (no model call)",
    )
    policy.add_argument("--json", action="store_true", help="print one JSON object")
    policy.set_defaults(handler=run_policy)

    bearings = actions.add_parser(
        "bearings",
        parents=[common],
        help="lasting facts that reach a request they share no word with (diet, home)",
        description="List the labelled statements' facts that bear on a kind of request "
        "(food; somewhere near) and count the transient ones that would; with --dataset, "
        "ask each sample's questions of a profile of the facts the rules take from its "
        "user's turns, and of another sample's, and count the prompts a bearing fact reaches.",
    )
    bearings.add_argument(
        "--statements", metavar="FILE", help="labelled statements (JSON lines); default: built in"
    )
    bearings.add_argument("--dataset", help="LoCoMo-format JSON file (optional)")
    bearings.add_argument("--json", action="store_true", help="print one JSON object")
    bearings.set_defaults(handler=run_bearings)

    panel_search = actions.add_parser(
        "panel-search",
        parents=[common],
        help="recall@k of the memory panel's search on labelled queries",
        description="Store a labelled profile of memories in a temporary profile, ask the "
        "panel's search each labelled query, and print recall@k and how often the "
        "expected memories rank above the others.",
    )
    panel_search.add_argument(
        "--queries", metavar="FILE", help="labelled profile and queries (JSON); default: built in"
    )
    panel_search.add_argument("--k", type=int, default=20, help="cut-off (default 20)")
    panel_search.add_argument("--json", action="store_true", help="print one JSON object")
    panel_search.set_defaults(handler=run_panel_search)

    documents_floor = actions.add_parser(
        "documents-floor",
        parents=[common],
        help="the relevance floor of document passages (each session a document)",
        description="Write each sample's sessions as documents in a temporary profile, search "
        "them with its questions and with another sample's, and print how many passages pass "
        "the relevance floor and the recall it keeps.",
    )
    documents_floor.add_argument("--dataset", required=True, help="LoCoMo-format JSON file")
    documents_floor.add_argument("--k", type=int, default=5, help="passages per search (5)")
    documents_floor.add_argument(
        "--samples", type=int, metavar="N", help="only the first N samples (default: all)"
    )
    documents_floor.add_argument("--json", action="store_true", help="print one JSON object")
    documents_floor.set_defaults(handler=run_documents_floor)

    add_ablation_parser(actions, common)
    add_router_parser(actions, common)


def _options(args: argparse.Namespace):
    from acai_desktop.core.memory.retrieval import RetrievalWeights
    from benchmarks.retrieval_harness import HarnessOptions
    from benchmarks.retrieval_variants import RetrievalVariant

    # Weights are numbers the app ranks with; a variant is an idea it does not use.
    weights: dict = {}
    variant: dict = {}
    if args.fusion:
        variant["fusion"] = args.fusion
    if args.prf:
        variant["prf_docs"] = args.prf
    if args.no_stop_words:
        variant["stop_words"] = False
    if args.semantic_query:
        variant["semantic_query"] = args.semantic_query
    if args.lexical_norm:
        variant["lexical_norm"] = args.lexical_norm
    if args.semantic_norm:
        variant["semantic_norm"] = args.semantic_norm
    if args.message_context is not None:
        weights["message_context"] = args.message_context
    if args.message_semantic is not None:
        weights["message_semantic"] = args.message_semantic
    if args.message_vector_context is not None:
        weights["message_vector_context"] = args.message_vector_context
    if args.author_boost is not None:
        weights["author"] = args.author_boost
    if args.date_boost is not None:
        weights["on_date"] = args.date_boost
    if args.event_window is not None:
        weights["event_window"] = args.event_window
    if args.no_adjustments:
        weights.update(importance=0.0, recency=0.0)
    return HarnessOptions(
        unit=args.unit,
        ks=parse_positive_list(args.k, "--k"),
        weights=RetrievalWeights(**weights),
        variant=RetrievalVariant(**variant),
        store=_server(getattr(args, "store", None)),
    )


def _server(url: str | None) -> str | None:
    from acai_desktop.core.store.store_url import is_server_url

    if url is not None and not is_server_url(url):
        raise InvalidInputError(f"--store must be a postgresql:// URL, not {url!r}.")
    return url


ITEMS_OF_UNIT = {"turns": "messages of past chats", "observations": "facts"}


def format_report(report: dict) -> str:
    ks = list(report["recall_any"])
    lines = [
        f"Retrieval on {report['questions']} questions, {report['memories']} items "
        f"(unit: {report['unit']}, as {ITEMS_OF_UNIT.get(report['unit'], 'items')}; "
        f"excluded: {report['excluded']['adversarial']} adversarial, "
        f"{report['excluded']['no_evidence']} without evidence)",
        "",
        f"{'':<14}" + "".join(f"{'@' + k:>8}" for k in ks),
        f"{'recall_any':<14}" + "".join(f"{report['recall_any'][k]:>8.3f}" for k in ks),
        f"{'recall_all':<14}" + "".join(f"{report['recall_all'][k]:>8.3f}" for k in ks),
    ]
    reachable = report["reachable"]
    if reachable["questions"] < report["questions"]:
        share = reachable["questions"] / max(report["questions"], 1)
        lines += [
            "",
            f"{reachable['questions']} questions ({share:.1%}, the ceiling of recall_any) "
            "have an evidence turn that a stored item carries; recall_any among them:",
            f"{'':<14}" + "".join(f"{reachable['recall_any'][k]:>8.3f}" for k in ks),
        ]
    lines += [
        "",
        "per category (recall_any / recall_all):",
    ]
    for category, figures in report["per_category"].items():
        cells = "".join(
            f"{figures['recall_any'][k]:>8.3f}/{figures['recall_all'][k]:.3f}" for k in ks
        )
        lines.append(f"  {category:<4} n={figures['questions']:<5}{cells}")
    lines += compared_lines(report) + floor_lines(report)
    latency = report["latency_ms"]
    malformed = report["malformed_evidence"]
    lines += [
        "",
        f"latency: p50 {latency['p50']:.2f} ms, p95 {latency['p95']:.2f} ms (query embedding "
        "included)",
        f"evidence entries: {malformed['entries']}; split {malformed['split']}, skipped "
        f"{malformed['skipped']}, unknown ids {malformed['unknown']}",
    ]
    return "\n".join(lines)


def compared_lines(report: dict) -> list[str]:
    """The app's ranking beside each signal alone, from the same run."""
    compared = report.get("compared") or {}
    if not compared:
        return []
    ks = list(report["recall_any"])
    deepest = "10" if "10" in ks else ks[-1]
    rankings = {"app": report, **{f"{name} only": figures for name, figures in compared.items()}}
    lines = [
        "",
        f"the app's ranking beside each signal alone (recall_any@k; recall_all@{deepest}):",
        f"{'':<16}" + "".join(f"{'@' + k:>8}" for k in ks) + f"{'all@' + deepest:>9}",
    ]
    for name, figures in rankings.items():
        cells = "".join(f"{figures['recall_any'][k]:>8.3f}" for k in ks)
        lines.append(f"  {name:<14}{cells}{figures['recall_all'][deepest]:>9.3f}")
    lines.append(f"per category, recall_any@{deepest} / recall_all@{deepest}:")
    lines.append(f"{'':<11}" + "".join(f"{name:>16}" for name in rankings))
    for category in report["per_category"]:
        cells = ""
        for figures in rankings.values():
            of = figures["per_category"].get(category)
            cells += (
                f"{of['recall_any'][deepest]:>10.3f}/{of['recall_all'][deepest]:.3f}"
                if of
                else f"{'–':>16}"
            )
        lines.append(f"  {category:<9}{cells}")
    return lines


def floor_lines(report: dict) -> list[str]:
    floor = report.get("floor")
    if not floor:
        return []
    real, off_topic = floor["real"], floor["off_topic"]
    lines = [
        "",
        f"relevance floor, top {floor['k']}: items that pass per question — real questions "
        f"{real['passing_per_question']:.2f} (recall_any@{floor['k']} after the floor "
        f"{real['recall_any']:.3f})",
    ]
    if off_topic["questions"]:
        lines.append(
            f"  off-topic ({off_topic['questions']} questions asked of another sample's "
            f"profile): {off_topic['passing_per_question']:.2f}"
        )
    return lines


def run_retrieval(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.retrieval_harness import evaluate

    options = _options(args)
    embedder = offline_embedder(args.embedder)
    dataset = load_dataset(args.dataset)
    report = asyncio.run(evaluate(dataset, options, embedder=embedder)).as_dict()
    print(json.dumps(report) if args.json else format_report(report))
    return 0


def run_grounding(args: argparse.Namespace) -> int:
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.eval_grounding import evaluate_grounding, format_grounding

    report = asyncio.run(evaluate_grounding(load_dataset(args.dataset), WordLlamaEmbedder()))
    print(json.dumps(report.as_dict()) if args.json else format_grounding(report))
    return 0


def run_extraction(args: argparse.Namespace) -> int:
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.evaluation.extraction import (
        evaluate_extraction,
        format_extraction,
        messages_to_play,
    )
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.progress import TerminalProgress

    if args.limit is not None and args.limit <= 0:
        raise InvalidInputError(f"--limit must be a positive whole number, not {args.limit}.")
    dataset = load_dataset(args.dataset)
    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    total = messages_to_play(dataset, args.limit)
    # The budget before it starts: a call to triage each message, one to extract from
    # those it passes (at most all), and a reconcile call per fact near an older one.
    print(
        f"{total} messages: about {total}–{2 * total} model calls, plus reconcile calls. "
        "Ctrl+C stops.",
        file=sys.stderr,
    )
    progress = TerminalProgress(total, "messages")
    try:
        tally = asyncio.run(
            evaluate_extraction(
                dataset,
                overrides,
                limit=args.limit,
                judge=args.judge,
                progress=progress.step,
                model_of=profile_of(args),
            )
        )
    except KeyboardInterrupt:
        progress.done()
        print("Stopped: no figures (the temporary profiles are removed).", file=sys.stderr)
        return 130
    progress.done()
    report = tally.as_dict()
    print(json.dumps(report) if args.json else format_extraction(report))
    return 0


def run_updates(args: argparse.Namespace) -> int:
    if args.unsaid is not None:
        return run_unsaid_updates(args)
    from acai_desktop.core.models.choice import ModelOverrides
    from acai_desktop.evaluation.updates import (
        SCENARIO,
        SMALL_TALK,
        evaluate_updates,
        format_updates,
    )

    messages = 2 * len(SCENARIO) + len(SMALL_TALK)
    print(f"{messages} messages: about {messages}–{3 * messages} model calls.", file=sys.stderr)
    overrides = ModelOverrides(args.provider, args.base_url, args.model)
    try:
        model_of = profile_of(args)
        report = asyncio.run(evaluate_updates(overrides, model_of=model_of)).as_dict()
    except KeyboardInterrupt:
        print("Stopped: no figures.", file=sys.stderr)
        return 130
    print(json.dumps(report) if args.json else format_updates(report))
    return 0


def run_unsaid_updates(args: argparse.Namespace) -> int:
    from benchmarks.eval_updates import evaluate, format_report

    if not args.unsaid.is_file():
        raise InvalidInputError(f"{args.unsaid} is not a file.")
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

    report = asyncio.run(evaluate(args.unsaid, WordLlamaEmbedder()))
    print(json.dumps(report) if args.json else format_report(report))
    return 0


def run_policy(args: argparse.Namespace) -> int:
    from benchmarks.eval_policy import evaluate_policy, format_policy, load_statements

    statements = load_statements(args.statements)
    report = asyncio.run(evaluate_policy(statements, by_rules=args.facts_by == "rules"))
    figures = report.as_dict()
    print(json.dumps(figures) if args.json else format_policy(figures))
    return 0


def run_bearings(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.eval_bearings import format_bearings, in_conversations, labelled
    from benchmarks.eval_policy import load_statements

    figures = labelled(load_statements(args.statements))
    if args.dataset:
        samples = load_dataset(args.dataset).samples
        if len(samples) < 2:
            raise InvalidInputError("--dataset needs two samples or more (off-topic questions).")
        figures["conversations"] = asyncio.run(in_conversations(samples))
    print(json.dumps(figures) if args.json else format_bearings(figures))
    return 0


def run_panel_search(args: argparse.Namespace) -> int:
    from benchmarks.eval_panel_search import (
        evaluate_panel_search,
        format_panel_search,
        load_panel_queries,
    )

    if args.k <= 0:
        raise InvalidInputError(f"--k must be a positive whole number, not {args.k}.")
    labelled = load_panel_queries(args.queries)
    report = asyncio.run(evaluate_panel_search(labelled, k=args.k)).as_dict()
    print(json.dumps(report) if args.json else format_panel_search(report))
    return 0


def run_documents_floor(args: argparse.Namespace) -> int:
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.eval_documents_floor import format_documents_floor, measure

    if args.k <= 0:
        raise InvalidInputError(f"--k must be a positive whole number, not {args.k}.")
    if args.samples is not None and args.samples < 2:
        raise InvalidInputError(
            "--samples must be at least 2 (off-topic questions come from another sample)."
        )
    samples = load_dataset(args.dataset).samples[: args.samples]
    report = (lambda line: print(line, file=sys.stderr, flush=True)) if not args.json else None
    (figures,) = asyncio.run(measure(samples, args.k, report=report))
    result = figures.as_dict()
    print(json.dumps(result) if args.json else format_documents_floor(result, args.k))
    return 0
