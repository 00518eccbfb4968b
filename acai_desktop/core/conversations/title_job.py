"""A chat's short title, from its first exchange (one cheap call, after the answer).

A new chat is titled at once with the first words of the user's message (a stand-in,
``title_auto``); after the answer is written, a ``title`` job asks the triage model for a
few words naming the exchange and, if the reply is a usable title, puts it in place of
the stand-in, unless the user renamed the chat meanwhile (the store's update only touches
a stand-in: the user's title always wins). Any failure (no model, timeout, error, a reply
that is no title) leaves the first words: the job ends without error, as there is
nothing to retry for. The job waits for the turn's answer and, on a server that answers
one request at a time, steps aside for the user's turns like the learning jobs.

With the built-in model (``first_words_only``) there is no call: the title is the first
words of the user's first message (:func:`first_words_title`). The 135M model answered
"I'm vegetarian…" with "I'm sorry for your loss. I hope you're well", and titled another
chat with a memory's text. With any other model, a title that shares no content word
with the first exchange is refused (:func:`grounded_title`): the first words stay.

A chat whose header chose its own model is titled by that model (the user picked what
speaks for this chat; on a server with one model loaded at a time it is the one loaded),
at temperature 0 as always: a title should not change with the dice.
"""

from __future__ import annotations

import json
import logging
import re

from acai_desktop.core.conversations.chat_settings_service import ChatSettingsService
from acai_desktop.core.conversations.titles import (
    AUTO_TITLE_CHARS,
    first_words_title,
    one_line,
    title_from_words,
)
from acai_desktop.core.errors import ModelError, NotFoundError
from acai_desktop.core.events import ConversationChanged, EventBus
from acai_desktop.core.learning.learning_models import LearningModels
from acai_desktop.core.models.chat_model import ChatModel, NoModelClient
from acai_desktop.core.models.client import ModelClient
from acai_desktop.core.models.presets import ModelRole
from acai_desktop.core.records.conversations import Conversation, MessageStatus
from acai_desktop.core.records.jobs import Job
from acai_desktop.core.resources import resource_text
from acai_desktop.core.rules.grounding import content_words
from acai_desktop.core.rules.prompt_quoting import quote_untrusted
from acai_desktop.core.rules.words import stem, word_set
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.jobs import JobSpec

log = logging.getLogger(__name__)

TITLE_JOB = "title"
#: How much of each message of the first exchange the title call reads.
EXCHANGE_CHARS = 1_500
#: Room for a few words in any tokenizer; a longer reply is cut anyway.
TITLE_MAX_TOKENS = 24
#: More words than this is a sentence (the model answered the question), not a title.
MAX_TITLE_WORDS = 12

_LABEL = re.compile(r"^\s*(?:chat\s+)?title\s*[:\-–]\s*", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`#<>\[\]{}|\\]")
_QUOTES = "\"'“”‘’«»„`"


def title_job(conversation: Conversation, message_id: int) -> list[JobSpec]:
    """The title job a user's message is owed: only the first message of a chat that has
    no title yet (a chat the user named first keeps that name); a temporary chat, gone
    when the app closes, keeps its first words."""
    if conversation.title or conversation.temporary:
        return []
    return [JobSpec(TITLE_JOB, {"message_id": message_id}, conversation.id)]


def clean_model_title(reply: str) -> str | None:
    """The model's reply as a title (one line of plain text, at most AUTO_TITLE_CHARS
    characters), or None when it is no title (empty, markup only, a whole sentence)."""
    reply = _title_in_json(reply)
    lines = [line for line in reply.splitlines() if line.strip()]
    if not lines or lines[0].lstrip().startswith(("```", "{", "[")):
        return None  # code or data, not a title
    text = _LABEL.sub("", lines[0])
    text = one_line(_MARKUP.sub(" ", text)).strip(_QUOTES + " .:;,-")
    if not any(ch.isalnum() for ch in text) or len(text.split()) > MAX_TITLE_WORDS:
        return None
    return title_from_words(text, AUTO_TITLE_CHARS)


#: Words that say nothing of what a chat is about, beside grounding's stop words.
_NO_CONTENT = word_set(
    """i'm i've i'd i'll you're you've you'd you'll we're it's that's there's let's don't
    can't won't isn't aren't didn't doesn't sure okay ok yes hi hello hey thanks thank
    please sorry well good great help question chat conversation title"""
)


def _content_stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text) if w not in _NO_CONTENT}


