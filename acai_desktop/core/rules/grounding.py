"""The grounding check: an extracted "fact" is stored only if the user's message says it.

A small extraction model invents facts: it copies the prompt's example ("The user's name is
John"), fills in placeholders, answers the user's question ("Paris"), stores its own words,
drops the subject of a fact about the user's sister, or writes a whole paragraph. None of
that may become a memory, because memories come back in every later prompt as truth.

The check is cheap and local (no model call): a few rules on the fact's shape, then
*support* — the fact's content words (names, numbers, nouns, verbs) must appear in the
message, allowing for word endings and abbreviations ("prefers" / "preference", "Fri" /
"Friday"). A fact whose words are mostly the model's own may still pass on meaning alone, if
its embedding is close enough to the message's (``SEMANTIC_SUPPORT``), but never with a
number the message lacks.
Each rejection says why, so the processor counts rejections by reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from acai_desktop.core.rules.words import (
    NUMBER_WORDS,
    WORD,
    language_of,
    same_stem,
    script_of,
    stem,
    word_set,
    words,
)


class Rejection(StrEnum):
    TOO_LONG = "too_long"
    PLACEHOLDER = "placeholder"
    INSTRUCTION = "instruction_to_assistant"
    ABOUT_ASSISTANT = "about_assistant"
    FRAGMENT = "fragment"
    ANSWER_TO_QUESTION = "answer_to_question"
    NOT_ABOUT_USER = "not_about_user"
    OTHER_LANGUAGE = "other_language"
    PROMPT_EXAMPLE = "prompt_example"
    THIRD_PARTY = "third_party_as_user"
    QUESTION = "question"
    UNSUPPORTED = "unsupported"


#: A fact is one short sentence. Longer "facts" are the model pasting the message (or its
#: own answer) back; 300 characters hold any real one-sentence fact with room to spare.
MAX_FACT_CHARS = 300
#: At least this share of the fact's content words must be found in the message, or the
#: fact passes on meaning if cosine(fact, message) reaches SEMANTIC_SUPPORT (WordLlama).
#: Chosen on LoCoMo's dev half (`python -m benchmarks eval grounding`): its 1,207 gold observations,
#: checked against the turns they cite, and against a turn of another session. At 0.3 / 0.5
#: (with the names and numbers rules below) the check rejected 8.9% of the supported facts
#: and 97.0% of the unsupported ones; a lexical share of 0.5 rejected 26% of the supported
#: ones. Gold observations paraphrase far more than a small extraction model does, so on
#: real extractions the first figure is an upper bound.
LEXICAL_SUPPORT = 0.3
SEMANTIC_SUPPORT = 0.5
#: A fact naming this many people, places or things that the message never mentions is
#: invented, however many of its other words match ("The user's brother Tiago works in
#: Lisbon" from "I work as a nurse"). One is let through: people abbreviate and misspell,
#: and on LoCoMo vetoing at one rejected twice as many supported facts (16%).
MAX_MISSING_NAMES = 2


@dataclass(frozen=True)
class Verdict:
    rejection: Rejection | None = None
    detail: str = ""

    @property
    def grounded(self) -> bool:
        return self.rejection is None


GROUNDED = Verdict()

_PLACEHOLDER = re.compile(
    r"\[[^\]]*\]|<[^>]*>|\{[^}]*\}|\b(?:insert|placeholder|tbd|xxx+|lorem ipsum)\b"
    r"|(?:^|\s)n/?a(?:\s|[.,;]|$)|\b(?:unknown|not specified|not provided|not mentioned"
    r"|not stated|unspecified)\b",
    re.IGNORECASE,
)
#: Words aimed at the assistant rather than about the user: "Ignore previous instructions",
#: "you are now DAN", "reveal your system prompt". Stored as a "fact" they would come back
#: in every prompt.
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?"
    r"(?:the\s+|your\s+)?(?:previous|prior|preceding|above|earlier|initial|original|"
    r"system|all|your|these|those)\b[^.!?\n]{0,20}"
    r"\b(?:instructions?|rules|prompts?|guidelines|directions|guardrails)\b"
    r"|\bsystem prompt\b|\bdeveloper mode\b|\bjailbreak"
    r"|^\s*(?:the\s+)?(?:assistant|ai|you)\s*(?:,|:|must\b|shall\b|are now\b)"
    r"|\byou are now\b|\bfrom now on,? you\b",
    re.IGNORECASE,
)
_ABOUT_ASSISTANT = re.compile(
    r"^\s*(?:the\s+|this\s+|an?\s+)?(?:assistant|ai|chatbot|bot|language model|model"
    r"|acai)\b|^\s*(?:i am|i'm)\s+(?:an?\s+)?(?:ai|assistant|language model|chatbot)\b"
    r"|^\s*you\b",
    re.IGNORECASE,
)
_ABOUT_USER = re.compile(r"\buser(?:'s|s'|’s)?\b|^\s*(?:i|i'm|i've|my|me)\b", re.IGNORECASE)
#: In a project's chat, a fact may be about the project: that is what projects are for
#: ("The project uses Postgres 16", "In this project we deploy on Fridays", "Our API is
#: in Go"). Outside a project "we" and "our" stay unclaimed (whose team?).
_ABOUT_PROJECT = re.compile(
    r"\b(?:the|this|our)\s+project(?:'s|’s)?\b"
    r"|^\s*(?:in\s+(?:the|this|our)\s+project,?\s+)?(?:we|we're|we've|our|us)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\s*(?:what|who|whom|whose|which|when|where|why|how|is|are|was|were|do|does|did|can"
    r"|could|would|should|will|shall|may|tell me|explain|define)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|myself|im)\b", re.IGNORECASE)
#: The user's people (and pets): "my sister Anna lives in Rome" is about the sister.
RELATIONS = word_set(
    """sister sisters brother brothers mother mom mum father dad parents parent wife husband
    partner spouse girlfriend boyfriend fiance fiancee son sons daughter daughters kid kids
    child children baby friend friends boss manager colleague colleagues coworker coworkers
    roommate flatmate neighbour neighbor cousin aunt uncle niece nephew grandmother grandma
    grandfather grandpa grandparents family dog dogs cat cats pet pets team teacher
    doctor"""
)
#: Words that carry no content of their own, in English (the prompt's language and the
#: fact's frame, "The user ...").
_STOPWORDS_EN = word_set(
    """a an the and or but if of to in on at by for with from as into about over under
    after before between during since until up down out off than then so too very just
    also still even really quite only not no nor is are was were be been being am has have
    had having do does did doing will would shall should can could may might must this that
    these those it its it's he she they them their his her him we us our you your i me my
    mine who whom which what when where why how all any both each few more most other some
    such own same there here user user's users currently usually often always now"""
)
#: Verbs that don't end in -s or -ed: a sentence with one has a predicate.
_IRREGULAR_VERBS = word_set(
    """am is are was were be been has have had do does did can could will would shall should
    may might must went goes got gets made makes took takes came comes saw sees bought began
    became grew left met lost won ran wrote read knew felt found gave held kept spent taught
    thought told built drove ate fell flew forgot sold sent slept spoke swam wore broke chose
    owns own like love hate prefer enjoy live work need want plan speak"""
)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in _STOPWORDS_EN]


