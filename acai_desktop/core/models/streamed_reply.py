"""A reply asked for as a stream and read whole.

A server that answers one request at a time (llama.cpp's) stops a streamed reply as soon
as its client goes, so a closed stream frees it for the user's turn; a reply it is not
streaming it finishes first, however long it takes. The client therefore asks such a
server for every reply as a stream, and this module puts the pieces back together."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from acai_desktop.core.errors import ModelReplyError
from acai_desktop.core.models.replies import Completion


async def read_whole(opening: Awaitable[Any], where: str) -> Completion:
    """The reply carried by the stream ``opening`` gives (the SDK's request for a stream
    of chat chunks; the stream is closed here), from the server and model ``where`` names."""
    stream = await opening
    parts: list[str] = []
    finish_reason = None
    prompt_tokens = completion_tokens = None
    async with stream:
        async for chunk in stream:
            if chunk.usage is not None:
                prompt_tokens = chunk.usage.prompt_tokens
                completion_tokens = chunk.usage.completion_tokens
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            finish_reason = choice.finish_reason or finish_reason
            if choice.delta and choice.delta.content:
                parts.append(choice.delta.content)
    if finish_reason is None:
        # llama.cpp's server ends a stream early (no finish reason) when another
        # request waits: a cut reply, not a short one.
        raise ModelReplyError(
            f"The reply from {where} ended before it was finished "
            "(the stream stopped without a finish reason)."
        )
    return Completion(
        text="".join(parts),
        finish_reason=finish_reason,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
