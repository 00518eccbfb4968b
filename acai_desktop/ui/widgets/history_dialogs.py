"""Where things came from, read-only: a memory's details (history, sources, use) and an
answer's sources (the document passages, memories and recalled messages put into its
prompt, and what was withheld from it as local only; a passage opens on click)."""

from __future__ import annotations

import html

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import (
    QDialogButtonBox,
    QTextBrowser,
    QWidget,
)

from acai_desktop.core.conversations.custom_instructions import (
    ABOUT_LABEL,
    RESPOND_LABEL,
    InstructionsScope,
    UsedInstructions,
)
from acai_desktop.core.documents.model import EvidenceSource
from acai_desktop.core.memory.explain import STRONG_SCORE, Explanation, explain
from acai_desktop.core.records.conversations import AnswerSource, Message, RecalledMessage
from acai_desktop.core.records.memories import MemoryEvent, MemoryItem
from acai_desktop.core.turns.citations import number_sources
from acai_desktop.ui.models.memories_model import TEMPORARY_EXPLANATION
from acai_desktop.ui.widgets.dialogs import BaseDialog
from acai_desktop.ui.widgets.withheld_card import WITHHELD_HEAD, Withheld, withheld_card

ACTOR_LABELS = {
    "user": "You",
    "critical_info_processor": "Fact extraction",
    "summary_processor": "Summariser",
    "system": "ACAI",
}
# The link a recalled message's "from the chat ..." line opens (conversation/message).
MESSAGE_LINK_SCHEME = "acai-message"
# The link a quoted passage's "Sources: file.pdf, p. 12" opens (its rank in the answer).
PASSAGE_LINK_SCHEME = "acai-passage"
# The link a memory in an answer's sources opens: it is selected in the memory panel.
MEMORY_LINK_SCHEME = "acai-memory"
SHOW_IN_PANEL_TIP = "Show this memory in the memory panel"
STYLE = """
<style>
 .head { margin: 14px 0 4px 0; font-size: 8.5pt; font-weight: 600; color: #8a869c; }
 .muted { color: #8a869c; }
 .card { margin: 0 0 8px 0; }
 .warn { color: #a12a3a; }
</style>
"""


def _when(at: str | None) -> str:
    """A stored date as HTML-safe text (an imported file's dates end up here too)."""
    return html.escape((at or "")[:16].replace("T", " "))


def why_html(explanation: Explanation) -> str:
    """ "strong match · mentions <i>peanuts</i> · similar in meaning", the score in the
    strength's tooltip (the words come from the user's text: escaped)."""
    e = html.escape
    parts = []
    if explanation.strength:  # none for a source that entered without a match
        parts.append(
            f"<span title='score {explanation.score:.2f} (strong from {STRONG_SCORE}; "
            f"it passed the relevance floor)'>{e(explanation.strength)} match</span>"
        )
    for phrase, words in explanation.reasons:
        named = ", ".join(f"<i>{e(w)}</i>" for w in words)
        parts.append(f"{e(phrase)} {named}" if named else e(phrase))
    return " · ".join(parts)


def memory_link(memory_id: int) -> str:
    return f"{MEMORY_LINK_SCHEME}:{memory_id}"


def message_in_chat_link(conversation_id: int, message_id: int) -> str:
    return f"{MESSAGE_LINK_SCHEME}:{conversation_id}/{message_id}"


