"""The text report of ``eval ablation``: a table per configuration, one per category, and
a plain sentence on where D (the app with its memory) stands against F (everything)."""

from __future__ import annotations

from acai_desktop.evaluation.ablation_results import CONFIG_NAMES, TOKEN_SHARE_GOAL
from acai_desktop.evaluation.locomo import CATEGORY_NAMES


def _share(value) -> str:
    return "  -   " if value is None else f"{value:6.1%}"


def _number(value, width: int = 8, digits: int = 0) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width},.{digits}f}"


def d_against_f_sentence(verdict: dict | None) -> str:
    if verdict is None:
        return "D against F: not measured (run both D and F)."
    metric = "judge accuracy" if verdict["metric"] == "judge" else "F1"
    share = verdict["token_share"]
    tokens = f"at {share:.1%} of F's prompt tokens" if share is not None else ""
    if verdict["difference"] >= 0:
        accuracy = (
            f"D is at least as accurate as F ({metric} {verdict['d']:.3f} vs {verdict['f']:.3f})"
        )
    else:
        accuracy = (
            f"D is less accurate than F ({metric} {verdict['d']:.3f} vs {verdict['f']:.3f}, "
            f"{verdict['difference']:+.3f})"
        )
    if verdict["goal_met"]:
        goal = "the goal (D ≥ F at a tenth of F's prompt tokens or less) is met"
    elif verdict["difference"] >= 0:
        goal = "the goal is missed on tokens alone (D's prompts are over a tenth of F's)"
    else:
        goal = f"the goal (D ≥ F at ≤ {TOKEN_SHARE_GOAL:.0%} of F's prompt tokens) is not met"
    return f"D against F: {accuracy}, {tokens}; {goal}."


def format_ablation(report: dict) -> str:
    whole = report["whole_conversation"]
    lines = [
        f"Ablation on {report['questions']} questions with {report['model']}"
        + (f", D learned by {report['learner']}" if "D" in report["configs"] else "")
        + (" (stopped early: partial results)" if report["stopped"] else ""),
        "",
        "  evidence: the share of questions whose prompt holds every evidence turn, quoted "
        "(strict) or quoted or a source of a memory in it (credited); off-topic: items per "
        "prompt for another sample's question",
        "",
        f"  {'config':<34}{'answered':>9}{'F1':>8}{'judge':>8}{'strict':>8}{'credited':>9}"
        f"{'prompt tok':>11}{'off-topic':>10}{'p50 ms':>9}{'p95 ms':>9}",
    ]
    for config, figures in report["configs"].items():
        name = f"{config} {CONFIG_NAMES[config]}"
        lines.append(
            f"  {name:<34}{figures['answered']:>9}{_number(figures['f1'], 8, 3)}"
            f"{_number(figures['judge'], 8, 3)}{_number(figures['evidence_strict'], 8, 3)}"
            f"{_number(figures['evidence_credited'], 9, 3)}"
            f"{_number(figures['prompt_tokens'], 11)}"
            f"{_number(figures['off_topic_items'], 10, 2)}"
            f"{_number(figures['latency_ms']['p50'], 9)}{_number(figures['latency_ms']['p95'], 9)}"
            + (f"   ({figures['errors']} model errors, scored 0)" if figures["errors"] else "")
        )
    memories_off_topic = [
        f"{config} {figures['off_topic_memories']:.2f}"
        for config, figures in report["configs"].items()
        if figures.get("off_topic_memories") is not None
    ]
    if memories_off_topic:
        lines.append(f"  memories among the off-topic items: {', '.join(memories_off_topic)}")
    configs = list(report["configs"])
    lines += [
        "",
        "  per category: F1 (strict evidence / credited evidence, prompt tokens) per config",
    ]
    for category, by_config in report["per_category"].items():
        count = max((f["answered"] for f in by_config.values()), default=0)
        name = CATEGORY_NAMES.get(int(category), "") if category.isdigit() else ""
        lines.append(f"  {category} {name} (n={count})")
        for config in configs:
            figures = by_config.get(config)
            if not figures:
                continue
            lines.append(
                f"    {config}{_number(figures['f1'], 8, 3)}"
                f"  ({_number(figures['evidence_strict'], 5, 3).strip()} / "
                f"{_number(figures['evidence_credited'], 5, 3).strip()}, "
                f"{_number(figures['prompt_tokens'], 5).strip()} tokens)"
            )
    lines.append("")
    if "F" in configs:
        asked = report["configs"]["F"]["answered"]
        cut = (
            f"up to {whole['most_turns_left_out']} of {whole['turns']} turns left out (the "
            f"oldest) in {whole['questions_truncated']} of {asked} questions"
            if whole["most_turns_left_out"]
            else "the whole conversation fit"
        )
        lines.append(f"  F's window: {whole['window_tokens']} tokens; {cut}.")
    storage = {c: f["storage_bytes_per_message"] for c, f in report["configs"].items()
               if f.get("storage_bytes_per_message") is not None}  # fmt: skip
    if storage:
        lines.append(
            "  storage growth: "
            + ", ".join(f"{c} {v:,.0f} bytes per message" for c, v in storage.items())
        )
    memory = report["memory"]
    if memory:
        lines.append(
            f"  memory built for D: {memory.get('facts', 0)} facts, "
            f"{memory.get('summaries', 0)} summaries; calls: triage "
            f"{memory.get('triage_calls', 0)}, extraction {memory.get('extraction_calls', 0)}, "
            f"reconcile {memory.get('reconcile_calls', 0)}"
            + (
                f"; {memory['processor_errors']} processor errors"
                if memory.get("processor_errors")
                else ""
            )
        )
    if report["prompt_tokens_from"] != "server":
        lines.append("  prompt tokens: the server reported none for some answers (estimated).")
    lines += ["", d_against_f_sentence(report["d_against_f"])]
    return "\n".join(lines)
