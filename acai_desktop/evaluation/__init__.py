"""Evaluation, a product feature built on the core (which never imports it; Qt-free).

- the evaluations the window's Memory health view runs (:mod:`.runs`: updates,
  extraction with its grounding check, the ablation), on a LoCoMo-format dataset
  (:mod:`.locomo`, :mod:`.harness`, the ranking variants of :mod:`.retrieval_variants`)
  in temporary profiles (:mod:`.temporary_profile`);
- the scripted OpenAI-compatible model that ``--self-test`` runs offline
  (:mod:`.scripted_openai`, :mod:`.scripted_model`, :mod:`.scripted_profile`,
  :mod:`.profile_snapshot`).

The benchmarks and the evaluations only developers run (``python -m benchmarks bench …``
and ``eval …``) live in the repository's ``benchmarks/``, outside the installed package.
"""
