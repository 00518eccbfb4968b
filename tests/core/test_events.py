"""The event bus: typed events, subscription by class, and news that reaches everyone."""

from __future__ import annotations

import dataclasses

import pytest

from acai_desktop.core import events as ev
from acai_desktop.core.events import EventBus


def test_handlers_hear_only_their_event_class_until_they_unsubscribe():
    bus = EventBus()
    progress, removed = [], []
    stop = bus.subscribe(ev.EmbeddingProgress, progress.append)
    bus.subscribe(ev.ConversationRemoved, removed.append)
    bus.emit(ev.EmbeddingProgress(done=1, total=2))
    bus.emit(ev.ConversationRemoved(7))
    stop()
    bus.emit(ev.EmbeddingProgress(done=2, total=2))
    assert progress == [ev.EmbeddingProgress(1, 2)]
    assert removed == [ev.ConversationRemoved(7)]


def test_a_wrong_event_is_an_error_not_silence():
    bus = EventBus()
    with pytest.raises(TypeError, match="not an event class"):
        bus.subscribe(str, print)  # e.g. an old string name's type, or a typo'd class
    with pytest.raises(TypeError, match="not an event"):
        bus.emit("memory_added")
    with pytest.raises(TypeError):
        ev.MemoryAdded(item=None)  # a misspelt field
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.ConversationRemoved(1).conversation_id = 2  # news can't be changed on its way


def test_a_failing_handler_does_not_stop_the_others(caplog):
    bus = EventBus()
    heard = []

    def broken(event):
        raise RuntimeError("boom")

    bus.subscribe(ev.ConversationRemoved, broken)
    bus.subscribe(ev.ConversationRemoved, heard.append)
    bus.emit(ev.ConversationRemoved(3))
    assert heard == [ev.ConversationRemoved(3)]
    assert "ConversationRemoved failed" in caplog.text
