"""Evaluation, a product feature built on the core (which never imports it; Qt-free).

- ``eval retrieval``: the LoCoMo-format harness (:mod:`.harness`, :mod:`.locomo`) and
  the variants of the app's ranking it can try (:mod:`.retrieval_variants`);
- ``bench``: retrieval speed (:mod:`.bench`, :mod:`.bench_text`), prompt size over a
  conversation (:mod:`.conversation_bench`) and long use (:mod:`.soak`);
- the scripted OpenAI-compatible model that ``--self-test``, ``bench soak`` and the
  tests talk to (:mod:`.scripted_openai`, :mod:`.scripted_model`,
  :mod:`.scripted_profile`, :mod:`.profile_snapshot`).
"""