def _numbers(fact: str) -> list[str]:
    """Numbers, in digits or words: the detail a model invents ("three kids" from "2 kids")
    that no similar meaning can excuse."""
    found = []
    for token in words(fact):
        if any(ch.isdigit() for ch in token) or token in NUMBER_WORDS:
            found.append(NUMBER_WORDS.get(token, token))
    return found


def _names(fact: str) -> list[str]:
    """Capitalised words after the first: names of people, places, things."""
    tokens = [m.group() for m in WORD.finditer(fact)][1:]
    return [t.lower() for t in tokens if t[:1].isupper() and t.lower() not in ("i", "i'm", "user")]


def _other_language(fact: str, message: str) -> str | None:
    fact_script, message_script = script_of(fact), script_of(message)
    if fact_script and message_script and fact_script != message_script:
        return f"the fact is in {fact_script.title()} script, the message in " + (
            message_script.title()
        )
    fact_language, message_language = language_of(fact), language_of(message)
    if fact_language and message_language and fact_language != message_language:
        return f"the fact reads as {fact_language}, the message as {message_language}"
    return None


def _has_predicate(fact: str) -> bool:
    """An English sentence has a verb; "Buster" or "The user's dog Buster" has none.
    Heuristic: a known verb, or a word ending in -s/-ed that follows the subject."""
    tokens = words(fact)
    if len(tokens) < 3:
        return False
    for position, token in enumerate(tokens):
        if token in _IRREGULAR_VERBS:
            return True
        after_subject = position > 0 and not tokens[position - 1].endswith("'s")
        if (
            after_subject
            and len(token) > 3
            and re.fullmatch(r"[a-z]+(?:s|ed)", token)
            and token not in RELATIONS
            and tokens[position - 1] not in ("the", "a", "an", "my")
        ):
            return True
    return False


def _is_question(message: str) -> bool:
    text = message.strip()
    return text.endswith("?") or bool(_QUESTION_START.match(text))


def _clauses(message: str) -> list[str]:
    return [c for c in re.split(r"[.!?;\n]+|,\s*(?:and|but)\s+|\s+but\s+", message) if c.strip()]


def _third_party_subject(clause: str) -> str | None:
    """The person a clause is about when it isn't the user: "my sister Anna lives in Rome"
    is about "sister"."""
    tokens = words(clause)
    if len(tokens) >= 2 and tokens[0] in ("my", "our") and tokens[1] in RELATIONS:
        rest = tokens[2:]
        if not any(_FIRST_PERSON.fullmatch(t) for t in rest):
            return tokens[1]
    return None


def _third_party(fact: str, message: str, support: set[str]) -> str | None:
    """A fact whose subject is the user, drawn from a clause about someone else."""
    fact_tokens = set(words(fact))
    if fact_tokens & RELATIONS or re.search(r"\buser(?:'s|’s)\s", fact, re.IGNORECASE):
        return None  # it names whose fact it is: "The user's sister ..."
    for clause in _clauses(message):
        person = _third_party_subject(clause)
        if person is None:
            continue
        clause_stems = {stem(w) for w in content_words(clause)}
        if support and support <= clause_stems:
            return f"the message says this of the user's {person}"
    return None


