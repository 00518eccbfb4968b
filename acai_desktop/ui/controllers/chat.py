"""The chat: send a message, retry an answer, stop the one being written, edit a
message (the chat branches there), show another version of an answer or branch, and
where an answer came from (its sources, what was withheld from it as local only, and,
through the why-not controller, what it did not use and why).
Its widgets: the composer (Send, Stop, typing), Esc, the transcript's Retry and Sources
links and the Sources dialog; its model: the messages model (fed by the core's news,
wired by the window).

The message is validated, and a new chat's conversation started, by the orchestrator's
``send``: the new conversation arrives as ``ConversationCreated`` news while the turn
runs, and this controller, which sent the turn, hands it to the conversations controller
(:meth:`ConversationsController.show_started`) to be shown in the new chat's place.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import shiboken6

from acai_desktop.core.documents.model import AttachmentFailed
from acai_desktop.core.errors import AcaiError
from acai_desktop.ui.controllers.base import TURN_TASK, Controller, Services, in_background
from acai_desktop.ui.controllers.withheld_sources import read_withheld
from acai_desktop.ui.first_words import FirstWordsCountdown

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.documents.model import EvidenceSource
    from acai_desktop.core.records.conversations import Conversation
    from acai_desktop.core.turns.citations import Citation
    from acai_desktop.core.turns.turn_result import TurnResult
    from acai_desktop.ui.controllers.attachments import AttachmentsController
    from acai_desktop.ui.controllers.conversations import ConversationsController
    from acai_desktop.ui.controllers.current_chat import CurrentChat
    from acai_desktop.ui.controllers.documents import DocumentsController
    from acai_desktop.ui.controllers.memory_panel import MemoryPanelController
    from acai_desktop.ui.controllers.why_not import WhyNotController
    from acai_desktop.ui.main_window import MainWindow
    from acai_desktop.ui.widgets.history_dialogs import ProvenanceDialog

__all__ = ["TURN_TASK", "TYPING_QUIET_SECONDS", "ChatController"]

#: While the user types, learning on a one-request-at-a-time server waits this long
#: after each keystroke: the answer they are about to ask for goes first.
TYPING_QUIET_SECONDS = 8.0


class ChatController(Controller):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: CurrentChat,
        *,
        conversations: ConversationsController,
        memory_panel: MemoryPanelController,
        documents: DocumentsController,
        attachments: AttachmentsController,
        why_not: WhyNotController,
    ) -> None:
        super().__init__(services)
        self.window, self.chat = window, chat
        self.conversations = conversations
        self.memory_panel = memory_panel
        self.documents = documents
        self.attachments = attachments
        #: "Why not …?" from an answer's Sources.
        self.why_not = why_not
        composer = window.composer
        composer.send_requested.connect(self.send)
        composer.stop_requested.connect(self.stop)
        composer.input.textChanged.connect(self._on_typing)
        window.stop_action.triggered.connect(self.stop)
        window.chat_view.retry_requested.connect(self.retry)
        window.chat_view.sources_requested.connect(self.show_sources)
        window.chat_view.citation_requested.connect(self.open_citation)
        # Versions and branches (Edit, the ‹ › arrows): the logic is the core's.
        composer.edit_send_requested.connect(self.send_edit)
        window.chat_view.version_requested.connect(self.show_version)
        # The time left for the first words of the answer being waited for.
        self.first_words = FirstWordsCountdown(
            window.show_status, window.statusBar().clearMessage, window
        )
        window.events.message_added.connect(self._on_events_message_added)
        window.events.message_updated.connect(self._on_events_message_updated)
        # The turn sent from a new chat starts a conversation, the one that chat becomes;
        # one started by the conversation service is not it. A user who leaves the new
        # chat before the turn starts its conversation (attachments still indexing) has
        # chosen another chat: the turn's conversation is then listed, not shown.
        self._turn_starts_shown_chat = False
        window.events.conversation_created.connect(self._on_events_conversation_created)
        chat.shown.connect(self._on_chat_shown)

    def _on_events_conversation_created(self, conversation: Conversation) -> None:
        if self._turn_starts_shown_chat:
            self._turn_starts_shown_chat = False
            self.chat.turn_conversation_id = conversation.id
            self.conversations.show_started(conversation)

    def _on_chat_shown(self, _conversation_id: int | None) -> None:
        self._turn_starts_shown_chat = False

    def _on_events_message_added(self, message) -> None:
        if message.role == "assistant" and message.status == "streaming":
            self._count_down_for(message.id, message.conversation_id)

    def _on_events_message_updated(self, delta) -> None:
        if delta.status == "streaming" and not delta.content:  # (asked again: a retry)
            self._count_down_for(delta.message_id, delta.conversation_id)
        else:
            self.first_words.on_message_updated(delta)

    def _count_down_for(self, answer_id: int, conversation_id: int) -> None:
        """The answer of the user's turn was just asked for: count down to its first
        words' deadline."""
        assistant = self.services.assistant
        deadlines = getattr(assistant.client, "deadlines", None) if assistant else None
        if deadlines is not None and conversation_id == self.chat.turn_conversation_id:
            self.first_words.start(answer_id, deadlines.first_token)

    def send(self, text: str) -> None:
        if (assistant := self.services.open_or_say_why()) is None:
            return
        if self.services.tasks.get(TURN_TASK) is not None:
            return  # one answer at a time; the composer shows Stop meanwhile
        chat = self.chat
        new = chat.conversation_id is None
        turn = assistant.orchestrator.send(
            chat.conversation_id,
            text,
            temporary=chat.new_chat_temporary,
            # Sending waits for them to be indexed (the composer says so).
            attachment_ids=self.attachments.for_send(),
            settings=chat.new_chat_settings if new else None,
            project_id=chat.new_chat_project_id,
            # Made local only with the conversation: its first message never leaves.
            local_only=new and chat.new_chat_local_only,
        )
        self._turn_starts_shown_chat = new
        self._start(turn)

    def retry(self, answer_id: int) -> None:
        if (assistant := self.services.open_or_say_why()) is None:
            return
        if self.services.tasks.get(TURN_TASK) is not None:
            self.services.say("Wait for the current answer, or stop it, first.", 5000)
            return
        self._start(assistant.orchestrator.retry(answer_id))

    def send_edit(self, message_id: int, text: str) -> None:
        """The user's edit of their message ``message_id``: the chat branches there."""
        if (assistant := self.services.open_or_say_why()) is None:
            return
        if self.services.tasks.get(TURN_TASK) is not None:
            return  # one answer at a time; the composer shows Stop meanwhile
        self._start(assistant.orchestrator.edit(message_id, text))

    def show_version(self, message_id: int) -> None:
        if self.services.tasks.get(TURN_TASK) is not None:
            self.services.say("Wait for the current answer, or stop it, first.", 5000)
            return
        self._show_version(message_id)

    @in_background("show-version")
    async def _show_version(self, assistant: Assistant, message_id: int) -> None:
        await assistant.conversations.show_version(message_id)

    def _on_typing(self) -> None:
        """The user is typing a message (the next turn is coming)."""
        assistant = self.services.assistant
        if assistant is not None and self.window.composer.input.toPlainText().strip():
            assistant.runner.defer(TYPING_QUIET_SECONDS)

    def stop(self) -> None:
        self.services.tasks.cancel(TURN_TASK)

    def _start(self, turn: Coroutine[Any, Any, TurnResult | None]) -> None:
        # Busy at once, so a second Ctrl+Enter can't start a second turn.
        self.window.set_busy(True)
        self.chat.turn_conversation_id = self.chat.conversation_id
        began: list[bool] = []
        task = self.services.tasks.start(self._turn(turn, began), key=TURN_TASK)
        task.add_done_callback(lambda _task: self._on_turn_task_done(turn, began))

    def _on_turn_task_done(self, turn: Coroutine, began: list[bool]) -> None:
        """Stopped before it ever ran (Stop at once after Send: a task cancelled before
        its first step never enters its body, so its ``finally`` does not run either):
        the window is reset here, and the turn that never started is closed."""
        if not began:
            turn.close()
            self._end_turn(None)

    async def _turn(self, turn: Coroutine[Any, Any, TurnResult | None], began: list) -> None:
        began.append(True)
        refusal = None
        try:
            try:
                result = await turn
            except AcaiError as error:
                # Refused before anything was written: the text stays in the composer
                # (also when the memory's server went away: the window then reconnects).
                self.services.refused(error, "Not sent: ")
                if isinstance(error, AttachmentFailed):
                    refusal = f"Not sent: {error}"  # said beside its chip too
                return
            # The answer's row and its sources came with the core's AnswerFinished.
            if result is not None and result.status == "error":
                self.services.say("The answer failed; see the message. Retry?", 10_000)
        finally:
            self._end_turn(refusal)

    def _end_turn(self, refusal: str | None) -> None:
        self.first_words.stop()
        self.attachments.turn_ended(refusal)
        self._turn_starts_shown_chat = False
        self.chat.turn_conversation_id = None
        self.window.set_busy(False)

    # -- where an answer came from -------------------------------------------------

    def show_sources(self, answer_id: int) -> None:
        # The dialog opens at once; its rows are read in the background.
        if self.services.open_or_say_why() is None:
            return
        dialog = self.window.dialogs.answer_sources(answer_id)
        dialog.message_open_requested.connect(self.conversations.open_at_message)
        dialog.passage_open_requested.connect(self._open_passage)
        dialog.memory_open_requested.connect(self.memory_panel.show_in_panel)
        dialog.why_not_requested.connect(
            lambda answer: self.why_not.open_for(answer, dialog.question, dialog)
        )
        self._fill_sources(dialog, answer_id)

    def _open_passage(self, source: EvidenceSource) -> None:
        self.documents.open_passage(source)

    def open_citation(self, citation: Citation) -> None:
        """A citation chip: its passage (as *Sources* opens it), or the chat at the
        recalled message, highlighted (as a recalled message's "from the chat" does)."""
        if citation.evidence is not None:
            self._open_passage(citation.evidence)
        elif citation.message is not None:
            message = citation.message
            self.conversations.open_at_message(message.conversation_id, message.id)

    @in_background("answer-sources")
    async def _fill_sources(
        self, assistant: Assistant, dialog: ProvenanceDialog, answer_id: int
    ) -> None:
        sources = await assistant.conversations.answer_sources(answer_id)
        withheld = await read_withheld(assistant, answer_id)
        if shiboken6.isValid(dialog):
            dialog.set_sources(
                sources.rows,
                sources.evidence,
                question=sources.question,
                instructions=sources.instructions,
                route=sources.route,
                withheld=withheld,
            )
