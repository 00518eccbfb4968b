"""Turns: send a message, retry an answer, stop the one being written; and where an
answer came from (its sources, a recalled message in its conversation)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import shiboken6

from acai_desktop.core.errors import AcaiError, NotFoundError
from acai_desktop.ui.actions.base import ActionGroup, in_background
from acai_desktop.ui.actions.conversations import (
    LOAD_TASK,
    NEW_CONVERSATION_TITLE,
    TEMPORARY_CONVERSATION_TITLE,
)

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.orchestrator import TurnResult
    from acai_desktop.ui.main_window import MainWindow

#: The answer being written; one at a time.
TURN_TASK = "turn"
#: While the user types, learning on a one-request-at-a-time server waits this long
#: after each keystroke: the answer they are about to ask for goes first.
TYPING_QUIET_SECONDS = 8.0


class TurnActions(ActionGroup):
    def connect(self, window: MainWindow) -> None:
        window.send_requested.connect(self.send)
        window.draft_changed.connect(self.on_draft_changed)
        window.retry_requested.connect(self.retry)
        window.stop_requested.connect(self.stop)
        window.answer_sources_requested.connect(self.show_sources)
        window.recalled_message_open_requested.connect(self.open_recalled_message)

    def send(self, text: str) -> None:
        if (assistant := self.session.assistant_or_say_why()) is None:
            return
        if self.session.tasks.get(TURN_TASK) is not None:
            return  # one answer at a time; the composer shows Stop meanwhile
        self._start(self._send(assistant, text))

    def retry(self, answer_id: int) -> None:
        if (assistant := self.session.assistant_or_say_why()) is None:
            return
        if self.session.tasks.get(TURN_TASK) is not None:
            assert self.window is not None
            self.window.show_status("Wait for the current answer, or stop it, first.", 5000)
            return
        self._start(assistant.orchestrator.retry(answer_id))

    def on_draft_changed(self) -> None:
        if self.session.assistant is not None:
            self.session.assistant.runner.defer(TYPING_QUIET_SECONDS)

    def stop(self) -> None:
        self.session.tasks.cancel(TURN_TASK)

    def _start(self, turn: Coroutine[Any, Any, TurnResult | None]) -> None:
        session, window = self.session, self.window
        assert window is not None
        # Busy at once, so a second Ctrl+Enter can't start a second turn.
        window.set_busy(True)
        session.turn_conversation_id = session.conversation_id
        session.tasks.start(self._turn(turn), key=TURN_TASK)

    async def _turn(self, turn: Coroutine[Any, Any, TurnResult | None]) -> None:
        try:
            try:
                result = await turn
            except AcaiError as error:
                # Refused before anything was written: the text stays in the composer.
                if self.window is not None:
                    self.window.show_status(f"Not sent: {error}", 10_000)
                return
            # The answer's row and its sources came with the core's AnswerFinished.
            if result is not None and self.window is not None and result.status == "error":
                self.window.show_status("The answer failed; see the message. Retry?", 10_000)
        finally:
            self.session.turn_conversation_id = None
            if self.window is not None:
                self.window.set_busy(False)

    async def _send(self, assistant: Assistant, text: str) -> TurnResult:
        session, window = self.session, self.window
        assert window is not None
        from acai_desktop.core.orchestrator import validate_user_message

        text = validate_user_message(text)
        if session.conversation_id is None:
            temporary = session.new_chat_temporary
            conversation = await assistant.conversations.create(temporary=temporary)
            session.conversation_id = session.turn_conversation_id = conversation.id
            window.show_conversation(
                conversation.id,
                TEMPORARY_CONVERSATION_TITLE if temporary else NEW_CONVERSATION_TITLE,
                [],
                temporary=temporary,
            )
        return await assistant.orchestrator.send(session.conversation_id, text)

    def show_sources(self, answer_id: int) -> None:
        # The dialog opens at once; its rows are read in the background.
        if (window := self.window_if_open()) is not None:
            self._fill_sources(window.dialogs.answer_sources(answer_id), answer_id)

    @in_background("answer-sources")
    async def _fill_sources(self, assistant: Assistant, dialog, answer_id: int) -> None:
        rows = []
        for source in await assistant.provenance.sources_of_answer(answer_id):
            try:
                if source.recalled_message_id is not None:
                    message_id = source.recalled_message_id
                    item = await assistant.conversations.recalled_message(message_id)
                else:
                    item = await assistant.memories.get(source.memory_id)
            except NotFoundError:
                item = None
            rows.append((source, item))
        evidence = await assistant.provenance.evidence_of_answer(answer_id)
        question = await self._question_of(assistant, answer_id)
        try:
            instructions = (await assistant.conversations.get_message(answer_id)).instructions
        except NotFoundError:
            instructions = None
        if shiboken6.isValid(dialog):
            dialog.set_sources(rows, evidence, question=question, instructions=instructions)

    @staticmethod
    async def _question_of(assistant: Assistant, answer_id: int) -> str:
        """The user's message an answer answered ("" when it is gone)."""
        try:
            answer = await assistant.conversations.get_message(answer_id)
            history = await assistant.conversations.messages(answer.conversation_id)
        except NotFoundError:
            return ""
        asked = [m for m in history if m.id < answer_id and m.role == "user"]
        return asked[-1].content if asked else ""

    @in_background(LOAD_TASK)
    async def open_recalled_message(
        self, assistant: Assistant, conversation_id: int, message_id: int
    ) -> None:
        await self.session.conversations.show(await assistant.conversations.get(conversation_id))
        if self.window is not None and not self.window.chat_view.show_message(message_id):
            self.say("That message is no longer in its conversation.")
