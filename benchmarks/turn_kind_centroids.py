"""``python -m benchmarks.turn_kind_centroids``: the task analysis' meaning signal made
from the router's labelled turns (``core/routing/turn_meaning.py``): each text kind's
mean WordLlama vector, normalised, written to ``resources/routing/``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.resources import resource_path
from acai_desktop.core.routing.turn_meaning import CENTROIDS_FILE, KINDS

DEV_SET = Path(__file__).parent / "data" / "router" / "dev.jsonl"


def centroids(embedder: WordLlamaEmbedder, prompts: Path = DEV_SET) -> dict:
    items = [json.loads(line) for line in prompts.read_text(encoding="utf-8").splitlines()]
    texts = {kind: [i["text"] for i in items if i["kind"] == kind and not i.get("attachments")]
             for kind in KINDS}  # fmt: skip
    result = {}
    for kind, examples in texts.items():
        mean = embedder.embed_sync(examples).mean(axis=0)
        result[str(kind)] = [round(float(x), 6) for x in mean / np.linalg.norm(mean)]
    return {
        "embedder": embedder.name,
        "examples": {str(kind): len(examples) for kind, examples in texts.items()},
        "centroids": result,
    }


def main() -> int:
    path = resource_path(*CENTROIDS_FILE)
    path.write_text(json.dumps(centroids(WordLlamaEmbedder())) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