def grounded_title(title: str, question: str, answer: str = "") -> bool:
    """Whether ``title`` names the first exchange: it shares a content word (by stem)
    with the user's message or its answer. "I'm sorry for your loss" for "I'm
    vegetarian…" shares none, nor does a memory's text from another chat."""
    return bool(_content_stems(title) & _content_stems(f"{question}\n{answer}"))


def _title_in_json(reply: str) -> str:
    """A small model asked for words often answers ``{"title": "..."}`` (in a code fence):
    the title inside; any other reply as it is."""
    text = reply.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        data = json.loads(text)
    except ValueError:
        return reply
    if isinstance(data, dict) and isinstance(data.get("title"), str):
        return data["title"]
    return reply


class TitleProcessor:
    def __init__(
        self,
        client: ModelClient | NoModelClient,
        conversations: ConversationRepository,
        events: EventBus,
        chat_settings: ChatSettingsService | None = None,
        *,
        first_words_only: bool = False,
        models: LearningModels | None = None,
    ) -> None:
        self.client = client
        #: Which server titles each chat (None: ``client``, for every chat).
        self.models = models or LearningModels(client)
        #: The built-in model: titles are the user's first words, no call.
        self.first_words_only = first_words_only
        self.conversations = conversations
        self.events = events
        #: Each chat's own settings (None: the triage model titles every chat).
        self.chat_settings = chat_settings
        self._prompt = resource_text("prompts", "title.txt").strip()

    async def handle(self, job: Job) -> None:
        await self.title_from_first_exchange(int(job.payload["message_id"]))

    async def title_from_first_exchange(self, message_id: int) -> Conversation | None:
        """Title the chat of ``message_id`` from it and its answer; the conversation as
        retitled, or None when it keeps its title."""
        try:
            message = await self.conversations.get_message(message_id)
            conversation = await self.conversations.get(message.conversation_id)
            history = await self.conversations.messages(conversation.id)
        except NotFoundError:
            return None  # deleted since: nothing to name
        if not conversation.title_auto:
            return None  # the user named it (or it was titled already)
        answer = next(
            (
                m
                for m in history
                if m.id > message.id and m.role == "assistant" and m.status != MessageStatus.ERROR
            ),
            None,
        )
        model = None
        if self.chat_settings is not None:
            try:
                model = (await self.chat_settings.in_effect(conversation.id)).own_model
            except NotFoundError:
                return None  # deleted since
        learning = None
        if not (self.first_words_only and model is None):
            try:
                learning = await self.models.for_chat(conversation.id)
            except NotFoundError:
                return None  # deleted since
        if learning is None:
            # The built-in model, or a local-only chat with no model here: no call.
            title = first_words_title(message.content) or None
        else:
            if learning.client is not self.client:  # the router's choice, not the chat's
                model = learning.model
            answered = answer.content if answer else ""
            title = await self._ask(message.content, answered, model, learning.client)
        if title is None:
            return None  # the first words stay
        retitled = await self.conversations.set_automatic_title(conversation.id, title)
        if retitled is not None:
            self.events.emit(ConversationChanged(retitled))
        return retitled

    async def _ask(
        self, question: str, answer: str, model: str | None, client: ChatModel
    ) -> str | None:
        exchange = f"user: {quote_untrusted(question[:EXCHANGE_CHARS])}"
        if answer.strip():
            exchange += f"\nassistant: {quote_untrusted(answer[:EXCHANGE_CHARS])}"
        messages = [
            {"role": "system", "content": self._prompt},
            {"role": "user", "content": f"<exchange>\n{exchange}\n</exchange>"},
        ]
        try:
            reply = await client.complete(
                messages,
                role=ModelRole.TRIAGE,
                max_tokens=TITLE_MAX_TOKENS,
                temperature=0,
                model=model,
            )
        except ModelError as error:
            log.info("no title from the model, the first words stay: %s", error)
            return None
        title = clean_model_title(reply)
        if title is None:
            log.info("the model's title was unusable, the first words stay: %.80r", reply)
        elif not grounded_title(title, question, answer):
            log.info("the model's title names nothing said, the first words stay: %.80r", title)
            return None
        return title
