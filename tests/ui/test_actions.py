"""The one helper every background action goes through (ui/controllers/base.py)."""

from __future__ import annotations

import asyncio

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.ui.controllers.base import STILL_OPENING, Controller, Services, in_background
from acai_desktop.ui.tasks import TaskTracker


class StatusBar:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        self.shown.append(text)


class Probe(Controller):
    @in_background("probe")
    async def act(self, assistant, value: int, refuse: bool) -> None:
        if refuse:
            raise InvalidInputError(f"refused {value}")
        assistant.append(value)


def test_an_action_waits_for_the_assistant_runs_tracked_and_reports_a_refusal():
    status_bar = StatusBar()
    services = Services(TaskTracker(), status_bar.show_status)
    probe = Probe(services)

    async def scenario() -> list[int]:
        probe.act(1, False)  # still opening: nothing runs, the status bar says so
        assert len(services.tasks) == 0
        services.assistant = done = []  # stands in for the assistant
        probe.act(2, False)
        probe.act(3, True)
        assert len(services.tasks) == 2  # tracked, so shut-down can cancel them
        while len(services.tasks):
            await asyncio.sleep(0)
        return done

    assert asyncio.run(scenario()) == [2]
    assert status_bar.shown == [STILL_OPENING, "refused 3"]
