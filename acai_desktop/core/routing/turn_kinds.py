"""What kind of work a message asks for, read from its words alone (no model call).

The model router (issue 42) sends a turn to a model that can do it; this says what
"it" is. Six kinds: an image attached makes a turn ``vision`` and a turn too big for
an 8k window ``long`` (both decided from the attachments: ``turn_needs.py``); the text
alone decides among the other four:

* ``code``: writing, fixing, explaining or running code and its tools;
* ``reasoning``: math, logic and step-by-step problems with an answer to work out;
* ``writing``: long-form text to produce (a letter, an essay, a story, a speech…);
* ``chat``: everything else (questions, advice, conversation, recall).

Code is judged first because its signs are the least ambiguous, and a request to write
code is still code; then the signs of a puzzle (a proof, a probability, a syllogism),
so that "write a proof" is reasoning; then writing; then a calculation (an expression,
or a question about quantities that come with numbers). A word that means code or math
only in company ("class", "script", "branch", "angle", "percentage") counts only in
that company: "a class of 30", "a script for a YouTube intro" and "what percentage of
people are left-handed?" are not what they seem.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum


class TurnKind(StrEnum):
    CHAT = "chat"
    CODE = "code"
    REASONING = "reasoning"
    WRITING = "writing"
    VISION = "vision"
    LONG = "long"


def _any_of(alternatives: str) -> str:
    """A regex matching any of ``"a | b | c"`` as whole words (symbols allowed: C#)."""
    words = "|".join(" ".join(alternatives.split()).split(" | "))
    return rf"(?<!\w)(?:{words})(?!\w)"


class _Rule:
    """A regex compiled on first use: the rules take about 35 ms to compile, which the
    window's start should not pay for the first message's sake."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern, self._flags = pattern, flags

    @functools.cached_property
    def _compiled(self) -> re.Pattern:
        return re.compile(self._pattern, self._flags)

    def search(self, text: str) -> re.Match | None:
        return self._compiled.search(text)

    def findall(self, text: str) -> list:
        return self._compiled.findall(text)

    def sub(self, replacement: str, text: str) -> str:
        return self._compiled.sub(replacement, text)


def _words(alternatives: str) -> _Rule:
    return _Rule(_any_of(alternatives), re.I)


# Names that mean code whatever surrounds them: languages, tools, formats, concepts.
_CODE_NAMES = _words(
    r"""python\d? | javascript | typescript | java | c\+\+ | c# | kotlin | swiftui | php |
    perl | haskell | golang | bash | zsh | powershell | shell (?:script|command)s? | sql |
    sqlite | postgres(?:ql)? | mysql | mongodb | regex(?:es)? | regexp | html | css |
    flexbox | react(?:\.?js)? (?:component|hook|app|state|router|native)s? | in react |
    usestate | useeffect | vue(?:\.?js)? | angular (?:app|component|service)s? | svelte |
    node\.?js | express\.?js | django | fastapi | dataframes? | numpy | pytest |
    docker(?:file)? | kubernetes | k8s | kubectl | git | github | gitlab | nginx |
    makefile | cmake | yaml | json | xml | apis? | jupyter | vba | cron(?:tab)? | npm |
    pip install | conda | venv | virtualenv | virtual environment | compiler | linter |
    segfault | segmentation fault | stack ?trace | traceback | linked list |
    binary search | hash ?map | quicksort | merge ?sort | lru cache | time complexity |
    big o | recursion | mutex(?:es)? | race condition | unit tests? | type hints? | cors |
    frontend | backend | android app | ios app | crashloopbackoff | null ?pointer |
    refactor(?:ing)? | debug(?:ging)? | localhost | source code | codebase |
    repo(?:sitory)? | pull request | command line | terminal command | graphql |
    websockets? | oauth | async | syntax error | my code | this code | js | ts | jsx |
    tsx | memory leaks? | maven | gradle | webpack | eslint | heroku | terraform |
    ansible | arduino | raspberry pi | linux command | dijkstra | data structures? |
    multithreading | stdin | stdout | utf-8 | http server | web server | sdk |
    vs ?code | intellij | environment variables? | env vars? | tkinter | pyqt | pyside |
    gtk | electron app | wpf | winforms | javafx | godot | unreal engine | divs? | dom |
    jquery | tailwind | css grid | flask (?:app|project|route|blueprint)s? | in flask |
    code examples? | pseudocode | object[- ]oriented |
    oop | dependency injection | design patterns? | polymorphism | encapsulation |
    big[- ]o | binary tree | hash table | integer overflow | bitwise | netlify | vercel |
    wordpress | static site | github pages"""
)
# Languages whose names are also ordinary words count only as "in Go", "Rust code"…
_AMBIGUOUS_LANGUAGES = _Rule(
    r"\bin (?:Go|Rust|C|R|Ruby|Swift|Dart|Lua|Elixir|Scala)\b"
    r"|\b(?:go|rust|ruby|swift|c|r|lua|dart|scala) (?:program|code|function|script|library"
    r"|crate|module|app|compiler|struct)s?\b",
    re.I,
)
# Code quoted as code: a fence, or inline code with code's punctuation.
_QUOTED_CODE = _Rule(r"```|`[^`\n]*[(){}\[\]=.;_$<>~%'\"-][^`\n]*`")
# Code-like text: calls of snake_case, dotted or camelCase names, keywords, exceptions.
_CODE_TEXT = _Rule(
    r"\b[a-z_]\w*_\w*\(|\b\w+\.\w+\(|\b[a-z]+[A-Z]\w*\("
    r"|^\s*(?:def|class|import|from \S+ import|function|const|let|var|public|#include)\b"
    r"|\b(?:def|return|elif|console\.log|printf|println|self\.)\b|[;{}]\s*$|\w+ = \w+\(|=>"
    r"|\b[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Error|Exception)\b|\bfor \w+ in \w+(?:\(|\s*:)",
    re.M,
)
# An error message quoted from a program.
_ERROR_MESSAGE = _Rule(
    r"\b(?:is not (?:a function|defined|iterable|callable)|cannot find (?:symbol|module)"
    r"|cannot read propert|unexpected token|undefined reference|command not found"
    r"|no such file or directory|index out of range|null reference|build fail"
    r"|(?:throws?|thrown|raised?|raises|unhandled|uncaught) (?:an? )?\w*\s?exception)",
    re.I,
)
# Asking for a program: "write me a function", "implement an algorithm". A script for
# a video or a play is writing.
_CODE_REQUEST = _Rule(
    r"\b(?:write|create|implement|make|build|generate|code|show me|give me)\b.{0,30}?"
    r"\b(?:functions?|methods?|class(?:es)?|programs?|algorithms?|quer(?:y|ies)|snippets?"
    r"|endpoints?|bots?|scrapers?|parsers?|regex|macros?"
    r"|scripts?(?! for\b[^.?!]{0,30}?\b(?:video|youtube|podcast|play|film|movie|ad"
    r"|commercial|presentation|speech|show|skit|sketch|trailer)))\b",
    re.I,
)
# A program referred to: "this script", "my function".
_THIS_CODE = _Rule(
    r"\b(?:this|my|our|the following) (?:script|function|method|class|program|query)\b", re.I
)
# Words that are code in company: two of them, or one with code-like text.
_CODE_WORDS = _words(
    r"""functions? | class(?:es)? | methods? | scripts? | programs? | bugs? | errors? |
    quer(?:y|ies) | interfaces? | compile | apps? | library | modules? | implement |
    deploy | server | database | config | loops? | arrays? | strings? | integers? | code |
    crash(?:es|ing)? | install | requirements | keyword | hooks? | components? | cache |
    workflow | one-liner | logs? | tests? | variables? | branch(?:es)? | merge | commit |
    threads? | algorithms? | endpoints? | callbacks? | exceptions? | decorators? |
    shell | react | flask | pandas | objects? | programming | programmers? | coding"""
)

# A puzzle: the vocabulary of math and logic problems.
_PUZZLE_WORDS = _words(
    r"""solve (?:for|the (?:equation|system|quadratic|puzzle|riddle|inequality)|this
    (?:equation|puzzle|riddle)) | prove (?:that|it|this) | proof (?:that|by) |
    probability | derivative | differentiate | integral | antiderivative | limits? (?:of|as)
    | equations? | quadratic | factorial | prime (?:numbers?|factors?) | primes |
    converges? | median | numbers add up | figures add up | add up to |
    check the maths? | expected value | logic (?:puzzle|problem)s? | logically |
    puzzle | riddle | syllogism | valid argument | deduce | by induction |
    mathematical induction | show (?:your|the) (?:steps|method|working|work) |
    reason it out | without a calculator | compound(?:ed)? (?:interest|annually) |
    least common multiple | lcm | greatest common divisor | gcd | knights?\b.{0,60}\bknaves? |
    sudoku | square root | cube root | check my reasoning | \d+ choose \d+ | fibonacci |
    (?:interior|exterior) angles? | hexagon | pentagon | octagon | polygon | hypotenuse |
    pythagor\w* | circumference | weighs? more | heavier | how many are left |
    what comes next | next (?:number|letter|term|one) in | complete the (?:sequence|pattern) |
    \d+ (?:times|plus|minus|divided by|multiplied by|to the power of) \d+ |
    (?:square|cube|square root) of \d+ | \d+ (?:squared|cubed)"""
)
_MATH_TEXT = _Rule(
    r"\d\s*[-+*/^×÷=]\s*\(?\d|\b[a-z]\s*[-+*/^=]\s*\d|\d\s*[a-z]\b\s*[-+*/^=]|\d\s*%\s*of\s*\$?\d|\b[a-z]\^\d"
    r"|\b(?:sin|cos|tan|log|ln|exp|sqrt)\s*\(|\b(?:sin|cos|tan|ln|sqrt) [a-z0-9]\b|\blog base\b"
    r"|\bx\b",
    re.I,
)
# A chain to reason along: "all A are B … all B are C", "older than … older than", a
# kinship riddle, "how many minutes in a week".
_CHAINS = _Rule(
    r"\ball \w+ are \w+.*\ball \w+ are\b"
    r"|\b(\w+er) than\b.*\b\1 than\b"
    r"|(?:\b(?:father|mother|son|daughter|brother|sister|uncle|aunt)s?\b.*){3}\bwho\b"
    r"|\bhow many (?:seconds|minutes|hours|days|weeks|months|years|inches|feet|yards|miles"
    r"|centimet(?:er|re)s|met(?:er|re)s|kilomet(?:er|re)s|grams|ounces|pounds|cups|litres"
    r"|liters|teaspoons|tablespoons|bytes|bits)\b.*\bin\b",
    re.I,
)
# A question about quantities, which makes a calculation when numbers come with it.
_QUANTITY_QUESTION = _words(
    r"""how many | how much | how long | how far | how old | how fast |
    what (?:\w+ )?time | which day | what day | on which | when does | walk me through |
    measure | exactly | total | each | average | split | fastest | quickest | shortest |
    minimum | maximum | at least | at most | costs? | earn | worth | sum | cheaper |
    work out | calculate | compute | estimate | convert | bigger | larger | smaller |
    next number | after how many | per | percent | percentage | ratios? | proportions? |
    decimal | fractions? | simplify | angles? | perimeter | area | volume | step by step |
    step-by-step | how many ways | divide | chance | odds | likely"""
)
_NUMBER = _Rule(r"(?<![\w.])\d[\d,.:]*")
_ADVICE = _words("should i | should we | do you think | would you recommend")
# An "in 2026" or a "1,000-word" is not a quantity to reason with.
_NOT_A_QUANTITY = _Rule(r"\b(?:1[89]|20)\d\d\b|\d[\d,]*-(?:word|page|minute|second)s?\b")

_WRITING_FORMS = _any_of(
    r"""letters? | emails? | essays? | stor(?:y|ies) | poems? | poetry | haikus? |
    sonnets? | limericks? | verses? | lyrics | songs? | speech(?:es)? | toasts? |
    eulog(?:y|ies) | obituar(?:y|ies) | blog posts? | articles? | op-eds? | press releases? |
    newsletters? | bios? | biograph(?:y|ies) | "?about(?: us)?"? page | descriptions? |
    captions? | scripts? for | monologues? | dialogues? | scenes? | chapters? | novels? |
    novellas? | books? | pages? | complaints? | appeals? | fairy tales? | fables? | tales? |
    retellings? | personal statements? | statements? of purpose | job (?:postings?|ads?) |
    postings? | listings? | taglines? | vows? | myster(?:y|ies) | thrillers? | romances? |
    fiction | fanfic(?:tion)? | jokes? | rhymes? | proposals? | reports? | reviews? |
    card messages? | messages? for | notes? to | thank-you notes? | tributes? | posts? |
    (?:meeting )?minutes (?:of|for) | memoir | screenplay | sketch | ad copy | slogans? |
    pitch | summar(?:y|ies) | intro | paragraphs? | cards? | invitations? | announcements?"""
)
_WRITING = _Rule(
    r"\b(?:write|writing|create|rewrite|polish|expand|craft|prepare)\b.*?"
    + _WRITING_FORMS
    + r"|\b(?:turn|make|convert)\b.*\binto\b.*"
    + _WRITING_FORMS,
    re.I | re.S,
)
# Verbs that produce text whatever follows: "draft the agreement", "compose a reply",
# "write me a …" (code and math were ruled out before); "how do I write a CV?" asks for
# advice, not for the text.
_DRAFTING = _Rule(
    r"\b(?:draft|compose|pen)\b"
    r"|(?<!how do i )(?<!how should i )(?<!how can i )(?<!how to )\bwrite\s+(?:me\s+|us\s+)?"
    r"(?:a|an|the|my|some|two|three|four|five|\d+)\b",
    re.I,
)
# "I need a speech for…", "A short story please": a text asked for without a verb.
_TEXT_WANTED = _Rule(
    r"\b(?:need|want|give me|help me with|get me|come up with)\b.{0,20}"
    r"\b(?:a|an|some|my|the)\b.{0,30}"
    + _WRITING_FORMS
    + r"|^\W*(?:a|an|one)\s+(?:\w+\s+){0,2}"
    + _WRITING_FORMS
    + r"|\btell (?:me|us|her|him|them) (?:a|an) (?:\w+ ){0,2}(?:story|tale|fable|fairy tale)",
    re.I,
)
# "Rewrite this paragraph…", "Polish my essay…": editing text is producing it.
_EDITING = _Rule(
    r"\b(?:rewrite|polish|proofread|reword|rephrase|edit|improve|tighten)\b.*\b(?:this|my|the)"
    r"\b.*\b(?:paragraph|essay|text|letter|email|intro|draft|bio|speech|story|post)",
    re.I | re.S,
)


def is_code(text: str) -> bool:
    if _QUOTED_CODE.search(text) or _CODE_NAMES.search(text):
        return True
    if any(
        pattern.search(text)
        for pattern in (_AMBIGUOUS_LANGUAGES, _THIS_CODE, _ERROR_MESSAGE, _CODE_REQUEST)
    ):
        return True
    code_words = len(_CODE_WORDS.findall(text))
    if _CODE_TEXT.search(text) and (code_words >= 1 or not _MATH_TEXT.search(text)):
        return True
    return code_words >= 2 and not _asks_for_a_text(text)


def is_puzzle(text: str) -> bool:
    """Math or logic by its vocabulary or shape: a proof, a probability, a syllogism."""
    return bool(_PUZZLE_WORDS.search(text) or _CHAINS.search(text))


def is_calculation(text: str) -> bool:
    """Numbers to work with: an expression, or a question about quantities (not a
    request for advice that mentions some: "a 30% chance of rain: should I…?")."""
    if _MATH_TEXT.search(text):
        return True
    quantities = _NUMBER.findall(_NOT_A_QUANTITY.sub(" ", text))
    return (
        bool(quantities)
        and _QUANTITY_QUESTION.search(text) is not None
        and _ADVICE.search(text) is None
    )


def _asks_for_a_text(text: str) -> bool:
    """A letter, a story, a speech… named as what to produce."""
    return any(pattern.search(text) for pattern in (_WRITING, _EDITING, _TEXT_WANTED))


def is_writing(text: str) -> bool:
    return bool(_DRAFTING.search(text)) or _asks_for_a_text(text)


def text_kind(text: str) -> TurnKind:
    """The kind a message's words ask for: code, reasoning, writing or chat."""
    if is_code(text):
        return TurnKind.CODE
    if is_puzzle(text):
        return TurnKind.REASONING
    if is_writing(text):
        return TurnKind.WRITING
    if is_calculation(text):
        return TurnKind.REASONING
    return TurnKind.CHAT
