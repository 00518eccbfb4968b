"""``eval ablation``'s options, read from the command line."""

import pytest

from acai_desktop.core.errors import InvalidInputError
from benchmarks.commands.eval_ablation import parse_configs


def test_configs_are_parsed_and_bad_ones_refused():
    assert parse_configs("f, a,D") == ("A", "D", "F")
    with pytest.raises(InvalidInputError, match="--configs"):
        parse_configs("A,E")
