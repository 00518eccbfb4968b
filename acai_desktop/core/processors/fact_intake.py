"""The rules every way a fact comes in shares: the learner's (core.processors.
critical_info) and other AI tools' ``remember`` (core.memory_clients).

- :class:`FactIntake.grounded`: the grounding check, with the embedder's similarity
  only where the words alone don't decide (most facts are settled on words, without a
  vector);
- :class:`FactIntake.same_fact`: a current fact in the same words that a chat of the
  given project sees (that project's and those of no project), which is said again,
  not new.
"""

from __future__ import annotations

import re

from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.processors.grounding import GroundingCheck, Verdict
from acai_desktop.core.records import MemoryItem, MemoryKind

# WordLlama cosine between two facts on one subject ("lives in Paris" / "lives in
# Berlin", "in Rome") is about 0.35-0.8; unrelated facts about the user score under 0.2.
RELATED_SIMILARITY = 0.3


def normalised(text: str) -> str:
    """A fact's words, for telling whether two say the same: lower case, no punctuation."""
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


class FactIntake:
    def __init__(
        self,
        memories: MemoryService,
        grounding: GroundingCheck,
        related_similarity: float = RELATED_SIMILARITY,
    ) -> None:
        self.memories = memories
        self.grounding = grounding
        #: Facts at least this close in meaning are on the same subject.
        self.related_similarity = related_similarity

    async def grounded(self, fact: str, evidence: str, *, in_project: bool = False) -> Verdict:
        """Whether the user's words ``evidence`` support ``fact`` (``in_project``: a
        project's chat, whose facts may be about the project's things)."""
        verdict = self.grounding.check(fact, evidence, in_project=in_project)
        if verdict.rejection != "unsupported":
            return verdict
        vectors = await self.memories.embedder.embed([fact, evidence])
        similarity = float(vectors[0] @ vectors[1])
        return self.grounding.check(fact, evidence, similarity, in_project=in_project)

    async def similar_facts(self, content: str) -> list[tuple[MemoryItem, float]]:
        """Current facts (active or temporary) close enough in meaning to be the same
        subject, closest first."""
        matches = await self.memories.similar(
            content, k=5, kinds=[MemoryKind.FACT], include_temporary=True
        )
        return [(item, score) for item, score in matches if score >= self.related_similarity]

    async def same_fact(self, content: str, project_id: int | None) -> MemoryItem | None:
        """A current fact in the same words that a chat of ``project_id`` (None: outside
        every project) sees, if there is one."""
        wanted = normalised(content)
        for existing, _ in await self.similar_facts(content):
            if existing.project_id not in (None, project_id):
                continue
            if normalised(existing.content) == wanted:
                return existing
        return None
