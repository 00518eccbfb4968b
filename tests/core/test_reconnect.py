"""The waits between attempts to reach a server: doubling up to a ceiling, from the
start again once it answered (issue 27 item 4: no busy loop)."""

import pytest

from acai_desktop.core.profile.reconnect import Backoff


def test_each_wait_doubles_up_to_the_ceiling_and_resets():
    backoff = Backoff(first=1.0, factor=2.0, ceiling=30.0)
    assert [backoff.next_delay() for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    backoff.reset()
    assert backoff.next_delay() == 1


def test_a_wait_of_nothing_is_refused():
    with pytest.raises(ValueError):
        Backoff(first=0)
