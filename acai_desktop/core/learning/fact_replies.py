"""What the learner's model calls answer, as pydantic models: triage (is there a durable
fact?), extraction (``{"facts": [{fact, category, confidence}]}``) and reconcile (how a
new fact stands to a known one). A small model's reply is read leniently where its
meaning is clear (a confidence on a 1-10 scale, an unknown category) and one broken fact
never costs the others."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from acai_desktop.core.rules.grounding import MAX_FACT_CHARS

CATEGORIES = (
    "Personal",
    "Professional",
    "Preference",
    "Plan",
    "Location",
    "Relationship",
    "Health",
    "Other",
)
MAX_FACTS_PER_MESSAGE = 12


class TriageReply(BaseModel):
    durable_fact: bool


class ExtractedFact(BaseModel):
    # The schema asks for a short standalone sentence; a longer one is still read, so the
    # grounding check can refuse it by name ("too_long") instead of a validation error.
    fact: str = Field(
        min_length=3,
        max_length=20_000,
        description="One short standalone sentence about the user, with a subject and a "
        "verb, starting with 'The user'; only what the message says.",
        json_schema_extra={"maxLength": MAX_FACT_CHARS},
    )
    category: str = "Other"
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("category", mode="before")
    @classmethod
    def known_category(cls, value: object) -> str:
        for category in CATEGORIES:
            if str(value or "").strip().lower() == category.lower():
                return category
        return "Other"

    @field_validator("confidence", mode="before")
    @classmethod
    def on_a_zero_to_one_scale(cls, value: object) -> object:
        """Small models often answer on a 1-10 (or 0-100) scale; 0.9 is what they mean."""
        if isinstance(value, bool):
            return value
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return value  # pydantic says what is wrong with it
        if 1.0 < number <= 10.0:
            return number / 10.0
        if 10.0 < number <= 100.0:
            return number / 100.0
        return number


class ExtractionReply(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list, max_length=MAX_FACTS_PER_MESSAGE)
    #: Why each item that was not a usable fact was left out (never sent as schema).
    dropped: SkipJsonSchema[list[str]] = Field(default_factory=list, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def keep_the_valid_facts(cls, data: object) -> object:
        """One broken item must not cost the others: keep every valid fact, and say why
        each of the others was dropped."""
        if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
            return data  # the wrong shape as a whole: validation says so
        facts, dropped = [], []
        for position, item in enumerate(data["facts"]):
            try:
                facts.append(ExtractedFact.model_validate(item))
            except ValidationError as error:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}"
                    for e in error.errors(include_input=False, include_url=False)[:2]
                )
                dropped.append(f"facts[{position}]: {problems}")
        if len(facts) > MAX_FACTS_PER_MESSAGE:
            dropped.append(f"{len(facts) - MAX_FACTS_PER_MESSAGE} facts over the limit")
            facts = facts[:MAX_FACTS_PER_MESSAGE]
        return {**data, "facts": facts, "dropped": dropped}


class RelationReply(BaseModel):
    relation: Literal["duplicate", "refinement", "contradiction", "unrelated"]
