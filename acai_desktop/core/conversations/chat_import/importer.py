"""Writing an export's conversations into the profile.

The whole file is read and checked first (:mod:`.chatgpt`, :mod:`.claude`): a bad
record stops the import before its first write. Then conversations are written in
batches, each its own short transaction (the window beside a long import waits
milliseconds for the database, not the whole import), each batch with the learning
jobs the budget asks for. A conversation is written whole or not at all; an import cut
short (killed, disk full) keeps the batches it wrote, and running it again adds the
rest, since every conversation and message keeps its source id.

What the user gets at once, before any learning: the conversations in the sidebar
with their titles and dates, their messages in the search box (``messages_fts``, kept
by triggers) and in episodic recall (the message vectors are made here, batch by batch,
not left to the next start).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from acai_desktop.core import events as ev
from acai_desktop.core.conversations.chat_import.budget import LearningBudget
from acai_desktop.core.conversations.chat_import.chatgpt import read_chatgpt_export
from acai_desktop.core.conversations.chat_import.claude import read_claude_export
from acai_desktop.core.conversations.chat_import.model import ImportedConversation, ImportFileError
from acai_desktop.core.conversations.titles import one_line
from acai_desktop.core.events import EventBus
from acai_desktop.core.memory.service import MemoryService
from acai_desktop.core.store.database import Store
from acai_desktop.core.store.imported_conversations import store_imported_batch

#: An import writes at most about this many messages per transaction (whole
#: conversations: a longer one is one batch of its own).
BATCH_MESSAGES = 400
READERS: dict[str, Callable[[str | Path], list[ImportedConversation]]] = {
    "chatgpt": read_chatgpt_export,
    "claude": read_claude_export,
}
#: (conversations written so far, conversations in the file)
ImportProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class ConversationImportReport:
    conversations: int  # new conversations
    messages: int  # new messages (in new or continued conversations)
    skipped_conversations: int  # already imported, nothing new in them
    skipped_messages: int
    learning_jobs: int
    budget: str
    #: Messages whose id another conversation also has (a copied or branched chat):
    #: kept, under an id scoped to their conversation.
    repeated_ids_kept: int = 0
    #: Messages whose id came earlier in the same conversation: the repeat left out.
    repeated_ids_dropped: int = 0

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def repeats_text(self) -> str:
        """The repeated message ids in a sentence ("" when there were none)."""
        said = []
        if self.repeated_ids_kept:
            said.append(
                "messages whose id another conversation also has (a copied or branched "
                f"chat), kept in both: {self.repeated_ids_kept}"
            )
        if self.repeated_ids_dropped:
            said.append(
                f"messages repeated within one conversation, left out: {self.repeated_ids_dropped}"
            )
        text = "; ".join(said) + "."
        return text[0].upper() + text[1:] if said else ""


def read_export(source: str, path: str | Path) -> list[ImportedConversation]:
    """Every conversation of the export that has words to keep (one of images or tool
    calls alone would be an empty chat in the sidebar), checked: ImportFileError at the
    first bad record."""
    reader = READERS.get(source)
    if reader is None:
        raise ImportFileError(f"Unknown export {source!r}: choose {' or '.join(READERS)}.")
    return [_titled(conversation) for conversation in reader(path) if conversation.messages]


def _titled(conversation: ImportedConversation) -> ImportedConversation:
    """An untitled conversation is named, as the app's own are, by its first question."""
    title = one_line(conversation.title)
    if not title:
        first = next((m for m in conversation.messages if m.role == "user"), None)
        title = one_line(first.content)[:60] if first else "Imported conversation"
    return dataclasses.replace(conversation, title=title)


def _tally(totals: dict[str, int], stored) -> None:
    totals["conversations"] += stored.new_conversations
    totals["messages"] += len(stored.message_ids)
    totals["skipped_conversations"] += stored.skipped_conversations
    totals["skipped_messages"] += stored.skipped_messages
    totals["jobs"] += stored.jobs
    totals["repeated_ids_kept"] += stored.repeated_ids_kept
    totals["repeated_ids_dropped"] += stored.repeated_ids_dropped


def batches(conversations: Sequence[ImportedConversation], limit: int = BATCH_MESSAGES):
    batch: list[ImportedConversation] = []
    size = 0
    for conversation in conversations:
        if batch and size + len(conversation.messages) > limit:
            yield batch
            batch, size = [], 0
        batch.append(conversation)
        size += len(conversation.messages)
    if batch:
        yield batch


async def import_conversations(
    store: Store,
    memories: MemoryService,
    events: EventBus,
    conversations: Sequence[ImportedConversation],
    budget: LearningBudget,
    *,
    progress: ImportProgress | None = None,
    batch_messages: int = BATCH_MESSAGES,
    now: datetime | None = None,
) -> ConversationImportReport:
    """Write ``conversations`` (checked already: :func:`read_export`) and queue the
    learning ``budget`` asks for (its months counted back from ``now``); the messages
    are recallable when this returns."""
    totals = dict.fromkeys(
        (
            "conversations",
            "messages",
            "skipped_conversations",
            "skipped_messages",
            "jobs",
            "repeated_ids_kept",
            "repeated_ids_dropped",
        ),
        0,
    )
    done = 0
    # Each batch's vectors are made (on a worker thread) while the next batch is
    # written (on the database thread): the two halves of an import overlap.
    embedding: asyncio.Task | None = None
    try:
        for batch in batches(conversations, batch_messages):
            learn = {m.source_id for c in batch for m in c.messages if budget.learns_from(m, now)}
            stored = await store.run(store_imported_batch, batch, learn)
            if embedding is not None:
                await embedding
            # Their vectors now, so episodic recall finds them by meaning at once.
            embedding = asyncio.create_task(memories.episodes.embed_rows(stored.messages))
            _tally(totals, stored)
            for conversation in stored.conversations:
                events.emit(ev.ConversationChanged(conversation))
            done += len(batch)
            if progress is not None:
                progress(done, len(conversations))
        if embedding is not None:
            await embedding
    finally:
        if embedding is not None and not embedding.done():
            embedding.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await embedding
    return ConversationImportReport(
        conversations=totals["conversations"],
        messages=totals["messages"],
        skipped_conversations=totals["skipped_conversations"],
        skipped_messages=totals["skipped_messages"],
        learning_jobs=totals["jobs"],
        budget=str(budget),
        repeated_ids_kept=totals["repeated_ids_kept"],
        repeated_ids_dropped=totals["repeated_ids_dropped"],
    )
