"""``eval bearings``: the labelled statements' facts that bear on a kind of request, and
the prompts of real conversations a bearing fact reaches."""

from __future__ import annotations

import asyncio
import json

from acai_desktop.evaluation.locomo import load_dataset
from benchmarks.eval_bearings import format_bearings, in_conversations, labelled
from benchmarks.eval_policy import load_statements


def test_the_users_diet_and_home_bear_and_no_transient_statement_does():
    figures = labelled(load_statements())
    diet, home = figures["kinds"]["your diet"], figures["kinds"]["where you live"]
    assert (
        "The user is pescatarian." in diet["labelled"]
        and "The user is pescatarian." in (diet["rules"])
    )
    assert "The user is based in Nairobi." in home["rules"]
    assert figures["transient_bearing"] == []
    assert "facts of transient statements that bear on a request: 0" in format_bearings(figures)


def _sample(name: str, said: str, asked: str) -> dict:
    return {
        "sample_id": name,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "7:10 pm on 3 March, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": said},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Good to know!"},
            ],
        },
        "qa": [{"question": asked, "answer": "-", "evidence": ["D1:1"], "category": 4}],
    }


def test_a_diet_reaches_its_own_food_question_and_no_other(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(
        json.dumps(
            [
                _sample("veg", "I'm vegetarian, so no meat for me.", "Any dinner ideas for me?"),
                _sample("jazz", "I love jazz and I live in Porto.", "Who is my favourite pianist?"),
            ]
        )
    )
    figures = asyncio.run(in_conversations(load_dataset(path).samples))
    real, off_topic = figures["real"], figures["off_topic"]
    assert real["questions"] == 2 and real["questions with a bearing fact"] == 1
    assert real["from evidence sessions"] == 1
    # the pianist question asked of the vegetarian's profile, the dinner one of Porto's
    assert off_topic["questions"] == 2 and "questions with a bearing fact" not in off_topic
    [shown] = figures["shown"]
    assert shown["facts"] == ["your diet: The user is vegetarian, so no meat for them."]
