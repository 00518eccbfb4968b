"""``eval ablation`` through the real app (profiles, retrieval, processors, SDK) against the
scripted server, with a model that answers right exactly when the evidence is in its
prompt: so A and B must score 0, C, D and F 1.0, and a window too small for F must cost
it the questions about the oldest turns."""

import json
import threading

import pytest

from acai_desktop.core.memory.prompt_lines import MEMORY_BLOCK_TOKENS, RECALLED_HEADER
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.core.resources import resource_text
from acai_desktop.evaluation.ablation import (
    AblationOptions,
    chosen,
    evaluate_ablation,
    run_size,
    sliced,
)
from acai_desktop.evaluation.ablation_prompts import SHORT_ANSWER
from acai_desktop.evaluation.ablation_results import AblationReport
from acai_desktop.evaluation.ablation_scoring import (
    answer_f1,
    normalise_answer,
    percentiles,
    token_f1,
)
from acai_desktop.evaluation.ablation_text import format_ablation
from acai_desktop.evaluation.locomo import load_dataset
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from benchmarks.ablation_oracle import DONT_KNOW, evidence_reader, judge_reply
from tests.support.aio import run

FIXTURE = "tests/fixtures/locomo_mini.json"
DATASET = load_dataset(FIXTURE)
SAMPLE = DATASET.samples[0]
TEXT_OF = {turn.dia_id: turn.text for turn in SAMPLE.turns}
#: The one fact the scripted extraction finds (in Rosa's D2:4).
KITTEN = "We adopted a grey kitten called Pixel from the shelter."
KITTEN_FACT = "The user adopted a grey kitten called Pixel from the shelter"


def _user(body: dict) -> str:
    return [m["content"] for m in body["messages"] if m["role"] == "user"][-1]


def learns_the_kitten(body: dict) -> Reply:
    """Processors: triage says yes to one message, extraction finds one fact in it and
    invents another (which the grounding check refuses)."""
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    if '"durable_fact"' in system:
        return Reply(json_obj={"durable_fact": _user(body) == KITTEN})
    if '"facts"' in system:
        facts = [KITTEN_FACT, "The user's name is John"]
        return Reply(
            json_obj={
                "facts": [{"fact": f, "category": "Personal", "confidence": 0.9} for f in facts]
            }
        )
    return fake_model(body)


#: Answers right iff every evidence turn is in the prompt (see ablation_oracle).
scripted_reader = evidence_reader(DATASET, fallback=learns_the_kitten)


def overrides_for(server) -> ModelOverrides:
    return ModelOverrides("custom", server.base_url, "fake-model")


def test_token_f1_normalises_as_locomo_does():
    assert normalise_answer("The Crooked, teapot!") == "crooked teapot"
    assert token_f1("a crooked teapot", "The crooked teapot.") == 1.0
    assert token_f1("crooked teapot", "a crooked teapot of clay") == pytest.approx(
        2 * 1.0 * 0.5 / 1.5
    )
    assert token_f1("Wednesday", "Monday") == 0.0
    assert token_f1("", "") == 1.0 and token_f1("", "x") == 0.0


def test_multi_hop_answers_are_scored_part_by_part_and_open_ones_by_the_first():
    gold = "his sister Leila; 1:52"
    assert answer_f1("his sister Leila, 1:52", gold, 1) == 1.0
    assert answer_f1("his sister Leila", gold, 1) == 0.5
    assert answer_f1("Paris", "Paris; or maybe Lyon", 3) == 1.0
    assert answer_f1("Paris", "Paris; or maybe Lyon", 4) < 1.0


def test_percentiles():
    assert percentiles([10.0] * 19 + [1000.0]) == {"p50": 10.0, "p95": 59.5}
    assert percentiles([]) == {"p50": 0.0, "p95": 0.0}


def test_a_limit_keeps_the_questions_whose_evidence_it_keeps():
    part, questions = sliced(SAMPLE, 1)
    assert {t.session for t in part.turns} == {1}
    assert [q.question for q in questions] == ["What did Rosa make in her pottery class?",
                                               "On which day does Rosa's class meet?"]  # fmt: skip
    _, every = sliced(SAMPLE, None)
    assert len(every) == 8  # categories 1-4, the unanswerable one included; not category 5
    size = run_size(DATASET, AblationOptions(limit=2, judge=True))
    rosa = sum(1 for t in SAMPLE.turns if t.speaker == "Rosa")
    assert (size.questions, size.user_messages, size.answers) == (7, rosa, 35)
    assert size.calls_low == 70 + rosa and size.calls_high == 70 + 2 * rosa + 2


def test_per_category_takes_the_first_questions_of_each_category():
    one_each = chosen(DATASET, 1)
    asked = [(q.category, q.question) for q in one_each.samples[0].questions]
    assert asked == [
        (4, "What did Rosa make in her pottery class?"),
        (1, "Who supported Idris at the end of his race, and what was his time?"),
        (2, "When did Idris run the race?"),
        (3, "What did Rosa say about the weather?"),
    ]  # category 5 (adversarial) is never asked
    assert chosen(DATASET, None) is DATASET
    assert run_size(DATASET, AblationOptions(per_category=1)).questions == 4


