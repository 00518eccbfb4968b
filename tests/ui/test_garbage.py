"""Cyclic garbage is collected on the Qt thread while the window runs."""

import gc
import weakref

from acai_desktop.ui.garbage import MainThreadGarbageCollector


class Node:
    def __init__(self):
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_collection_moves_to_the_qt_timer_and_is_given_back(qapp):
    collector = MainThreadGarbageCollector()
    was_enabled = gc.isenabled()
    collector.start()
    try:
        assert not gc.isenabled()
        freed = []
        for _ in range(gc.get_threshold()[0] + 10):
            weakref.finalize(Node(), freed.append, 1)
        assert freed == []  # nothing collects by itself any more
        collector._on_timer_timeout()  # what the Qt timer calls
        assert len(freed) == gc.get_threshold()[0] + 10
    finally:
        collector.stop()
    assert gc.isenabled() == was_enabled


def test_a_process_that_ends_right_after_skips_the_last_full_collection(qapp):
    """``acai-desktop gui`` ends with ``os._exit`` after the window: a last collection
    there only cost time (issue 22: start-up measured from outside, open and quit)."""
    collector = MainThreadGarbageCollector()
    was_enabled = gc.isenabled()
    collector.start()
    freed = []
    weakref.finalize(Node(), freed.append, 1)
    collector.stop(collect=False)
    assert freed == []
    assert gc.isenabled() == was_enabled
    gc.collect()
    assert freed == [1]
