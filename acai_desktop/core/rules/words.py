"""Word handling, one place for the whole app.

- :func:`tokenize`: how text splits into words for search: full-text queries
  (:mod:`acai_desktop.core.memory.query`), conversation search
  (:mod:`acai_desktop.core.store.conversation_search`), retrieval's scoring and the
  explanations of it all cut text the same way;
- :func:`words`, :func:`stem`, :func:`same_stem`, :func:`script_of`,
  :func:`language_of`: the words of a statement as the grounding check, chat titles,
  retrieval's topic words and "Forget that …" compare them (tokens, pairs of characters
  in scripts written without spaces, light English stems, numbers, the writing system
  and, where it is clear, the language)."""

from __future__ import annotations

import re
import unicodedata

# Letters and digits of any script; an apostrophe inside a word ("Caroline's", "don't")
# splits it (the possessive or contraction tail is a stop word of the query module).
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
# At most this many distinct terms go into one FTS query: a pasted essay as the query
# would otherwise make every search scan the whole index.
MAX_QUERY_TERMS = 32


def normalise(text: str) -> str:
    """Unicode-normalised, case-folded, accents kept (the index strips them itself)."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str) -> list[str]:
    """Word tokens of ``text``, normalised, in order, with repeats."""
    return _TOKEN.findall(normalise(text))


# The words of a statement (grounding, topics, titles).
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_UNSPACED_SCRIPTS = ("CJK", "THAI", "LAO", "KHMER", "MYANMAR")


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: A handful of the most frequent words per language: enough to tell the language of a
#: sentence of six words or more, which is all the check needs.
_LANGUAGE_MARKERS = {
    "en": word_set("the is are was and of to with has have my i i'm it for that this but be"
                    " user likes lives works"),
    "es": word_set("el la los las es y del en con que un una mi yo usuario vive trabaja gusta"),
    "fr": word_set("le la les est et des du avec que un une mon ma je l'utilisateur utilisateur"
                    " habite travaille aime"),
    "de": word_set("der die das ist und von mit ein eine mein ich nutzer benutzer wohnt arbeitet"
                    " mag"),
    "it": word_set("il lo la gli è di con che un una mio mia io utente vive lavora piace"),
    "pt": word_set("os as é do da em com que um uma meu minha eu usuário utilizador mora trabalha"
                    " gosta"),
    "nl": word_set("de het en van met een mijn ik gebruiker woont werkt houdt"),
}  # fmt: skip
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}  # fmt: skip


def words(text: str) -> list[str]:
    """Lower-case words; runs of a script written without spaces (Chinese, Japanese, Thai)
    become overlapping character pairs, which serve as its words here."""
    found = []
    for token in WORD.findall(text):
        token = token.lower().replace("’", "'")
        if len(token) > 2 and script_of(token) in _UNSPACED_SCRIPTS:
            found.extend(token[i : i + 2] for i in range(len(token) - 1))
        else:
            found.append(token)
    return found


def stem(word: str) -> str:
    """A light English stem: enough to match "prefers" with "preference", "lives" with
    "living" and "live"; not a linguist's stemmer, and it need not be. It undoes every
    ending the built-in rules put on a verb (``plain_statements``: "I live" is written
    "The user lives", "I study" "The user studies", "I go" "The user goes"), so what the
    user says and what the rules wrote of it meet: the grounding check, retrieval's
    topic words and "Forget that I live in Lisbon" all compare through this one rule."""
    word = NUMBER_WORDS.get(word, word)
    for suffix in ("'s", "s'"):
        if word.endswith(suffix):
            word = word[: -len(suffix)]
    if word.endswith(("ies", "ied")) and len(word) > 4:
        return word[:-3] + "y"  # studies, studied -> study
    if word.endswith("oes") and len(word) >= 4:
        word = word[:-2]  # goes -> go, heroes -> hero
    elif word.endswith("ees"):
        word = word[:-1]  # agrees -> agree, trees -> tree
    else:
        for suffix in ("ing", "ed", "es", "s", "ly"):
            if suffix == "s" and word.endswith("ss"):
                break  # class, glass: no plural ending
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
    # A final silent "e" goes too, so "live", "lives", "lived" and "living" are one.
    if word.endswith("e") and not word.endswith("ee") and len(word) >= 3:
        word = word[:-1]
    return word


def same_stem(a: str, b: str) -> bool:
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    # "Fri" / "Friday", "edu" / "education": people abbreviate; four letters for the rest.
    return len(shorter) >= 3 and longer.startswith(shorter)


def script_of(text: str) -> str | None:
    """The writing system most of the letters belong to ("LATIN", "CJK", "ARABIC", ...)."""
    counts: dict[str, int] = {}
    for ch in text:
        if not ch.isalpha():
            continue
        name = unicodedata.name(ch, "")
        script = name.split(" ")[0] if name else ""
        if script in ("CJK", "HIRAGANA", "KATAKANA"):
            script = "CJK"
        counts[script] = counts.get(script, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def language_of(text: str) -> str | None:
    """The language whose frequent words the text uses most, when it is clear: at least
    three marker words and twice as many as any other language has."""
    tokens = words(text)
    scores = sorted(
        ((sum(t in markers for t in tokens), lang) for lang, markers in _LANGUAGE_MARKERS.items()),
        reverse=True,
    )
    (best, lang), (second, _) = scores[0], scores[1]
    return lang if best >= 3 and best >= 2 * second else None