class _BrowserDialog(BaseDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(title, parent)
        self.resize(540, 480)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml("<p class='muted'>Loading…</p>")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.layout_.addWidget(self.browser, 1)
        self.layout_.addWidget(self.buttons)

    def show_error(self, text: str) -> None:
        self.browser.setHtml(f"{STYLE}<p class='warn'>{html.escape(text)}</p>")


class MemoryDetailsDialog(_BrowserDialog):
    #: The user clicked a message it came from: open its conversation at it.
    message_open_requested = Signal(int, int)  # conversation id, message id

    def __init__(self, memory_id: int, parent: QWidget | None = None) -> None:
        super().__init__("Memory details", parent)
        self.memory_id = memory_id
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)

    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        target = parse_message_link(url)
        if target is not None:
            self.message_open_requested.emit(*target)
            self.accept()

    def set_details(
        self,
        item: MemoryItem,
        history: list[MemoryEvent],
        sources: list[Message],
        used_in_answers: int,
        *,
        conflicting: MemoryItem | None = None,
    ) -> None:
        """``conflicting``: for a conflict, the memory it contradicts, shown beside it."""
        e = html.escape
        parts = [STYLE, f"<p style='font-size:11pt'>{e(item.content)}</p>"]
        facts = [
            item.kind.value.capitalize(),
            item.category or "no category",
            f"confidence {round(item.confidence * 100)}%",
            f"importance {item.importance:.2f}",
            f"status {item.status.value}",
            "pinned" if item.pinned else "",
            "local only" if item.local_only else "",
            "edited by you" if item.user_edited else "",
        ]
        parts.append(f"<p class='muted'>{e(' · '.join(f for f in facts if f))}</p>")
        if item.status.value == "temporary":
            parts.append(f"<p>{e(TEMPORARY_EXPLANATION)}</p>")
        if item.status.value == "conflict":
            # meta comes from the processors, or as it is from an imported file.
            other = item.meta.get("conflicts_with")
            parts.append(
                "<p class='warn'>This contradicts "
                + (f"memory #{e(str(other))}" if other else "a memory you pinned or edited")
                + ". In the memory panel, <b>Use new</b> replaces it with this one; "
                "<b>Keep old</b> forgets this one.</p>"
            )
            if conflicting is not None:
                state = ", ".join(
                    label
                    for label, on in (
                        ("pinned", conflicting.pinned),
                        ("edited by you", conflicting.user_edited),
                        (conflicting.status.value, conflicting.status.value != "active"),
                    )
                    if on
                )
                parts.append("<p class='head'>CONFLICTS WITH</p>")
                parts.append(
                    f"<p class='card'>{e(conflicting.content)}<br><span class='muted'>"
                    f"memory #{conflicting.id}{' · ' + e(state) if state else ''}</span></p>"
                )
        parts.append(
            f"<p class='muted'>Used in {used_in_answers} answer"
            f"{'' if used_in_answers == 1 else 's'}.</p>"
        )
        parts.append("<p class='head'>CAME FROM</p>")
        if sources:
            for message in sources:
                who = "You" if message.role == "user" else "ACAI"
                link = message_in_chat_link(message.conversation_id, message.id)
                parts.append(
                    f"<p class='card'><b>{who}</b> <span class='muted'>{_when(message.created_at)}"
                    f"</span> · <a href='{link}' title='Open the chat at this message'>"
                    f"open in the chat</a><br>{e(message.content)}</p>"
                )
        elif item.origin == "user":
            parts.append("<p class='muted'>Written by you, not taken from a message.</p>")
        else:
            # Imported from another profile, whose messages are not here.
            parts.append("<p class='muted'>No message of this profile is linked to it.</p>")
        parts.append("<p class='head'>HISTORY</p>")
        for event in history:
            action = event.action.replace("_", " ").capitalize()  # conflict_accepted
            # Written from outside the app (an MCP client): say who, not just "You".
            who = (event.after or {}).get("via") or ACTOR_LABELS.get(event.actor, "?")
            line = f"<b>{e(action)}</b> by {e(str(who))}"
            before = (event.before or {}).get("content")
            after = (event.after or {}).get("content")
            if before and after and before != after:
                line += f"<br><span class='muted'>“{e(before)}” → “{e(after)}”</span>"
            parts.append(f"<p class='card'>{line} <span class='muted'>{_when(event.at)}</span></p>")
        self.browser.setHtml("".join(parts))


def message_link(message: RecalledMessage) -> str:
    return message_in_chat_link(message.conversation_id, message.id)


def parse_message_link(url: QUrl) -> tuple[int, int] | None:
    """(conversation id, message id) of a link made by :func:`message_link`."""
    if url.scheme() != MESSAGE_LINK_SCHEME:
        return None
    conversation, _, message = url.path().partition("/")
    if not (conversation.isdigit() and message.isdigit()):
        return None
    return int(conversation), int(message)


