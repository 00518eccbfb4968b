"""The meaning signal behind the task analysis: when no rule names a message's kind, the
message's WordLlama vector is compared with each kind's centroid, and a kind other than
chat wins only by a clear margin (issue 42, item 2).

Rules miss the words they were not written with ("a list and a tuple", "closures",
"the remainder when 100 is divided by 7"); meaning carries them. The centroids are the
mean vectors of the labelled turns of ``benchmarks/data/router/dev.jsonl`` (text only),
written to ``resources/routing/turn_kind_centroids.json`` by
``python -m benchmarks.turn_kind_centroids`` (a test checks they are current). They
belong to one embedder: with another (a provider's), or before WordLlama has loaded,
the rules decide alone. A message embeds in about 0.1 ms.
"""

from __future__ import annotations

import json
import logging
from typing import Protocol

import numpy as np

from acai_desktop.core.resources import resource_text
from acai_desktop.core.routing.turn_kinds import TurnKind

log = logging.getLogger(__name__)

CENTROIDS_FILE = ("routing", "turn_kind_centroids.json")
#: How much closer than chat's a kind's centroid must be to win. Chat is where a turn
#: stays when unsure: these are just above the most any of the development set's chat
#: turns came closer (code 0.058, reasoning 0.096, writing 0.073); the code and
#: reasoning the rules missed on fresh turns mostly came 0.08–0.48 closer.
MARGINS = {TurnKind.CODE: 0.06, TurnKind.REASONING: 0.12, TurnKind.WRITING: 0.15}
KINDS = (TurnKind.CHAT, TurnKind.CODE, TurnKind.REASONING, TurnKind.WRITING)


class SyncEmbedder(Protocol):
    name: str

    def embed_sync(self, texts: list[str]) -> np.ndarray: ...

    def embeds_now(self, texts: list[str]) -> bool: ...


class TurnMeaning:
    def __init__(self, embedder: SyncEmbedder, centroids: dict[TurnKind, np.ndarray]) -> None:
        self.embedder = embedder
        self.kinds = list(centroids)
        self.matrix = np.stack([centroids[kind] for kind in self.kinds])

    def kind_of(self, text: str) -> TurnKind | None:
        """A kind other than chat when the message means it clearly; None otherwise
        (or when embedding would not be instant: the embedder still loading)."""
        if not text.strip() or not self.embedder.embeds_now([text]):
            return None
        similarity = self.matrix @ self.embedder.embed_sync([text])[0]
        by_kind = dict(zip(self.kinds, similarity.tolist(), strict=True))
        lead = {
            kind: by_kind[kind] - by_kind[TurnKind.CHAT] - margin
            for kind, margin in MARGINS.items()
        }
        best = max(lead, key=lead.__getitem__)
        return best if lead[best] > 0 else None


def turn_meaning_for(embedder: object) -> TurnMeaning | None:
    """The meaning signal for ``embedder``, if the centroids were made with it (None
    without them: the rules decide alone)."""
    try:
        data = json.loads(resource_text(*CENTROIDS_FILE))
    except (OSError, ValueError) as error:
        log.warning("the task analysis' centroids can't be read (%s): rules alone", error)
        return None
    if getattr(embedder, "name", None) != data["embedder"] or not hasattr(embedder, "embed_sync"):
        return None
    centroids = {
        TurnKind(kind): np.asarray(vector, dtype=np.float32)
        for kind, vector in data["centroids"].items()
    }
    return TurnMeaning(embedder, centroids)  # type: ignore[arg-type]


def offline_turn_meaning() -> TurnMeaning | None:
    """The meaning signal with the offline embedder loaded now, as the window's turns have
    it (the command line and the evaluations: no message waits for the load)."""
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

    embedder = WordLlamaEmbedder()
    embedder.embed_sync(["load"])
    return turn_meaning_for(embedder)
