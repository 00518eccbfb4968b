"""What an answer's prompt left out as local only, read for its Sources dialog: the turn
keeps only ids and the reason in the answer's plan (``withheld``, core/turns/privacy.py);
the memories' texts, the messages' words and the documents' names are looked up here,
on this computer, through the services."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from acai_desktop.core.errors import InvalidInputError, NotFoundError
from acai_desktop.ui.widgets.withheld_card import GONE, Withheld, WithheldItem, snippet

if TYPE_CHECKING:
    from acai_desktop.core.assistant import Assistant


async def read_withheld(assistant: Assistant, answer_id: int) -> Withheld | None:
    """The withheld items of ``answer_id``, each as it reads now (None: nothing was
    withheld, or the answer is gone)."""
    try:
        answer = await assistant.conversations.get_message(answer_id)
    except NotFoundError:
        return None
    record = (answer.plan or {}).get("withheld")
    if not isinstance(record, dict):
        return None

    async def memory(memory_id: int) -> WithheldItem:
        item = await assistant.memories.get(memory_id)
        return WithheldItem(item.content, memory_id=item.id)

    async def message(message_id: int) -> WithheldItem:
        said = await assistant.conversations.get_message(message_id)
        who = "You" if said.role == "user" else "ACAI"
        return WithheldItem(f"{who}: {snippet(said.content)}")

    async def document(document_id: int) -> WithheldItem:
        return WithheldItem((await assistant.documents.get(document_id)).name)

    return Withheld(
        str(record.get("reason", "")),
        await _each(record.get("memory_ids"), memory),
        await _each(record.get("message_ids"), message),
        await _each(record.get("document_ids"), document),
    )


async def _each(ids: object, read: Callable[[int], Awaitable[WithheldItem]]) -> list[WithheldItem]:
    items = []
    for item_id in ids if isinstance(ids, list) else []:
        try:
            items.append(await read(int(item_id)))
        except (NotFoundError, InvalidInputError, TypeError, ValueError):
            items.append(WithheldItem(GONE))  # deleted since
    return items
