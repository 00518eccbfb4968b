"""What a turn gives back: the messages, the plan, what fed the answer and what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field

from acai_desktop.core.conversations.chat_settings import EffectiveSettings
from acai_desktop.core.conversations.custom_instructions import UsedInstructions
from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.memory.context_builder import UsedEvidence
from acai_desktop.core.memory.explain import matching_sentences
from acai_desktop.core.records.conversations import (
    AnswerSource,
    Message,
    MessageStatus,
    RecalledMessage,
)
from acai_desktop.core.turns.planner import Plan
from acai_desktop.core.turns.token_usage import TokenUsage


@dataclass
class TurnResult:
    conversation_id: int
    user_message: Message
    answer: Message
    plan: Plan
    # The user's message as the prompt carried it (the turn's data, then their words),
    # kept with the answer: the next turns' history repeats it word for word
    # (prompt_history.history_text). None: no prompt was built.
    asked_as: str | None = None
    memories_used: list[AnswerSource] = field(default_factory=list)
    used_contents: dict[int, str] = field(default_factory=dict)  # by memory id
    used_kinds: dict[int, str] = field(default_factory=dict)  # by memory id: fact, note...
    # The messages of past conversations among memories_used, by message id.
    recalled: dict[int, RecalledMessage] = field(default_factory=dict)
    prompt_tokens: int = 0
    job_ids: list[int] = field(default_factory=list)
    # The document passages that fed the answer ("Sources: file.pdf, p. 12").
    evidence_used: list[EvidenceSource] = field(default_factory=list)
    # The user's custom instructions the prompt carried.
    instructions: UsedInstructions | None = None
    # The model, temperature and context budget the turn ran with.
    settings: EffectiveSettings | None = None
    # What the answer cost, as the server reported it (None: the stream never ended).
    usage: TokenUsage | None = None
    # Who wrote the answer when not the chat's model: the app, from memory
    # (core.turns.memory_commands).
    answered_by: str | None = None
    # The router's decision, when the profile routes turns (turns/routed_answer.py).
    route: dict | None = None
    # The local-only items left out of the prompt because the answering model runs
    # elsewhere, and why (turns/privacy.py).
    withheld: dict | None = None

    @property
    def status(self) -> MessageStatus:
        return self.answer.status


#: How much of a passage an answer's provenance keeps (the whole passage stays in
#: the document; this is what a list of sources shows).
SNIPPET_CHARS = 240


def evidence_source(answer_id: int, used: UsedEvidence, question: str = "") -> EvidenceSource:
    """What an answer's provenance keeps of a passage: where it is, and as its snippet
    the sentences that matched ``question`` (the opening when none shares a word)."""
    passage = used.hit.passage
    snippet = matching_sentences(passage.content, question, SNIPPET_CHARS)
    return EvidenceSource(
        message_id=answer_id,
        rank=used.rank,
        chunk_id=passage.chunk_id,
        document_id=passage.document_id,
        document_name=passage.document_name,
        page=passage.page,
        score=used.hit.score,
        reasons=list(used.hit.reasons),
        snippet=snippet,
    )
