"""A conversation's transcript as shown (one version of each answer, one branch), and
the news that it changed: after a Regenerate (the new version takes the old one's
place) or when the user picks another version or branch (docs/architecture.md
"Versions and branches")."""

from __future__ import annotations

import logging

from acai_desktop.core.events import TranscriptChanged
from acai_desktop.core.memory.episodic import EpisodicIndex
from acai_desktop.core.store.conversation_repository import ConversationRepository
from acai_desktop.core.store.message_tree import PathChange

log = logging.getLogger(__name__)


async def transcript_changed(
    conversations: ConversationRepository, conversation_id: int
) -> TranscriptChanged:
    """The news of the conversation's transcript now: its shown messages and how many
    sources fed each finished answer."""
    messages, counts = await conversations.messages_with_sources(conversation_id)
    return TranscriptChanged(conversation_id, tuple(messages), counts)


async def recall_follows(episodes: EpisodicIndex, change: PathChange) -> None:
    """Recall follows what is shown: the hidden messages leave the vector index (the
    full-text side follows by trigger), the ones shown again get their vectors back. A
    failure to embed costs only the semantic side until the next start embeds them."""
    episodes.forget(change.hidden)
    if change.shown:
        try:
            await episodes.add(change.shown)
        except Exception:
            log.warning("could not embed messages %s for recall", change.shown, exc_info=True)
