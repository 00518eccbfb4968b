"""``eval updates`` through the real processors and SDK against the scripted server: a
model that reconciles well scores 1.0 / 0.0; one that never sees a contradiction keeps
both values active, scores 0 and retrieves the old one."""

from acai_desktop.core.models.choice import ModelOverrides
from acai_desktop.evaluation.updates import SCENARIO, evaluate_updates
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.support.aio import run


def overrides_for(server) -> ModelOverrides:
    return ModelOverrides("custom", server.base_url, "fake-model")


def test_a_model_that_reconciles_scores_full_accuracy_and_no_stale(fake_openai):
    fake_openai.responder = fake_model
    report = run(evaluate_updates(overrides_for(fake_openai))).as_dict()
    assert report["changes"] == len(SCENARIO)
    assert report["update_accuracy"] == 1.0, report["per_change"]
    assert report["stale_memory_rate"] == 0.0
    assert report["calls"]["reconcile"] >= len(SCENARIO)


def test_a_model_blind_to_contradictions_keeps_old_values_and_retrieves_them(fake_openai):
    def blind(body: dict) -> Reply:
        if "EXISTING:" in body["messages"][-1]["content"]:
            return Reply(json_obj={"relation": "unrelated"})
        return fake_model(body)

    fake_openai.responder = blind
    report = run(evaluate_updates(overrides_for(fake_openai))).as_dict()
    assert report["update_accuracy"] == 0.0
    assert report["stale_memory_rate"] > 0.5
    assert all(c["old_active"] and c["new_active"] for c in report["per_change"].values())
