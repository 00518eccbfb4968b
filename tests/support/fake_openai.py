"""The scripted OpenAI-compatible server lives in the product (the self-test and the soak
bench use it too); tests import it from here as they always did."""

from acai_desktop.evaluation.scripted_openai import (
    EMBEDDING_DIMENSIONS,
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    hashed_embedding,
)

__all__ = [
    "EMBEDDING_DIMENSIONS",
    "FakeOpenAIServer",
    "RecordedRequest",
    "Reply",
    "hashed_embedding",
]
