"""A scripted reader for ``eval ablation --scripted``: the ceiling each prompt allows.

It answers a dataset's question with the gold answer when every evidence turn of that
question is quoted in the prompt, and "I don't know." otherwise; as a judge it calls an
answer correct when it is the gold answer, normalised. So its F1 in a configuration is
the share of questions whose evidence the configuration brought into the prompt: what a
perfect reader could do with those prompts, whatever model reads them. The processors'
calls (triage, extraction, reconcile, summary) go to the rule-based scripted model.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from acai_desktop.evaluation.ablation_evidence import recognisable
from acai_desktop.evaluation.ablation_scoring import normalise_answer
from acai_desktop.evaluation.locomo import Dataset
from acai_lab.scripted_model import fake_model, last_user_text
from acai_lab.scripted_openai import Reply

DONT_KNOW = "I don't know."


def judge_reply(user: str) -> Reply | None:
    """The verdict on an ``eval ablation`` judge request (None for any other request)."""
    if "grade an answer" not in user:
        return None
    gold = re.search(r"^Gold answer: (.*)$", user, re.M)
    answer = re.search(r"^Answer: (.*)$", user, re.M)
    same = bool(gold and answer) and normalise_answer(gold[1]) == normalise_answer(answer[1])
    return Reply(json_obj={"correct": same})


def evidence_reader(
    dataset: Dataset, fallback: Callable[[dict], Reply] = fake_model
) -> Callable[[dict], Reply]:
    """A responder for the scripted server (see the module docstring)."""
    by_question: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    for sample in dataset.samples:
        text_of = {turn.dia_id: recognisable(turn.text) for turn in sample.turns}
        for question in sample.questions:
            evidence = [text_of[dia_id] for dia_id in question.evidence]
            by_question[question.question.strip()].append((question.answer, evidence))

    def respond(body: dict) -> Reply:
        user = last_user_text(body)
        verdict = judge_reply(user)
        if verdict is not None:
            return verdict
        asked = by_question.get(user.strip())
        if asked is None:
            return fallback(body)
        # Everything but the question itself: the history and the turn's data.
        contents = [str(m.get("content", "")) for m in body["messages"]]
        prompt = "\n".join([*contents[:-1], contents[-1].removesuffix(user)])
        for answer, evidence in asked:
            if evidence and all(text in prompt for text in evidence):
                return Reply(text=answer)
        return Reply(text=DONT_KNOW)

    return respond
