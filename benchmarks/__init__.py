"""Benchmarks and the evaluations only developers run, kept out of the product.

Run from the repository (a dev install or the repository root on ``sys.path``):
``python -m benchmarks bench retrieval …`` and ``python -m benchmarks eval retrieval …``
(``scripts/bench`` is the same). Neither the wheel nor the frozen bundle carries this
package; it imports the product (``acai_desktop``) and the lab (``acai_lab``: the
scripted model, the window driven offscreen), never the other way round (import-linter
contracts in pyproject.toml).

- ``bench``: retrieval speed (:mod:`.bench_retrieval` on the :mod:`.chat_corpus`),
  prompt size over a conversation (:mod:`.bench_conversation`), answers
  (:mod:`.bench_answers`), documents (:mod:`.bench_documents`), long use of the real
  window (:mod:`.bench_soak`, :mod:`.ui.soak_driver`), event-loop stalls
  (:mod:`.ui.bench_ui`) and start-up (:mod:`.ui.startup_probe`, :mod:`.startup_outer`);
- ``eval``: the evaluations the window's Memory health view runs too (those live in the
  product, :mod:`acai_desktop.evaluation`), plus the developer-only ones here: the
  LoCoMo-format retrieval harness (:mod:`.retrieval_harness`, the ranking ideas of
  :mod:`.retrieval_variants`, a store on a server by :mod:`.scratch_store`), the grounding
  check (:mod:`.eval_grounding`), :mod:`.eval_policy`, :mod:`.eval_panel_search` and the
  ablation's oracle :mod:`.ablation_oracle`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The labelled sets and corpora the benchmarks read (see data/README.md).
DATA_DIR = Path(__file__).parent / "data"
#: The repository's root: a child process started by a benchmark imports ``benchmarks``
#: from here, wherever it was started from.
REPOSITORY = Path(__file__).resolve().parent.parent


def python_command(module: str = "benchmarks") -> list[str]:
    """How to run ``module`` (``benchmarks`` or one of its modules) in a child process."""
    return [sys.executable, "-m", module]


def child_environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with the repository first on ``PYTHONPATH``, so a
    child started from any directory imports this very ``benchmarks`` package."""
    env = dict(os.environ if env is None else env)
    paths = [str(REPOSITORY), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env
