"""Pure rules that both the store and the memory layer apply (no storage, no model, no
I/O): how text splits into words (:mod:`.words`), how long a fact stays true
(:mod:`.durability`) and how much a memory matters (:mod:`.importance`).

Below both layers, so the store never imports the memory layer (an import-linter
contract in pyproject.toml): the store rescores a memory's importance when a change
lands, and searches conversations with the same words the memory's queries use.
"""
