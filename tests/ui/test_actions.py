"""The one helper every background action goes through (ui/actions/base.py)."""

from __future__ import annotations

import asyncio

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.profile import Profile
from acai_desktop.ui.actions.base import ActionGroup, in_background
from acai_desktop.ui.session import STILL_OPENING
from tests.support.gui import gui_session


class StatusBar:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def show_status(self, text: str, timeout_ms: int = 0) -> None:
        self.shown.append(text)


class Probe(ActionGroup):
    def connect(self, window) -> None:  # not wired: called directly
        pass

    @in_background("probe")
    async def act(self, assistant, value: int, refuse: bool) -> None:
        if refuse:
            raise InvalidInputError(f"refused {value}")
        assistant.append(value)


def test_an_action_waits_for_the_assistant_runs_tracked_and_reports_a_refusal(tmp_path):
    session = gui_session(Profile.at(tmp_path))
    session.window = StatusBar()  # only its status bar is used here
    probe = Probe(session)

    async def scenario() -> list[int]:
        probe.act(1, False)  # still opening: nothing runs, the status bar says so
        assert len(session.tasks) == 0
        session.assistant = done = []  # stands in for the assistant
        probe.act(2, False)
        probe.act(3, True)
        assert len(session.tasks) == 2  # tracked, so shut-down can cancel them
        while len(session.tasks):
            await asyncio.sleep(0)
        return done

    assert asyncio.run(scenario()) == [2]
    assert session.window.shown == [STILL_OPENING, "refused 3"]
