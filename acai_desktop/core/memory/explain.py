"""Why something fed an answer, in words a person reads: how strong the match was
("strong" or "some"; the number stays for a tooltip), what it shares with the
question ("mentions *peanuts*"), and for a document passage the sentences that matched.

Pure functions over text and the scores retrieval recorded; they change no ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acai_desktop.core.memory.query import content_terms
from acai_desktop.core.rules.words import tokenize

#: A fused score (lexical and semantic averaged, see retrieval.fusion) at or above this
#: is a strong match: most words of the question, or a close paraphrase. Below it, some
#: match: every source told passed the relevance floor to enter the prompt, so none is
#: called "weak" (a passage that held the answer was; passages of LoCoMo's sessions that
#: hold a question's evidence score 0.37 at their 10th percentile, 0.48 at the median).
STRONG_SCORE = 0.45
#: At most this many shared words are named ("mentions peanuts, allergy, Thai").
MAX_NAMED_WORDS = 3

#: Reasons as a person says them (a reason shown with its words is "mentions ...").
REASON_PHRASES = {
    "lexical": "shares words",
    "semantic": "similar in meaning",
    "pinned": "pinned",
    "recent": "recent",
    "summary": "summary of this chat",
    "this_conversation": "this conversation",
    "author": "said by who you named",
    "asker": "you said it",
    "on_date": "on the date you named",
}

#: What retrieval records of an item it ranked. An item whose reasons hold none of them
#: entered the prompt without a match (a pinned memory, a lasting fact that bears on the
#: kind of request): it has no strength to tell, only why it is there.
MATCH_REASONS = frozenset(REASON_PHRASES) - {"pinned"}
#: A pinned memory that matched nothing: why it is there all the same.
PINNED_ALWAYS = "pinned: in every answer's prompt"


def strength(score: float) -> str:
    """ "strong" or "some" for the retrieval score of a source in a prompt."""
    return "strong" if score >= STRONG_SCORE else "some"


def _stem(token: str) -> str:
    """A crude English stem, enough to see "allergic" and "allergy" as one word."""
    for suffix in ("ies", "ing", "ed", "es", "ic", "y", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def shared_words(question: str, text: str) -> list[str]:
    """Informative words of ``question`` that ``text`` uses (as ``text`` writes them),
    in the order ``text`` has them."""
    wanted = {_stem(term) for term in content_terms(question)}
    found: dict[str, str] = {}  # stem: the first word with it, as written
    for word in re.findall(r"[^\W_]+", text, re.UNICODE):
        stem = _stem(tokenize(word)[0])
        if stem in wanted and stem not in found:
            found[stem] = word
    return list(found.values())


@dataclass(frozen=True)
class Explanation:
    strength: str  # strong / some / weak; "" when it entered without a match
    score: float
    #: (phrase, words it names): ("mentions", ["peanuts"]) or ("similar in meaning", []).
    reasons: tuple[tuple[str, tuple[str, ...]], ...]

    def plain(self) -> str:
        """The reasons as one line of plain text: "mentions peanuts · similar in meaning"."""
        return " · ".join(
            f"{phrase} {', '.join(words)}" if words else phrase for phrase, words in self.reasons
        )


def explain(score: float, reasons: list[str], question: str, text: str) -> Explanation:
    """How strong a source of an answer was and why, for a person. A source that
    entered without a match gets no strength: the score it carries (1.0) measures no
    likeness to the question."""
    phrases: list[tuple[str, tuple[str, ...]]] = []
    matched = any(reason in MATCH_REASONS for reason in reasons)
    words = tuple(shared_words(question, text)[:MAX_NAMED_WORDS]) if question else ()
    if "pinned" in reasons:
        phrases.append(("pinned" if matched else PINNED_ALWAYS, ()))
    if words:
        phrases.append(("mentions", words))
    elif "lexical" in reasons:
        phrases.append((REASON_PHRASES["lexical"], ()))
    for reason in reasons:
        if reason in ("pinned", "lexical"):
            continue
        phrases.append((REASON_PHRASES.get(reason, reason.replace("_", " ")), ()))
    return Explanation(strength(score) if matched else "", score, tuple(dict.fromkeys(phrases)))


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def matching_sentences(passage: str, question: str, limit: int) -> str:
    """The sentences of ``passage`` that share the most words with ``question``, in
    passage order and at most ``limit`` characters (with "…" where text was left out);
    the passage's opening when no sentence shares a word."""
    flat = " ".join(passage.split())
    sentences = [s.strip() for s in _SENTENCE_END.split(passage) if s.strip()]
    sentences = [" ".join(s.split()) for s in sentences]
    wanted = {_stem(term) for term in content_terms(question)}

    def overlap(sentence: str) -> int:
        return len({_stem(t) for t in content_terms(sentence)} & wanted)

    scored = sorted(
        ((overlap(s), -i, i) for i, s in enumerate(sentences)), reverse=True
    )  # most shared words first, then the earlier sentence
    if not scored or scored[0][0] == 0:
        return _cut(flat, limit)
    # Sentences sharing at least half as many words as the best one: the answer and
    # what stands beside it, not every sentence that happens to name "building".
    enough = max(1, (scored[0][0] + 1) // 2)
    chosen: list[int] = []
    used = 0
    for shared, _, i in scored:
        if shared < enough:
            break
        extra = len(sentences[i]) + (1 if chosen else 0)
        if chosen and used + extra > limit:
            continue
        chosen.append(i)
        used += extra
    chosen.sort()
    parts = []
    for position, i in enumerate(chosen):
        gap_before = i > 0 if position == 0 else i > chosen[position - 1] + 1
        if gap_before:
            parts.append("…")
        parts.append(sentences[i])
    if chosen[-1] < len(sentences) - 1:
        parts.append("…")
    return _cut(" ".join(parts), limit)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"
