"""The relevance floor of document passages: a real profile's documents, indexed by the
documents service, searched with questions they answer and with ones they don't."""

from __future__ import annotations

from pathlib import Path

from acai_desktop.core.documents.model import DocumentScope, Passage, RetrievedPassage, ScopeMode
from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.context_builder import build_context
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.core.store.database import Store
from benchmarks.documents_corpus import manual_pages
from tests.support.aio import run
from tests.support.assistant import running_assistant

EMBEDDER = WordLlamaEmbedder()
OFF_TOPIC = "What did my sister cook for her birthday party last weekend?"


def _flat(text: str) -> str:
    return " ".join(text.split())


async def _indexed_manual(folder: Path) -> tuple[Store, DocumentService, list, int]:
    pages, facts = manual_pages(30)
    path = folder / "manual.txt"
    path.write_text("\n\n".join(" ".join(lines) for lines in pages), encoding="utf-8")
    store = await Store.open(folder / "profile.sqlite3")
    service = DocumentService(store, EMBEDDER, EventBus())
    report = await service.add([path])
    (document,) = await service.index_now(report.job_ids)
    return store, service, facts, document.id


def test_passages_that_answer_pass_the_floor_and_off_topic_ones_do_not(tmp_path):
    async def scenario():
        store, service, facts, _ = await _indexed_manual(tmp_path)
        try:
            assert len(service.vectors) >= 50  # enough chunks for a cosine spread
            for fact in facts[:10]:
                hits = await service.search(fact.question, k=5)
                answering = [h for h in hits if fact.key_phrase in _flat(h.passage.content)]
                assert answering and all(h.relevant for h in answering), fact.question
            off_topic = await service.search(OFF_TOPIC, k=5)
            assert len(off_topic) == 5  # the ranking still returns its best five...
            assert not any(h.relevant for h in off_topic)  # ...and none has the evidence
        finally:
            await store.close()

    run(scenario())


def test_passages_of_documents_chosen_for_the_chat_always_pass(tmp_path):
    async def scenario():
        store, service, _, document_id = await _indexed_manual(tmp_path)
        try:
            chosen = DocumentScope(ScopeMode.SOME, (document_id,))
            hits = await service.search("Summarise it for me, please.", k=3, scope=chosen)
            assert len(hits) == 3 and all(h.relevant for h in hits)
            everything = await service.search("Summarise it for me, please.", k=3)
            assert not any(h.relevant for h in everything)
        finally:
            await store.close()

    run(scenario())


def test_a_passage_below_the_floor_is_not_placed_and_the_question_goes_alone():
    passage = Passage(7, 1, "manual.pdf", 1, 2, "", "The pump must be oiled every week.")
    below = RetrievedPassage(passage, 1, 0.4, ["semantic"], relevant=False)
    built = build_context(
        system_prompt="System.",
        user_message=OFF_TOPIC,
        budget_tokens=2000,
        evidence=[below],
    )
    prompt = "\n".join(str(message["content"]) for message in built.messages)
    assert not built.evidence and "oiled" not in prompt
    # Nothing passed: the question goes alone (the system prompt says what that means).
    assert built.messages[-1]["content"] == OFF_TOPIC and built.dropped.irrelevant == 1


def test_a_chats_attachment_always_passes_and_the_library_only_on_evidence(tmp_path, fake_openai):
    pages, _ = manual_pages(30)
    files = tmp_path / "files"
    files.mkdir()
    (files / "manual.txt").write_text(
        "\n\n".join(" ".join(lines) for lines in pages), encoding="utf-8"
    )
    (files / "notes.txt").write_text(
        "Project Heron ships its beta to the pilot customers on the ninth of March.\n",
        encoding="utf-8",
    )

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            documents, attachments = assistant.documents, assistant.attachments
            report = await documents.add([files / "manual.txt"])
            chat = await assistant.conversations.create()
            notes = await attachments.attach_file(files / "notes.txt", chat.id)
            await assistant.runner.wait_for(report.job_ids, timeout=120)
            await attachments.wait_ready([notes.id])
            return await documents.evidence_for(chat.id, "Summarise it for me, please.")

    hits = run(scenario())
    verdicts = {(hit.passage.document_name, hit.relevant) for hit in hits}
    assert ("notes.txt", True) in verdicts  # attached to ask about it
    assert {name for name, ok in verdicts if ok} == {"notes.txt"}


def test_a_search_counts_its_words_in_the_chunks_once(tmp_path):
    """The relevance floor weighs the words with the counts the lexical side took: one
    counting statement per search, not a second one after the fusion."""

    async def scenario():
        store, service, facts, _ = await _indexed_manual(tmp_path)
        statements: list[str] = []
        reading = store.submit_read

        def traced(fn, *args, **kwargs):
            def run_traced(db, *inner, **named):
                db.conn.set_trace_callback(statements.append)
                try:
                    return fn(db, *inner, **named)
                finally:
                    db.conn.set_trace_callback(None)

            return reading(run_traced, *args, **kwargs)

        store.submit_read = traced
        try:
            hits = await service.search(facts[0].question, k=5)
        finally:
            await store.close()
        return hits, statements

    hits, statements = run(scenario())
    assert hits and any(h.relevant for h in hits)
    counting = [s for s in statements if "count(*)" in s and "chunks_fts" in s]
    assert len(counting) == 1, counting
