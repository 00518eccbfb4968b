"""A rule-based fake model for the scripted server: enough sense to drive whole turns.

Used by ``--self-test``, ``bench soak`` and the tests.

It recognises each of our prompts by its text (so it works whatever model names a test
configures) and answers like a well-behaved model would:
- triage: yes when the user talks about themself ("my name", "I prefer", "I live" ...);
- extraction: one fact per recognised first-person statement, naming the subject;
- reconcile: "duplicate" for the same fact, "contradiction" for another value of the
  same attribute, otherwise "unrelated";
- summary: the user's messages, shortened;
- chat: an answer that repeats what the memories in its prompt say about the question.
A structured (JSON) request that matches none of these raises ``UnrecognisedRequest``:
answering it with prose would read as "no facts", and a reworded prompt would pass every
test that expects no memories for the wrong reason.
Each call is recorded by the server, so tests count triage and extraction calls
(:func:`call_counts`).
"""

from __future__ import annotations

import re

from acai_desktop.core.rules.prompt_quoting import asked_text
from acai_lab.scripted_openai import Reply, text_of

FACT_PATTERNS = [
    (re.compile(r"\bmy name is (\w+)", re.I), "The user's name is {0}", "Personal"),
    (re.compile(r"\bi(?:'m| am) a big fan of ([^.,!?]+)", re.I), "The user is a big fan of {0}",
     "Preference"),
    (re.compile(r"\bi prefer ([^.,!?]+)", re.I), "The user prefers {0}", "Preference"),
    (re.compile(r"\bi live in ([^.,!?]+)", re.I), "The user lives in {0}", "Location"),
    (re.compile(r"\bi work as (?:an? )?([^.,!?]+)", re.I), "The user works as {0}",
     "Professional"),
    (re.compile(r"\bi(?:'m| am) allergic to ([^.,!?]+)", re.I), "The user is allergic to {0}",
     "Health"),
    (re.compile(r"\bi plan to ([^.,!?]+)", re.I), "The user plans to {0}", "Plan"),
]  # fmt: skip


class UnrecognisedRequest(Exception):
    """A structured request the fake model has no rule for (see the module docstring)."""


def _structured(body: dict, system: str) -> bool:
    # JSON schema mode sends a response_format; the plainer modes spell the schema out in
    # the system message (core.models.structured.instructions_for).
    return bool(body.get("response_format")) or "JSON schema" in system


def facts_in(text: str) -> list[dict]:
    facts = []
    for pattern, template, category in FACT_PATTERNS:
        for match in pattern.finditer(text):
            value = match.group(1).strip()
            facts.append({"fact": template.format(value), "category": category, "confidence": 0.9})
    return facts


def _attribute(fact: str) -> str:
    """'The user lives in Paris' -> 'the user lives in' (everything but the value)."""
    for _, template, _ in FACT_PATTERNS:
        prefix = template.split("{0}")[0].strip().lower()
        if fact.lower().startswith(prefix):
            return prefix
    return fact.lower()


def last_user_text(body: dict) -> str:
    """The user's own words in the last user message (without the turn's data)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return asked_text(text_of(users[-1])) if users else ""


def _turn_data(body: dict) -> str:
    """What came with the last user message before the user's own words."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = text_of(users[-1]) if users else ""
    return content.removesuffix(asked_text(content))


def _system_text(body: dict) -> str:
    return "\n".join(text_of(m) for m in body.get("messages", []) if m.get("role") == "system")


#: The title prompt's opening words (resources/prompts/title.txt).
TITLE_PROMPT_MARK = "You name a chat"


def fake_model(body: dict) -> Reply:
    system = _system_text(body)
    user = last_user_text(body)
    if '"durable_fact"' in system:
        return Reply(json_obj={"durable_fact": bool(facts_in(user))})
    if '"facts"' in system:
        return Reply(json_obj={"facts": facts_in(user)})
    if "EXISTING:" in user and "NEW:" in user:
        existing = re.search(r"EXISTING: (.*)", user).group(1).strip()
        new = re.search(r"NEW: (.*)", user).group(1).strip()
        if existing.lower() == new.lower():
            relation = "duplicate"
        elif _attribute(existing) == _attribute(new):
            relation = "contradiction"
        else:
            relation = "unrelated"
        return Reply(json_obj={"relation": relation})
    if TITLE_PROMPT_MARK in system:
        said = re.search(r"^user: (.*)$", user, re.M)
        words = re.findall(r"[\w'-]+", said.group(1) if said else user)[:4]
        return Reply(text=" ".join(words).capitalize() or "Chat")
    if _structured(body, system):
        raise UnrecognisedRequest(
            "the fake model has no rule for this structured request "
            f"(system: {system[:160]!r}; user: {user[:160]!r})"
        )
    if "Summarise this part of a conversation" in user:
        said = re.findall(r"^user: (.*)$", user, re.M)
        return Reply(text="The user said: " + " / ".join(s[:60] for s in said))
    # The memories are in the system message (summaries) and before the user's words.
    remembered = re.findall(r"^- (.*)$", system + "\n" + _turn_data(body), re.M)
    if remembered:
        return Reply(text="From what I remember: " + "; ".join(remembered) + ".")
    return Reply(text=f"Here is my answer to: {user[:80]}")


def call_kind(body: dict) -> str:
    """Which of our prompts a request is: triage, title, extraction, reconcile, summary
    or chat; "cut" for a request whose body never arrived (the client cancelled it after
    sending its headers: a warm-up or a learning call a turn interrupted)."""
    if not isinstance(body, dict):
        return "cut"
    system, user = _system_text(body), last_user_text(body)
    if '"durable_fact"' in system:
        return "triage"
    if TITLE_PROMPT_MARK in system:
        return "title"
    if '"facts"' in system:
        return "extraction"
    if "EXISTING:" in user:
        return "reconcile"
    if "Summarise this part" in user:
        return "summary"
    return "chat"


MARKDOWN_BLOCK = (
    "## Setting up the project\n\n"
    "Install the **dependencies** first, then run the *tests*:\n\n"
    "```python\nfor item in items:\n    print(item)\n```\n\n"
    "- a list item with `code`\n- another item, long enough to wrap at the bubble's "
    "edge when the window is of ordinary width\n\n"
    "| column | value |\n|---|---|\n| a | 1 |\n\n"
    "> A block quote, and a [link](https://example.org).\n\n"
)


def markdown_answer(length: int, *, lead: str = "") -> str:
    """An answer in Markdown (headings, emphasis, code, lists, a table, a quote) of
    ``length`` characters, starting with ``lead``."""
    body = lead + "\n\n" if lead else ""
    repeats = max(1, (length - len(body)) // len(MARKDOWN_BLOCK) + 1)
    return (body + MARKDOWN_BLOCK * repeats)[: max(length, len(body))]


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