def test_memory_and_retrieval_bring_the_evidence_and_the_question_alone_does_not(fake_openai):
    fake_openai.responder = scripted_reader
    steps = []
    options = AblationOptions(limit=2, judge=True)
    report = run(
        evaluate_ablation(
            DATASET, overrides_for(fake_openai), options, progress=lambda: steps.append(1)
        )
    ).as_dict()
    assert len(steps) == run_size(DATASET, options).steps
    configs = report["configs"]
    assert report["questions"] == 7 and not report["stopped"]
    assert configs["A"]["f1"] == 0.0 and configs["B"]["f1"] == 0.0
    assert configs["C"]["f1"] == configs["D"]["f1"] == configs["F"]["f1"] == 1.0
    assert configs["A"]["judge"] == 0.0 and configs["D"]["judge"] == 1.0
    assert configs["B"]["prompt_tokens"] > configs["A"]["prompt_tokens"]  # the plan
    assert configs["F"]["prompt_tokens"] > configs["A"]["prompt_tokens"]
    assert report["whole_conversation"]["most_turns_left_out"] == 0
    rosa = sum(1 for t in SAMPLE.turns if t.speaker == "Rosa")
    assert report["memory"]["facts"] == 1 and report["memory"]["triage_calls"] == rosa
    assert report["memory"]["facts_refused"] == 1 and report["memory"]["extraction_calls"] == 1
    assert report["memory"]["summaries"] == 0  # each session is within the summary budget
    assert configs["C"]["storage_bytes_per_message"] > 0
    # Whole pages: one fact may fit in the pages the messages left room in.
    assert configs["D"]["storage_bytes_per_message"] >= configs["C"]["storage_bytes_per_message"]
    assert report["storage_bytes_per_message"] == configs["D"]["storage_bytes_per_message"]
    assert report["d_against_f"]["difference"] == 0.0
    assert set(report["per_category"]) == {"1", "2", "4"}
    assert report["per_category"]["4"]["C"]["answered"] == 4
    # Every prompt of C, D and F holds every evidence turn; A's and B's are not judged.
    for config in "CDF":
        assert configs[config]["evidence_strict"] == configs[config]["evidence_credited"] == 1.0
    assert configs["A"]["evidence_strict"] is None
    assert report["per_category"]["1"]["D"]["evidence_strict"] == 1.0
    json.dumps(report)

    # D's prompts carry the learned fact; C's never do.
    prompts = [
        "\n".join(m["content"] for m in r.json["messages"])
        for r in fake_openai.chat_requests()
        if "Pixel" in _user(r.json) or "cat" in _user(r.json)
    ]
    assert any(KITTEN_FACT in p for p in prompts)
    text = format_ablation(report)
    assert "D is at least as accurate as F" in text and "goal" in text
    assert "1 multi-hop (n=2)" in text and "strict" in text
    # The question is asked as the user asked it; the short-answer request is the
    # system message's (retrieval reads the user's words only).
    question = "What did Rosa make in her pottery class?"
    asked = [r.json for r in fake_openai.chat_requests() if _user(r.json).endswith(question)]
    assert len(asked) == 5  # A, B, C, D, F
    assert all(body["messages"][0]["content"].endswith(SHORT_ANSWER) for body in asked)


def test_a_window_too_small_for_the_conversation_cuts_its_oldest_turns(fake_openai):
    fake_openai.responder = scripted_reader
    # 318 tokens besides the system prompt, the memory block's framing and the recalled
    # messages' header, 64 of them kept for the answer: session 2 and the question fit,
    # session 1 not.
    window = (
        318
        + MEMORY_BLOCK_TOKENS
        + estimate_tokens(RECALLED_HEADER)
        + estimate_tokens(resource_text("prompts", "system.txt").strip())
    )
    options = AblationOptions(configs=("F",), limit=2, context_window=window)
    report = run(evaluate_ablation(DATASET, overrides_for(fake_openai), options)).as_dict()
    whole = report["whole_conversation"]
    assert whole["window_tokens"] == window and whole["turns"] == len(SAMPLE.turns)
    assert whole["questions_truncated"] == 7 and whole["most_turns_left_out"] == 7
    # The four questions about session 2 are still answered, the three about session 1 not.
    assert report["configs"]["F"]["f1"] == round(4 / 7, 4)
    requests = fake_openai.chat_requests()
    sent = ["\n".join(m["content"] for m in r.json["messages"]) for r in requests]
    assert all(TEXT_OF["D2:1"] in p and TEXT_OF["D1:7"] not in p for p in sent)
    assert "up to 7 of 13 turns left out (the oldest) in 7 of 7 questions" in format_ablation(
        report
    )


def test_stopping_keeps_the_answers_given_so_far(fake_openai):
    fake_openai.responder = scripted_reader
    stop = threading.Event()
    steps = []

    def step():
        steps.append(1)
        if len(steps) == 3:
            stop.set()

    report = AblationReport()
    options = AblationOptions(configs=("A", "C"), limit=2)
    returned = run(
        evaluate_ablation(
            DATASET, overrides_for(fake_openai), options, progress=step, stop=stop, report=report
        )
    )
    assert returned is report and report.stopped
    figures = report.as_dict()
    assert len(report.answers) == 3
    assert figures["configs"]["A"]["answered"] == 2 and figures["configs"]["C"]["answered"] == 1
    assert figures["questions"] == 1 and figures["stopped"]
    assert "partial results" in format_ablation(figures)


