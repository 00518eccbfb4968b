"""Syntax highlighting of code blocks with Pygments, in the theme's colours.

Pygments is imported on the first code block, not at start-up. A language Pygments
doesn't know is shown as plain monospace text.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QFont, QTextCharFormat

from acai_desktop.ui.theme import Theme

# Pygments token families and the theme colour of each; the first family a token
# belongs to wins, so more specific families come first.
TOKEN_COLOURS = (
    ("Comment", "syntax_comment"),
    ("Name.Decorator", "syntax_decorator"),
    ("Name.Function", "syntax_function"),
    ("Name.Class", "syntax_class"),
    ("Name.Builtin", "syntax_builtin"),
    ("Keyword", "syntax_keyword"),
    ("Literal.String", "syntax_string"),
    ("Literal.Number", "syntax_number"),
    ("Operator", "syntax_operator"),
    ("Error", "syntax_error"),
)


@cache
def _lexer(language: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


@cache
def _families():
    from pygments import token

    return [(token.string_to_tokentype(name), colour) for name, colour in TOKEN_COLOURS]


class CodeFormats:
    """The character formats of code in one theme and font, one per colour name."""

    def __init__(self, theme: Theme, font: QFont) -> None:
        self.theme = theme
        self.font = font
        self._formats: dict[str, QTextCharFormat] = {}
        self._by_token: dict[object, QTextCharFormat] = {}

    def format(self, colour: str = "syntax_text") -> QTextCharFormat:
        if colour not in self._formats:
            fmt = QTextCharFormat()
            fmt.setFont(self.font)
            fmt.setForeground(self.theme.color(colour))
            if colour == "syntax_comment":
                fmt.setFontItalic(True)
            self._formats[colour] = fmt
        return self._formats[colour]

    def for_token(self, token_type) -> QTextCharFormat:
        if token_type not in self._by_token:
            colour = next(
                (name for family, name in _families() if token_type in family), "syntax_text"
            )
            self._by_token[token_type] = self.format(colour)
        return self._by_token[token_type]


def warm_up() -> None:
    """Import Pygments and its common lexers ahead of the first code block (~0.1 s)."""
    from pygments import lex

    for language in ("python", "bash", "javascript", "json"):
        for _ in lex("x = 1\n", _lexer(language)):
            pass
    _families()


def highlight(code: str, language: str, formats: CodeFormats):
    """(text, format) runs of ``code``; newlines stay inside the text."""
    from pygments import lex

    for token_type, value in lex(code, _lexer(language.lower())):
        yield value, formats.for_token(token_type)
