"""Whether the model that answers a turn with an image can see it, when the router did
not choose that model (routing off, a model pinned to the chat, or no reachable model
that sees).

A model the known table (or the user's ``model-table.json``) says can't see images would
get the image as a part it can't read: some servers fail with a 400, others drop the
image and the model answers as if there were none, which is worse. So such a turn is
refused before any call, saying which model and what to do. A model nobody knows is
asked anyway: its server's error, if any, comes back as any other model error does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from acai_desktop.core.errors import ModelCantSeeError
from acai_desktop.core.routing.known_models import capabilities_of
from acai_desktop.core.routing.model_table import ModelTable, load_model_table, with_model_table
from acai_desktop.core.routing.selection import Candidate, Where

#: Examples named in the refusal, one for each place a model may run.
VISION_EXAMPLES = "gpt-4o, llava, qwen2.5-vl or gemma3"


class ModelSight:
    def __init__(self, data_dir: Path | None = None) -> None:
        #: Where the user's model table is (None: the known table alone, as in evaluations).
        self.data_dir = data_dir

    async def sees(self, model: str) -> bool | None:
        """Whether ``model`` sees images: True or False when a table knows its family,
        None when nothing is known of it."""
        table = ModelTable()
        if self.data_dir is not None:
            table, _problems = await asyncio.to_thread(load_model_table, self.data_dir)
        candidate = Candidate(model, "", Where.THIS_COMPUTER, 0, capabilities_of(model))
        capabilities = with_model_table(candidate, table).capabilities
        return capabilities.vision if capabilities.known else None

    async def require(self, model: str, *, pinned: bool, routed: bool) -> None:
        """Refuse (ModelCantSeeError) a turn with an image for ``model`` when it is known
        not to see. ``pinned``: the chat has a model of its own (never rerouted);
        ``routed``: the chat routes turns, and no reachable model sees images."""
        if await self.sees(model) is not False:
            return
        if routed:
            what = (
                f"This message has an image, and none of the models you can reach sees "
                f"images; the chat's model, {model}, can't either."
            )
            todo = f"Add a model that sees images ({VISION_EXAMPLES}), then Retry."
        else:
            what = f"This message has an image, and {model} can't see images."
            todo = f"Pick a model that sees images ({VISION_EXAMPLES}) in the chat's ⚙"
            todo += (
                " (a chat's own model is never rerouted), then Retry."
                if pinned
                else ", or turn on routing (“Each answer from”, there or in Settings) so "
                "images go to a model that sees them; then Retry."
            )
        raise ModelCantSeeError(
            f"{what} {todo} On the command line: --model NAME or --policy best. "
            "Your message and its image are kept."
        )
