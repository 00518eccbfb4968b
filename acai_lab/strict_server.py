"""The scripted server as the tests use it: strict about its responder.

A responder that raises (the fake model meeting a structured request it has no rule
for, a test's own responder with a bug) answers that request with HTTP 500 naming the
error, and leaving the server's ``with`` block raises :class:`ResponderFailed`. So the
test fails for that reason, whatever the program made of the error (a processor that
logs it and stores nothing looks just like a model that found nothing).
"""

from __future__ import annotations

from acai_lab.scripted_openai import FakeOpenAIServer, Reply


class ResponderFailed(AssertionError):
    """The responder raised during the test."""


class StrictOpenAIServer(FakeOpenAIServer):
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
