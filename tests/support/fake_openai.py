"""The scripted OpenAI-compatible server lives in the product (the self-test and the soak
bench use it too); tests import it from here, in a strict form: see ``FakeOpenAIServer``."""

from __future__ import annotations

from acai_desktop.evaluation import scripted_openai
from acai_desktop.evaluation.scripted_openai import (
    EMBEDDING_DIMENSIONS,
    RecordedRequest,
    Reply,
    hashed_embedding,
)

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "ResponderFailed",
    "hashed_embedding",
]


class ResponderFailed(AssertionError):
    """The responder raised during the test (e.g. the fake model met a structured request
    it has no rule for)."""


class FakeOpenAIServer(scripted_openai.FakeOpenAIServer):
    """The scripted server, strict about its responder: a responder that raises answers
    that request with HTTP 500 naming the error, and leaving the server's ``with`` block
    raises ``ResponderFailed``. So the test fails for that reason, whatever the program
    made of the error (a processor that logs it and stores nothing looks just like a model
    that found nothing)."""

    def __init__(self) -> None:
        super().__init__()
        self.responder_failures: list[str] = []

    def next_reply(self, endpoint: str, request: dict | None) -> Reply:
        try:
            return super().next_reply(endpoint, request)
        except Exception as error:  # any responder bug, reported at the end of the test
            failure = f"{type(error).__name__}: {error}"
            with self.lock:
                self.responder_failures.append(failure)
            return Reply(status=500, error_message=f"the scripted responder failed: {failure}")

    def __exit__(self, *exc_info: object) -> None:
        super().__exit__(*exc_info)
        if self.responder_failures:
            count = len(self.responder_failures)
            raise ResponderFailed(
                f"the scripted responder failed on {count} request(s); the first: "
                f"{self.responder_failures[0]}"
            )