class ProvenanceDialog(_BrowserDialog):
    #: The user clicked a recalled message: open its conversation at it.
    message_open_requested = Signal(int, int)  # conversation id, message id
    #: The user clicked a quoted passage: show it.
    passage_open_requested = Signal(object)  # EvidenceSource
    #: The user clicked a memory: select and show it in the memory panel.
    memory_open_requested = Signal(int)  # memory id
    #: "Why not …?": what should have been used, and why it wasn't (answer id).
    why_not_requested = Signal(int)

    def __init__(self, answer_id: int, parent: QWidget | None = None) -> None:
        super().__init__("Sources of this answer", parent)
        self.answer_id = answer_id
        self.evidence: list[EvidenceSource] = []
        self.question = ""  # the message it answered, once the sources are read
        self.why_not_button = self.buttons.addButton(
            "Why not …?", QDialogButtonBox.ButtonRole.ActionRole
        )
        self.why_not_button.setToolTip("Find what this answer should have used, and why it didn't")
        self.why_not_button.clicked.connect(lambda: self.why_not_requested.emit(self.answer_id))
        # Links are ours (a recalled message's chat); never follow them as pages.
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._on_browser_anchor_clicked)

    def _on_browser_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == MEMORY_LINK_SCHEME:
            if url.path().isdigit():
                self.memory_open_requested.emit(int(url.path()))
            return
        if url.scheme() == PASSAGE_LINK_SCHEME:
            rank = url.path()
            passage = next((e for e in self.evidence if str(e.rank) == rank), None)
            if passage is not None:
                self.passage_open_requested.emit(passage)
            return
        target = parse_message_link(url)
        if target is not None:
            self.message_open_requested.emit(*target)
            self.accept()

    def set_sources(
        self,
        sources: list[tuple[AnswerSource, MemoryItem | RecalledMessage | None]],
        evidence: list[EvidenceSource] | tuple[EvidenceSource, ...] = (),
        *,
        question: str = "",
        instructions: UsedInstructions | None = None,
        route: dict | None = None,
        withheld: Withheld | None = None,
    ) -> None:
        """``instructions``: the user's custom instructions the prompt carried, listed
        first (the user's own words, escaped). Each source with what it names now: the
        memory (a link that shows it in the memory panel), the recalled message (with
        its chat), or None when that is gone; and the document passages quoted, each a
        link that opens the passage. Each says how strong a match it was and why,
        against the ``question`` answered. ``route``: which model answered and why, with
        every model considered and what ruled it out (a routed turn's). ``withheld``:
        the local-only items its prompt left out, and why."""
        e = html.escape
        parts = [STYLE]
        self.evidence, self.question = list(evidence), question
        if route:
            parts.append(f"<p class='head'>{MODEL_HEAD}</p>")
            parts.append(route_card(route))
        if withheld is not None:
            parts.append(f"<p class='head'>{WITHHELD_HEAD}</p>")
            parts.append(withheld_card(withheld, memory_link, SHOW_IN_PANEL_TIP))
        if instructions is not None:
            parts.append(f"<p class='head'>{INSTRUCTIONS_HEAD}</p>")
            parts.append(_instructions_card(instructions))
        # Passages and recalled messages carry the numbers the answer's chips show (the
        # rule hands back the very objects it was given: keyed by identity).
        numbers = {
            id(source): number
            for number, source in number_sources(self.evidence, [s for s, _item in sources])
        }
        if self.evidence:
            parts.append("<p class='head'>DOCUMENTS</p>")
            parts.extend(
                _passage_card(source, question, numbers[id(source)]) for source in self.evidence
            )
        if instructions is not None or self.evidence or route or withheld is not None:
            parts.append("<p class='head'>MEMORIES</p>")
        if not sources:
            parts.append("<p class='muted'>No memory was put into this answer's prompt.</p>")
        for source, item in sources:
            text_of = item.content if item is not None else ""
            why = why_html(explain(source.score, source.reasons, question, text_of))
            if source.recalled_message_id is not None:
                parts.append(_recalled_card(source, item, why, numbers[id(source)]))
                continue
            if item is None:
                text = "<i>(this memory no longer exists)</i>"
            else:
                text = (
                    f"<a href='{memory_link(item.id)}' title='{SHOW_IN_PANEL_TIP}'>"
                    f"{e(item.content)}</a>"
                )
            state = ""
            if item is not None and item.status.value not in ("active", "temporary"):
                state = f" <span class='warn'>({e(item.status.value)} since)</span>"
            parts.append(
                f"<p class='card'><b>#{source.rank}</b> {text}{state}<br>"
                f"<span class='muted'>{why}</span></p>"
            )
        self.browser.setHtml("".join(parts))


