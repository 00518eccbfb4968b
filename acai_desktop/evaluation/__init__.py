"""Evaluation, a product feature built on the core (which never imports it; Qt-free).

The evaluations the window's Memory health view runs on the user's own model
(:mod:`.runs`: updates, extraction with its grounding check, the ablation), on a
LoCoMo-format dataset (:mod:`.locomo`, played into a profile by :mod:`.dataset_sessions`)
in temporary profiles (:mod:`.temporary_profile`). Nothing else: the benchmarks and the
evaluations only developers run (``python -m benchmarks bench …`` and ``eval …``) live in
the repository's ``benchmarks/``, and the scripted model ``--self-test`` runs offline in
its ``acai_lab/``, both outside the installed package.
"""