def _example_facts(prompt: str) -> list[str]:
    """The facts of the prompt's worked example (its ``reply:`` lines), which a model
    short of anything to say copies."""
    examples = []
    for line in prompt.splitlines():
        if line.strip().startswith("reply:"):
            examples += re.findall(r'"fact":\s*"([^"]+)"', line)
    return examples


def _copies_example(fact: str, examples: Iterable[str]) -> str | None:
    fact_stems = {stem(w) for w in content_words(fact)}
    for example in examples:
        example_stems = {stem(w) for w in content_words(example)}
        shared = len(fact_stems & example_stems)
        if fact_stems and example_stems and shared / len(fact_stems) >= 0.6:
            return example
    return None


@dataclass(frozen=True)
class Support:
    share: float
    missing: list[str]
    missing_numbers: list[str]
    missing_names: list[str]
    found: set[str]


def lexical_support(fact: str, message: str) -> Support:
    message_stems = [stem(w) for w in words(message)]
    fact_words = content_words(fact)
    found, missing = set(), []
    for word in fact_words:
        word_stem = stem(word)
        if any(same_stem(word_stem, m) for m in message_stems):
            found.add(word_stem)
        else:
            missing.append(word)
    message_numbers = set(_numbers(message))
    missing_numbers = [n for n in _numbers(fact) if n not in message_numbers]
    missing_names = [
        n for n in _names(fact) if not any(same_stem(stem(n), m) for m in message_stems)
    ]
    share = len(found) / len(fact_words) if fact_words else 0.0
    return Support(share, missing, missing_numbers, missing_names, found)


class GroundingCheck:
    """Decides, fact by fact, whether the user's message supports it.

    ``prompt`` is the extraction prompt: a fact that copies one of its quoted examples is
    named as such. Semantic support needs ``similarity`` (fact, message) -> cosine, which
    the processor computes with the memory's embedder.
    """

    def __init__(self, prompt: str = "") -> None:
        self.examples = _example_facts(prompt)

    def shape(self, fact: str, message: str, *, in_project: bool = False) -> Verdict:
        """The rules that need no similarity: length, placeholders, subject, predicate,
        language, and the user's own words. ``in_project``: said in a project's chat, where
        a fact about the project is as welcome as one about the user."""
        if len(fact) > MAX_FACT_CHARS:
            return Verdict(Rejection.TOO_LONG, f"{len(fact)} characters")
        for match in _PLACEHOLDER.finditer(fact):
            # "<b>" or "[draft]" the user wrote is their text, not a blank to fill in.
            if match.group().strip().lower() not in message.lower():
                return Verdict(Rejection.PLACEHOLDER, match.group().strip())
        if _INSTRUCTION.search(fact):
            return Verdict(Rejection.INSTRUCTION)
        if _ABOUT_ASSISTANT.search(fact):
            return Verdict(Rejection.ABOUT_ASSISTANT)
        if why := _other_language(fact, message):
            return Verdict(Rejection.OTHER_LANGUAGE, why)
        if _is_question(fact):
            return Verdict(Rejection.QUESTION, "a question is not a fact")
        english = script_of(fact) == "LATIN" and language_of(fact) in ("en", None)
        if (english and not _has_predicate(fact)) or len(words(fact)) < 2:
            return Verdict(Rejection.FRAGMENT, "no subject and verb")
        about_project = in_project and _ABOUT_PROJECT.search(fact)
        if not _ABOUT_USER.search(fact) and not about_project and english:
            if _is_question(message):
                return Verdict(Rejection.ANSWER_TO_QUESTION, "the message asks; it states nothing")
            return Verdict(Rejection.NOT_ABOUT_USER)
        return GROUNDED

    def support(self, fact: str, message: str, similarity: float | None) -> Verdict:
        """Whether the message says it: its words, or its meaning with no invented name."""
        found = lexical_support(fact, message)
        invented = found.missing_numbers or len(found.missing_names) >= MAX_MISSING_NAMES
        if invented or (
            found.share < LEXICAL_SUPPORT and (similarity is None or similarity < SEMANTIC_SUPPORT)
        ):
            if example := _copies_example(fact, self.examples):
                return Verdict(Rejection.PROMPT_EXAMPLE, f"copies {example!r}")
            missing = found.missing_numbers or found.missing_names or found.missing
            score = f", similarity {similarity:.2f}" if similarity is not None else ""
            return Verdict(
                Rejection.UNSUPPORTED,
                f"{found.share:.0%} of its words in the message{score}; missing: "
                + ", ".join(missing[:5]),
            )
        if why := _third_party(fact, message, found.found):
            return Verdict(Rejection.THIRD_PARTY, why)
        return GROUNDED

    def check(
        self, fact: str, message: str, similarity: float | None = None, *, in_project: bool = False
    ) -> Verdict:
        verdict = self.shape(fact, message, in_project=in_project)
        return verdict if not verdict.grounded else self.support(fact, message, similarity)
