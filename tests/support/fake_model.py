"""The rule-based fake model lives in the product (``--self-test`` runs it offline); tests
import it from here, with the helpers that read what it was asked, which only tests use."""

from acai_desktop.evaluation.scripted_model import (
    FACT_PATTERNS,
    UnrecognisedRequest,
    call_kind,
    facts_in,
    fake_model,
)

__all__ = [
    "FACT_PATTERNS",
    "UnrecognisedRequest",
    "call_counts",
    "call_kind",
    "extraction_inputs",
    "facts_in",
    "fake_model",
]


def call_counts(server) -> dict[str, int]:
    """How many calls of each kind the fake model has answered so far."""
    counts = {"triage": 0, "title": 0, "extraction": 0, "reconcile": 0, "summary": 0, "chat": 0}
    for request in server.chat_requests():
        counts[call_kind(request.json)] += 1
    return counts


def extraction_inputs(server) -> list[str]:
    """The user's text of each extraction request the server answered, in order."""
    inputs = []
    for request in server.chat_requests():
        messages = request.json.get("messages", [])
        system = "\n".join(m["content"] for m in messages if m.get("role") == "system")
        if '"facts"' in system:
            users = [m["content"] for m in messages if m.get("role") == "user"]
            inputs.append(users[-1] if users else "")
    return inputs