INSTRUCTIONS_HEAD = "YOUR INSTRUCTIONS"
MODEL_HEAD = "MODEL"


def route_card(route: dict) -> str:
    """The router's decision as the answer kept it: the reason (and the fallback), the
    policy, and each model considered with what ruled it out. Names come from servers:
    escaped."""
    e = html.escape
    lines = [f"<b>{e(str(route.get('reason', '')))}</b>"]
    if route.get("fallback"):
        lines.append(f"<span class='warn'>{e(str(route['fallback']))}</span>")
    lines.append(f"<span class='muted'>Policy: {e(str(route.get('policy', '')))}</span>")
    for considered in route.get("considered") or []:
        if not isinstance(considered, dict):
            continue
        name = e(f"{considered.get('model')} ({considered.get('provider')}, "
                 f"{considered.get('where')})")  # fmt: skip
        if ruled_out := considered.get("ruled_out"):
            lines.append(f"✗ {name}: {e(str(ruled_out))}")
        elif considered.get("model") == route.get("answered_by"):
            lines.append(f"→ {name}: answered")
        elif considered.get("model") == route.get("failed"):
            lines.append(f"✗ {name}: chosen first, and failed")
        else:
            lines.append(f"✓ {name}: could, ranked lower by the policy")
    return f"<p class='card'>{'<br>'.join(lines)}</p>"


INSTRUCTIONS_FROM = {
    InstructionsScope.PROFILE: "from Settings, for every chat",
    InstructionsScope.CHAT: "this chat's own",
    InstructionsScope.PROJECT: "its project's, for every chat of the project",
}


def _instructions_card(used: UsedInstructions) -> str:
    """The custom instructions an answer's prompt carried, as the user wrote them."""
    e = html.escape
    lines = [
        f"<b>{e(question)}</b> {e(text)}"
        for question, text in (
            (RESPOND_LABEL, used.instructions.respond),
            (ABOUT_LABEL, used.instructions.about),
        )
        if text
    ]
    return (
        f"<p class='card'>{'<br>'.join(lines)}<br>"
        f"<span class='muted'>{e(INSTRUCTIONS_FROM[used.scope])}</span></p>"
    )


def _passage_card(source: EvidenceSource, question: str, number: int) -> str:
    """ "[1] Sources: file.pdf, p. 12" (its citation number) as the link that opens the
    passage, its snippet (the sentences that matched), and why (names and text come
    from the user's files: escaped)."""
    e = html.escape
    snippet = " ".join(source.snippet.split())
    if len(snippet) > 240:
        snippet = snippet[:239] + "…"
    why = why_html(explain(source.score, source.reasons, question, snippet))
    return (
        f"<p class='card'><b>[{number}]</b> "
        f"<a href='{PASSAGE_LINK_SCHEME}:{source.rank}'>Sources: {e(source.citation())}</a>"
        f"<br>{e(snippet)}<br><span class='muted'>{why}</span></p>"
    )


def _recalled_card(
    source: AnswerSource, message: RecalledMessage | None, why: str, number: int
) -> str:
    """A recalled message with its citation number: who said what, and "from the chat
    *Title*, date" as the link that opens it there."""
    e = html.escape
    if message is None:
        return (
            f"<p class='card'><b>[{number}]</b> <i>(this message no longer exists)</i>"
            f"<br><span class='muted'>{why}</span></p>"
        )
    title = e(message.conversation_title or "Untitled chat")
    where = f"from the chat <i>{title}</i>, {e(_when(message.created_at)[:10])}"
    return (
        f"<p class='card'><b>[{number}]</b> <b>{e(message.speaker)}:</b> "
        f"{e(message.content)}<br><a href='{message_link(message)}'>{where}</a>"
        f" <span class='muted'>· {why}</span></p>"
    )
