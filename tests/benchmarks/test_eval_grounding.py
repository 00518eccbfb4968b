"""``eval grounding``: the grounding check on the LoCoMo-format fixture's gold facts."""

from acai_desktop.core.models.embeddings.wordllama_embedder import WordLlamaEmbedder
from acai_desktop.evaluation.locomo import load_dataset
from benchmarks.eval_grounding import evaluate_grounding
from tests.support.aio import run

FIXTURE = "tests/fixtures/locomo_mini.json"


def test_grounding_eval_judges_cited_turns_and_others():
    report = run(evaluate_grounding(load_dataset(FIXTURE), WordLlamaEmbedder())).as_dict()
    supported = report["supported"]
    assert supported["pairs"] == 6
    assert supported["refused_rate"] < 0.2  # at most one of the six
    assert report["unsupported_other_session"]["refused_rate"] >= 0.8
