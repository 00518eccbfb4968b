"""The files a turn's message was sent with, and its images on their way to the model.

A chat's attachments stay the chat's (``core/documents/attachments.py``); the ones a
message *was sent with* are those attached before it and after the message before it
(``documents.model.sent_with``, over the chat's shown path, so an edit that branches
the chat carries the images its original carried). They tell the task analysis what
the turn needs: an image makes it a ``vision`` turn, and a text file adds its tokens.

An image goes to the model inline, as an OpenAI content part of the user message that
carries it (``{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}``),
read from the profile's copy when the prompt is sent. The message's text names each
image (``[image: photo.png]``), and that text is what the answer keeps as the question
(``sent_content``), so later turns' history says an image was there without sending it
again: an image costs a model about as many tokens as a page of text, every provider
bills them on every request, and many local servers take one image per request, so
resending each earlier image would make every later turn of a chat slower and dearer
for pictures the user has already asked about. Attaching the image again shows it
again. The memory never sees an image: retrieval, learning and summaries read the
user's words, as before.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path

from acai_desktop.core.documents.attachments import ChatAttachments
from acai_desktop.core.documents.images import IMAGE_KIND, image_marker, image_part, read_image
from acai_desktop.core.documents.model import Document, DocumentReadError, sent_with
from acai_desktop.core.memory.context_builder import BuiltContext
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.records.conversations import Message
from acai_desktop.core.routing.turn_needs import AttachedFile
from acai_desktop.core.store.chunks import document_tokens
from acai_desktop.core.store.conversation_repository import ConversationRepository

#: What one image is counted as in a prompt's size (a model's image tokens depend on
#: the model and the image: OpenAI's high detail is 85 + 170 per 512-pixel tile, 765 for
#: a 1024×1024 photo; LLaVA's are 576; Qwen2.5-VL's grow with the pixels), so a router
#: never picks a window too small for the picture and the words.
IMAGE_TOKENS = 1_000


@dataclass(frozen=True)
class SentFiles:
    """The attachments one user message was sent with."""

    documents: tuple[Document, ...] = ()

    @property
    def images(self) -> tuple[Document, ...]:
        return tuple(d for d in self.documents if d.kind == IMAGE_KIND)


class TurnImages:
    def __init__(self, attachments: ChatAttachments) -> None:
        self.attachments = attachments

    async def sent_with(
        self, conversations: ConversationRepository, question: Message
    ) -> SentFiles:
        """The attachments ``question`` was sent with (read only when its chat has any)."""
        documents = await self.attachments.of_conversation(question.conversation_id)
        if not documents:
            return SentFiles()
        path = await conversations.messages(question.conversation_id)
        said = [(m.id, m.created_at) for m in path if m.role == "user"]
        return SentFiles(tuple(sent_with(documents, said).get(question.id, ())))

    async def analysed(self, sent: SentFiles) -> tuple[AttachedFile, ...]:
        """The files as the task analysis weighs them: images, and texts by their tokens."""
        texts = [d.id for d in sent.documents if d.kind != IMAGE_KIND]
        tokens = await self.attachments.store.run(document_tokens, texts) if texts else {}
        return tuple(
            AttachedFile(d.name, is_image=d.kind == IMAGE_KIND, tokens=tokens.get(d.id, 0))
            for d in sent.documents
        )


def marked(context: BuiltContext, images: tuple[Document, ...]) -> BuiltContext:
    """The prompt with the user message naming its images after the user's words (the
    text the answer keeps as its question), and their tokens counted."""
    if not images:
        return context
    markers = "\n".join(image_marker(image.name) for image in images)
    *earlier, last = context.messages
    text = f"{last['content']}\n\n{markers}"
    tokens = context.tokens + estimate_tokens(markers) + IMAGE_TOKENS * len(images)
    return replace(context, messages=[*earlier, {**last, "content": text}], tokens=tokens)


async def with_images(context: BuiltContext, images: tuple[Document, ...]) -> BuiltContext:
    """The prompt as it is sent: the last user message's text, then its images as
    content parts, each read from its copy now (on a worker thread)."""
    if not images:
        return context
    parts = [await asyncio.to_thread(_part_of, image) for image in images]
    *earlier, last = context.messages
    content = [{"type": "text", "text": last["content"]}, *parts]
    return replace(context, messages=[*earlier, {**last, "content": content}])


def _part_of(image: Document) -> dict:
    try:
        data, facts = read_image(Path(image.path))
    except DocumentReadError as error:
        raise DocumentReadError(
            f"The image {image.name} could not be sent: {error} Remove it from the chat "
            "and attach it again."
        ) from None
    return image_part(data, facts)
