"""Model speeds as this computer measures them: medians of the last calls, kept in the
profile's folder (issue 42, item 1)."""

import json

from acai_desktop.core.routing.model_speed import KEEP_CALLS, SpeedLog, speed_key


def test_speeds_are_medians_of_the_last_calls_and_survive_a_restart(tmp_path):
    log = SpeedLog(tmp_path)
    key = speed_key(None, "SmolLM2-135M-Instruct")
    assert log.speed(key) is None
    for first, rate in ((0.2, 40.0), (0.4, 20.0), (9.0, 30.0)):
        log.record(key, ok=True, first_token_seconds=first, tokens_per_second=rate)
    log.record(key, ok=False)
    assert SpeedLog(tmp_path).speed(key) is None  # nothing written until saved
    log.save()
    again = SpeedLog(tmp_path).speed(key)
    assert (again.first_token_seconds, again.tokens_per_second) == (0.4, 30.0)
    assert again.error_rate == 0.25 and again.calls == 4
    for _ in range(KEEP_CALLS):
        log.record(key, ok=True, first_token_seconds=1.0, tokens_per_second=10.0)
    assert log.speed(key).error_rate == 0 and log.speed(key).first_token_seconds == 1.0


def test_a_damaged_speeds_file_starts_over(tmp_path):
    (tmp_path / "model-speed.json").write_text("{not json")
    log = SpeedLog(tmp_path)
    assert log.speed("anything") is None
    log.record("m", ok=True, first_token_seconds=0.1, tokens_per_second=5.0)
    log.save()
    assert json.loads((tmp_path / "model-speed.json").read_text())["calls"]["m"]
