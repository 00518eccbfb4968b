"""``bench local-model`` measures the packaged built-in model against the served copy."""

from __future__ import annotations

import pytest

from benchmarks.bench_local_model import format_local_model_report, measure_local_model


@pytest.mark.local_model
def test_the_served_copy_is_measured_beside_the_packaged_file_and_is_the_same_model():
    report = measure_local_model(prompt_tokens=32, repeats=1, rounds=1, scored_tokens=300)
    files = report["files"]
    assert [files[name]["format"] for name in ("packaged", "served")] == ["Q4_1", "Q8_0"]
    assert all(len(files[name]["prompt_read_s"]) == 1 for name in files)
    assert files["served"]["megabytes"] > files["packaged"]["megabytes"]
    # The copy predicts what the packaged file predicts (a Q4_0 copy: KL 0.26, 68%).
    assert report["kl_nats_per_token"] < 0.05
    assert report["same_next_token"] > 0.85
    assert report["scored_tokens"] == 300
    text = format_local_model_report(report)
    assert "reads" in text and "perplexity" in text and "Q8_0" in text
