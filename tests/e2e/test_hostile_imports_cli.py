"""The real program given hostile import files (issue 39, G5): a clear refusal on stderr,
exit code 2, no traceback, for the chat imports and ``memories import`` alike."""

from __future__ import annotations

import pytest

from tests.e2e.test_clear_errors_cli import acai, assert_clear_refusal

DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = '[{"id": "c1", "create_time": ' + "9" * 5_000 + "}]"
MEMORIES_LONG_NUMBER = (
    '{"format": "acai-desktop-memories", "version": 1, "memories": '
    '[{"uid": "a", "content": "x", "use_count": ' + "9" * 5_000 + "}]}"
)


@pytest.mark.parametrize(
    ("command", "text", "named"),
    [
        (["import", "chatgpt"], DEEP, "thousands of levels deep"),
        (["import", "claude"], LONG_NUMBER, "a number 5,000 digits long"),
        (["memories", "import"], MEMORIES_LONG_NUMBER, "a number 5,000 digits long"),
    ],
    ids=["chatgpt deep", "claude long number", "memories long number"],
)
def test_a_hostile_file_is_refused_without_a_traceback(tmp_path, command, text, named):
    path = tmp_path / "export.json"
    path.write_text(text)
    result = acai(*command, str(path), "--data-dir", str(tmp_path / "profile"))
    assert_clear_refusal(result, named, "(the limit" if "number" in named else "nothing")
