"""The rule-based fake model lives in the product (the self-test and the soak bench use it
too); tests import it from here as they always did."""

from acai_desktop.evaluation.scripted_model import (
    FACT_PATTERNS,
    UnrecognisedRequest,
    call_counts,
    call_kind,
    extraction_inputs,
    facts_in,
    fake_model,
)

__all__ = [
    "FACT_PATTERNS",
    "UnrecognisedRequest",
    "call_counts",
    "call_kind",
    "extraction_inputs",
    "facts_in",
    "fake_model",
]
