"""What the user points at when asking "Why didn't you use …?": a memory, a message of
any chat or a passage of a document, found by words they type or paste.

The words are looked for the ways the app already searches — the memory's own ranking
(active memories) and its words in every memory whatever its status, recall and the
conversations' search box (messages, a temporary chat's too), the document search —
and each item found is scored by the share of the words' informative stems it holds.
So pasted text finds the item it was copied from first, and a few typed words list
what holds them."""

from __future__ import annotations

from dataclasses import dataclass

from acai_desktop.core.documents.service import DocumentService
from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.front_door import Memory
from acai_desktop.core.memory.query import content_terms
from acai_desktop.core.memory.retrieval import floor
from acai_desktop.core.records.memories import MemoryItem, MemoryStatus
from acai_desktop.core.rules.words import tokenize
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.memories import MemoryFilter
from acai_desktop.core.why_not.result import ItemKind, ItemRef

#: How many items each search is asked for.
FIND_DEPTH = 10
#: The longest words the memory's substring match is given (a paste can be long).
SUBSTRING_CHARS = 200
#: Items of equal score: memories first, then messages, then passages.
KIND_ORDER = {ItemKind.MEMORY: 0, ItemKind.MESSAGE: 1, ItemKind.PASSAGE: 2}


def memory_ref(memory: MemoryItem) -> ItemRef:
    state = "" if memory.status == MemoryStatus.ACTIVE else f", {memory.status.value}"
    pinned = ", pinned" if memory.pinned else ""
    return ItemRef(
        ItemKind.MEMORY, memory.id, memory.content, f"{memory.kind.value}{state}{pinned}"
    )


def message_ref(message_id: int, content: str, speaker: str, chat_title: str) -> ItemRef:
    return ItemRef(
        ItemKind.MESSAGE, message_id, content, f"{speaker} in “{chat_title or 'Untitled chat'}”"
    )


def passage_ref(chunk_id: int, content: str, citation: str) -> ItemRef:
    return ItemRef(ItemKind.PASSAGE, chunk_id, content, citation)


@dataclass(frozen=True)
class _Found:
    ref: ItemRef
    held: float  # the share of the words' stems it holds
    order: int  # where its search put it


def _wanted(words: str) -> set[str]:
    terms = content_terms(words) or tokenize(words)
    return {floor.stem(term) for term in terms}


async def find_items(
    memory: Memory,
    conversations: ConversationRepository,
    documents: DocumentService | None,
    words: str,
    limit: int = 12,
) -> list[ItemRef]:
    """The items that hold ``words`` best, best first (at most ``limit``)."""
    if not words.strip() or not tokenize(words):
        raise InvalidInputError("Type or paste some words of what should have been used.")
    refs: list[ItemRef] = []
    refs += [memory_ref(hit.memory) for hit in await memory.search(words, FIND_DEPTH)]
    holding = MemoryFilter(text=words.strip()[:SUBSTRING_CHARS], statuses=None, limit=FIND_DEPTH)
    refs += [memory_ref(item) for item in await memory.list(holding)]
    for recalled in await memory.recall(words, FIND_DEPTH):
        said = recalled.message
        refs.append(message_ref(said.id, said.content, said.speaker, said.conversation_title))
    for hit in await conversations.search(words, FIND_DEPTH):
        if hit.message_id is not None:  # a message, not a chat's title
            said = await conversations.get_message(hit.message_id)
            speaker = said.author or ("You" if said.role == "user" else "ACAI")
            refs.append(message_ref(said.id, said.content, speaker, hit.title))
    if documents is not None:
        for passage in await documents.search(words, FIND_DEPTH):
            where = passage.passage.document_name + (
                f", p. {passage.passage.page}" if passage.passage.page else ""
            )
            refs.append(passage_ref(passage.passage.chunk_id, passage.passage.content, where))
    wanted = _wanted(words)
    found: dict[tuple[ItemKind, int], _Found] = {}
    for order, ref in enumerate(refs):
        key = (ref.kind, ref.id)
        if key not in found:
            held = len(wanted & floor.stems_of(ref.text)) / len(wanted) if wanted else 0.0
            found[key] = _Found(ref, held, order)
    ranked = sorted(found.values(), key=lambda f: (-f.held, KIND_ORDER[f.ref.kind], f.order))
    return [f.ref for f in ranked if f.held > 0][:limit]
