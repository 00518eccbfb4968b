"""What ``eval ablation`` counts as evidence in a prompt: quoted turns (strict), or
turns a memory in the prompt was learned from (credited); never similar text."""

from acai_desktop.core.memory.context_builder import BuiltContext, UsedMemory
from acai_desktop.evaluation.ablation_evidence import EvidenceCheck

TURNS = {
    "D1:1": "I signed up for an evening pottery class.",
    "D1:2": "We adopted a grey kitten called Pixel.",
}
CHECK = EvidenceCheck(TURNS, {11: "D1:1", 12: "D1:2"})


def prompt(text: str, *memory_ids: int) -> BuiltContext:
    used = [UsedMemory(memory_id, rank, 1.0, ["lexical"]) for rank, memory_id in
            enumerate(memory_ids, start=1)]  # fmt: skip
    return BuiltContext([{"role": "user", "content": text}], used, tokens=0)


def test_a_quoted_turn_counts_strictly():
    found = CHECK.found(prompt(f"- [1] Rosa: {TURNS['D1:1']}"), ["D1:1"], {})
    assert found.strict and found.credited


def test_a_memory_learned_from_the_turn_is_credited_but_not_strict():
    fact = "The user adopted a kitten named Pixel."
    found = CHECK.found(prompt(f"- {fact}", 7), ["D1:2"], {7: [12]})
    assert not found.strict and found.credited
    # Learned from another turn: no credit, however alike the words are.
    found = CHECK.found(prompt(f"- {fact}", 7), ["D1:2"], {7: [11]})
    assert not found.strict and not found.credited


def test_every_evidence_turn_is_needed():
    text = f"- [1] Rosa: {TURNS['D1:1']}"
    assert not CHECK.found(prompt(text), ["D1:1", "D1:2"], {}).strict
    both = CHECK.found(prompt(text, 7), ["D1:1", "D1:2"], {7: [12]})
    assert not both.strict and both.credited
    assert not CHECK.found(prompt(text), [], {}).credited  # nothing to find: not found
