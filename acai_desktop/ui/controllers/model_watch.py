"""Whether the model can answer, kept true for the whole session, not only at start.

The header's chip and the banner show what the last look at the model saw. A look is
the cheap probe (a models listing, no tokens): at start, after a settings change, after
an answer that failed (the server may have died: the chip must not keep saying "ready"),
after an answer that came through while the chip said otherwise (it is back), and every
:data:`RECHECK_MS` while the server can't be reached, so the chip and the banner follow
a server that comes back without the user pressing Try again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from acai_desktop.core.records.conversations import MessageStatus
from acai_desktop.ui.controllers.base import Controller, Services

if TYPE_CHECKING:
    from collections.abc import Callable

    from acai_desktop.core.assistant import Assistant
    from acai_desktop.core.events import AnswerFinished
    from acai_desktop.core.models.model_status import ModelStatus
    from acai_desktop.ui.main_window import MainWindow

#: The probe of the model (a newer one wins).
CHECK_TASK = "check-model"
#: While nothing answers, how often the window looks again. A server being restarted
#: is back within seconds; every 15 s costs one listing request and no tokens.
RECHECK_MS = 15_000
#: States that can end on their own (the server comes back); the others wait for the
#: user (a key, a model name, a model file). ModelState's values: the model client's
#: modules (openai, numpy) load with the assistant, after the window paints.
STATES_THAT_PASS = frozenset({"unreachable"})


class ModelWatch(Controller):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        on_status: Callable[[ModelStatus], None],
    ) -> None:
        super().__init__(services)
        self.window = window
        #: Also told each status (the header checks the shown chat's own model with it).
        self._on_status = on_status
        #: What the last probe saw (None: not asked yet).
        self.status: ModelStatus | None = None
        self._timer = QTimer(window)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(lambda: self.check(quietly=True))
        window.events.answer_finished.connect(self._on_answer_finished)

    def check(self, *, quietly: bool = False) -> None:
        """Probe the model now (one probe at a time: a newer one replaces an older).
        ``quietly``: the chip keeps its words until the answer, rather than flicker
        "checking…" on every look while the server stays down."""
        self._timer.stop()
        assistant = self.services.assistant
        if assistant is None or assistant.model_problem is not None:
            return  # the start's own status stands until the next start
        if not quietly:
            from acai_desktop.core.models.model_status import ModelState, ModelStatus

            checking = ModelStatus(ModelState.CHECKING)
            self.window.show_model_status(assistant.model_name, checking)
        self.services.tasks.start(self._probe(assistant), key=CHECK_TASK)

    def stop(self) -> None:
        """The assistant is about to close: no probe may ask its client."""
        self._timer.stop()
        self.services.tasks.cancel(CHECK_TASK)

    async def _probe(self, assistant: Assistant) -> None:
        status = await assistant.check_model()
        if self.services.assistant is not assistant:
            return  # closed or replaced meanwhile
        self.status = status
        self.window.show_model_status(assistant.model_name, status)
        self._on_status(status)
        if status.state in STATES_THAT_PASS:
            self._timer.start(RECHECK_MS)

    def _on_answer_finished(self, event: AnswerFinished) -> None:
        failed = event.message.status == MessageStatus.ERROR
        came_back = (
            event.message.status == MessageStatus.COMPLETE
            and self.status is not None
            and not self.status.ready
        )
        if failed or came_back:
            self.check()
