"""Why a document passage fed a replayed answer or not (see :mod:`.causes` for the order
the causes bind in): used -> withheld -> its document not indexed then -> out of the
chat's evidence scope (another project, another chat's attachment, not chosen) -> the
document search: under the relevance floor or its least score, over the documents'
share of the budget, past the passages a turn reads, or never reached."""

from __future__ import annotations

from collections.abc import Sequence

from acai_desktop.core.clock import parse_utc
from acai_desktop.core.documents.model import Document, DocumentStatus, Passage, RetrievedPassage
from acai_desktop.core.documents.prompt_block import EVIDENCE_K, EVIDENCE_MIN_SCORE, EVIDENCE_SHARE
from acai_desktop.core.memory.retrieval import RetrievalWeights
from acai_desktop.core.why_not import fixes, words
from acai_desktop.core.why_not.causes import (
    Finding,
    Lookups,
    Recorded,
    move_fixes,
    scope_words,
    used,
    withheld,
)
from acai_desktop.core.why_not.replay import Replay
from acai_desktop.core.why_not.result import Reason
from acai_desktop.core.why_not.words import Ranked, closeness


def _passage_ranked(found: Sequence[RetrievedPassage], chunk_id: int) -> Ranked | None:
    hit = next((h for h in found if h.passage.chunk_id == chunk_id), None)
    if hit is None:
        return None
    relevant = hit.relevant and hit.score >= EVIDENCE_MIN_SCORE
    evidence = round(hit.evidence, 3) if hit.evidence is not None else None
    meaning = closeness(hit.standing, RetrievalWeights().floor_passage_meaning)
    return Ranked(hit.rank, hit.score, relevant, evidence, meaning)


async def why_passage(
    replay: Replay, passage: Passage, document: Document, recorded: Recorded, lookups: Lookups
) -> Finding:
    question, chat = replay.question.content, replay.conversation
    source = next((e for e in recorded.evidence if e.chunk_id == passage.chunk_id), None)
    if source is not None:
        return used(source.rank, source.score, source.reasons, question, passage.content, "[")
    if document.id in replay.withheld.document_ids:
        return withheld(replay)
    if document.status != DocumentStatus.READY or (
        document.indexed_at and parse_utc(document.indexed_at) > replay.as_of
    ):
        return Finding(Reason.NOT_FOUND, "Its document was not indexed yet when this was asked.")
    allowed, excluded = await lookups.evidence_scope(chat.id)
    if document.id in excluded or (allowed is not None and document.id not in allowed):
        return await _document_out_of_scope(replay, document, lookups)
    note = (fixes.note(question, passage.content, chat.id),)
    ranked = _passage_ranked(replay.passages, passage.chunk_id)
    deeper = ranked is None
    if deeper:
        ranked = _passage_ranked(await replay.deeper_passages(), passage.chunk_id)
    if ranked is None:
        return Finding(
            Reason.NOT_FOUND, words.not_reached(question, passage.content, "passage"), None, note
        )
    if not ranked.relevant:
        sentence = words.below_floor(question, passage.content, ranked, "passage", EVIDENCE_K)
        if ranked.score < EVIDENCE_MIN_SCORE:
            sentence += f" Its score is also under {EVIDENCE_MIN_SCORE}, the least a passage needs."
        return Finding(Reason.BELOW_FLOOR, sentence, ranked, note)
    if deeper:
        sentence = words.past_reach(ranked, "passage", EVIDENCE_K, replay.budget_tokens)
    else:
        sentence = words.share_full(ranked, "passage", EVIDENCE_SHARE, replay.budget_tokens)
    return Finding(Reason.OVER_BUDGET, sentence, ranked, note)


async def _document_out_of_scope(replay: Replay, document: Document, lookups: Lookups) -> Finding:
    chat = replay.conversation
    if document.project_id is not None and document.project_id != chat.project_id:
        where = await scope_words(replay, lookups, document.project_id)
        return Finding(
            Reason.OTHER_SCOPE,
            f"Its document, {document.name}, is kept to {where}.",
            fixes=await move_fixes(replay, lookups, document_id=document.id),
        )
    if document.attachment:
        return Finding(
            Reason.OTHER_SCOPE,
            f"Its document, {document.name}, was attached in another chat: an attachment is "
            "evidence for its own chat only.",
        )
    return Finding(
        Reason.OTHER_SCOPE,
        f"This chat draws only on the documents chosen for it, and {document.name} is not "
        "among them (Documents: the chat's choice).",
    )
