"""The extraction evaluation on the LoCoMo-format fixture, through the real processor and
SDK against the scripted server."""

import json

from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.evaluation.extraction import (
    MATCH_SIMILARITY,
    as_user_fact,
    evaluate_extraction,
    messages_to_play,
)
from acai_desktop.evaluation.locomo import Observation, load_dataset
from acai_lab.scripted_openai import Reply
from tests.support.aio import run

FIXTURE = "tests/fixtures/locomo_mini.json"

#: What the scripted extraction model says of each of Rosa's messages: one fact a gold
#: observation states, one it invents from nothing.
EXTRACTED = {
    "I signed up for an evening pottery class and made a crooked teapot.": [
        "The user takes an evening pottery class and made a crooked teapot",
        "The user's name is John",
    ],
}


def responder(body: dict) -> Reply:
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    user = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    if '"durable_fact"' in system:
        return Reply(json_obj={"durable_fact": user in EXTRACTED})
    if '"facts"' in system:
        facts = [{"fact": f, "category": "Other", "confidence": 0.9} for f in EXTRACTED[user]]
        return Reply(json_obj={"facts": facts})
    return Reply(status=500, json_obj={"error": {"message": f"unexpected request: {user!r}"}})


def test_the_match_threshold_separates_one_fact_from_two():
    vectors = WordLlamaEmbedder().embed_sync(
        [
            "The user lives in Madrid with their family",
            "The user lives in Madrid with her family",
            "The user lives in Berlin",
        ]
    )
    assert float(vectors[0] @ vectors[1]) >= MATCH_SIMILARITY
    assert float(vectors[0] @ vectors[2]) < MATCH_SIMILARITY


def test_gold_facts_are_worded_as_the_processor_stores_them():
    observation = Observation("Rosa's kitten knocked Rosa's teapot over.", "Rosa", (), 1, "")
    assert as_user_fact(observation) == "The user's kitten knocked the user's teapot over."


def test_extraction_is_scored_against_the_gold_facts(fake_openai):
    fake_openai.responder = responder
    overrides = ModelOverrides("custom", fake_openai.base_url, "fake-model")
    played = []
    report = run(
        evaluate_extraction(load_dataset(FIXTURE), overrides, progress=lambda: played.append(1))
    ).as_dict()

    messages = sum(1 for t in load_dataset(FIXTURE).samples[0].turns)
    assert report["messages"] == messages  # every turn was once the user's
    assert len(played) == messages == messages_to_play(load_dataset(FIXTURE), None)
    assert report["stored"] == 1 and report["gold"] == 6
    assert report["precision"] == 1.0 and report["unnecessary_rate"] == 0.0
    assert report["recall"] == round(1 / 6, 4)
    assert report["calls"] == {"triage": messages, "extraction": 1, "reconcile": 0}
    grounding = report["grounding"]
    assert grounding["refused_by_reason"] == {"unsupported": 1}
    assert grounding["precision_without_check"] == 0.5
    assert grounding["invented_caught"] == 1.0 and grounding["correct_lost"] == 0.0
    assert report["tokens"]["prompt"] > 0
    json.dumps(report)  # --json prints it as it is


def test_progress_prints_a_line_every_tenth_of_the_way_off_a_terminal():
    import io

    from benchmarks.progress import TerminalProgress

    out = io.StringIO()
    progress = TerminalProgress(40, "messages", out)
    for _ in range(40):
        progress.step()
    progress.done()
    lines = out.getvalue().splitlines()
    assert lines[0] == "messages 1/40" and lines[-1] == "messages 37/40"
    assert len(lines) == 10
    assert messages_to_play(load_dataset(FIXTURE), 1) < messages_to_play(
        load_dataset(FIXTURE), None
    )
