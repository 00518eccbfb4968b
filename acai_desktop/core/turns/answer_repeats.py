"""An answer that copies an earlier answer of the chat, word for word, to another message.

Issue 40: the built-in model answered two different messages with its previous answer
word for word. Nothing in the app reuses an answer (the client has no cache; a warm-up's
one token is never shown; a retry or an edit streams a new answer into a new row; the
local server's prompt cache gave the same answers on and off). The model copies: run
through ``acai-desktop chat --provider local``, each of three different messages was
answered with most of the previous answer ("I'm the AI assistant who helped me with a
task. You can't remember your past message…"), taken from the prompt's history. So a
finished answer that is an earlier answer of the prompt's history again, to a different
message, is asked once more without that exchange in the history (nothing left to copy);
what comes then is what the model really writes for this message, and it stands. Only
with the built-in model (``Orchestrator.asks_again_on_copy``): a provider's model
doesn't copy so, and a second call costs there.
"""

from __future__ import annotations

from acai_desktop.core.rules.prompt_quoting import asked_text

#: Shorter answers may well repeat ("You're welcome!", "Sure."); from this many
#: characters on, the same words again for another message are a copy.
MIN_COPY_CHARS = 24


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def copied_answer(messages: list[dict], answer: str) -> int | None:
    """The index in ``messages`` (the turn's prompt, its last message the user's new
    one) of the earlier answer that ``answer`` copies word for word, for a message other
    than the new one; None when it copies none."""
    if len(" ".join(answer.split())) < MIN_COPY_CHARS or not messages:
        return None
    asked = asked_text(str(messages[-1].get("content", "")))
    for index in range(len(messages) - 2, 0, -1):
        message = messages[index]
        if message.get("role") != "assistant" or not _same(str(message["content"]), answer):
            continue
        question = messages[index - 1]
        if question.get("role") == "user" and _same(
            asked_text(str(question.get("content", ""))), asked
        ):
            continue  # the same question again: the same answer is no copy
        return index
    return None


def without_exchange(messages: list[dict], answer_index: int) -> list[dict]:
    """``messages`` without the answer at ``answer_index`` and the user's message it
    answered."""
    start = answer_index - 1 if messages[answer_index - 1].get("role") == "user" else answer_index
    return messages[:start] + messages[answer_index + 1 :]