def test_the_scripted_reader_answers_from_evidence_only():
    question = "What did Rosa make in her pottery class?"

    def asked(context: str) -> str:
        body = {"messages": [{"role": "system", "content": context},
                             {"role": "user", "content": question}]}  # fmt: skip
        return scripted_reader(body).content()

    assert asked("- [2023-03-03] Rosa: " + TEXT_OF["D1:3"]) == "a crooked teapot"
    assert asked("- [2023-03-03] Rosa: " + TEXT_OF["D1:5"]) == DONT_KNOW
    verdict = judge_reply("grade an answer ...\nGold answer: a Teapot\nAnswer: the teapot.")
    assert verdict.json_obj == {"correct": True}
    assert judge_reply("Summarise this part") is None


def test_the_report_says_where_d_stands_against_f():
    from acai_desktop.evaluation.ablation_results import d_against_f
    from acai_desktop.evaluation.ablation_text import d_against_f_sentence

    def verdict(d_f1, d_tokens, f_f1=0.5, f_tokens=1000):
        figures = {"answered": 1, "judge": None}
        return d_against_f(
            {
                "D": {**figures, "f1": d_f1, "prompt_tokens": d_tokens},
                "F": {**figures, "f1": f_f1, "prompt_tokens": f_tokens},
            }
        )

    assert verdict(0.6, 100)["goal_met"] and "is met" in d_against_f_sentence(verdict(0.6, 100))
    assert "on tokens alone" in d_against_f_sentence(verdict(0.5, 101))
    below = verdict(0.4, 50)
    assert not below["goal_met"] and below["difference"] == -0.1
    assert "D is less accurate than F (F1 0.400 vs 0.500" in d_against_f_sentence(below)
    assert d_against_f({"D": {"answered": 0}}) is None


def test_a_model_error_counts_as_a_wrong_answer_and_is_reported(fake_openai):
    def refuses_plans(body: dict) -> Reply:
        if "Plan for this answer" in body["messages"][0]["content"]:
            return Reply(status=400, error_message="this server refuses plans")
        return scripted_reader(body)

    fake_openai.responder = refuses_plans
    options = AblationOptions(configs=("B", "C"), limit=2)
    report = run(evaluate_ablation(DATASET, overrides_for(fake_openai), options)).as_dict()
    assert report["configs"]["B"]["errors"] == 7 and report["configs"]["B"]["f1"] == 0.0
    assert report["configs"]["C"]["errors"] == 0 and report["configs"]["C"]["f1"] == 1.0
    assert "(7 model errors, scored 0)" in format_ablation(report)


def test_the_whole_conversation_takes_the_whole_window_not_a_recall_share():
    from acai_desktop.core.records.conversations import RecalledMessage
    from acai_desktop.evaluation.ablation_prompts import whole_conversation

    words = "word " * 75  # about 100 tokens a turn: 30 of them pass half of the window
    turns = [
        RecalledMessage(i, 1, "Chat", "user", f"{i} {words}", "2024-01-01T00:00:00", "Rosa")
        for i in range(1, 31)
    ]
    whole = whole_conversation("Be brief.", "What did Rosa say?", turns, 5000)
    assert whole.dropped == 0 and len(whole.context.recalled) == 30
    assert 2500 < whole.context.tokens <= 5000


def test_the_offline_embedder_given_is_the_one_retrieval_embeds_with(fake_openai):
    """``--embedder``: C's messages and questions are embedded by the embedder the options
    name (one instance, loaded once for every sample), not a fresh default one."""
    from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder

    class Counting(WordLlamaEmbedder):
        embedded = 0

        def embed_sync(self, texts):
            Counting.embedded += len(texts)
            return super().embed_sync(texts)

    fake_openai.responder = scripted_reader
    options = AblationOptions(configs=("C",), limit=2, embedder=Counting())
    report = run(evaluate_ablation(DATASET, overrides_for(fake_openai), options)).as_dict()
    assert report["configs"]["C"]["f1"] == 1.0
    # Every turn of the two sessions, and the questions asked of them.
    assert Counting.embedded >= len(SAMPLE.turns) + report["questions"]


def test_off_topic_items_are_told_apart_from_the_memories_among_them():
    report = AblationReport(configs=("C", "D"))
    report.add_off_topic("C", 2)
    report.add_off_topic("D", 3, memories=2)
    report.add_off_topic("D", 1, memories=0)
    figures = report.as_dict()["configs"]
    assert figures["C"]["off_topic_items"] == 2.0 and figures["C"]["off_topic_memories"] == 0.0
    assert figures["D"]["off_topic_items"] == 2.0 and figures["D"]["off_topic_memories"] == 1.0
    assert "memories among the off-topic items: C 0.00, D 1.00" in format_ablation(report.as_dict())
