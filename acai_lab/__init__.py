"""The lab: what checks the product from outside it, not the product itself.

- a scripted OpenAI-compatible server on 127.0.0.1 (:mod:`.scripted_openai`, strict for
  tests in :mod:`.strict_server`), a rule-based model for it (:mod:`.scripted_model`) and
  a profile pointed at it (:mod:`.scripted_profile`): whole turns through the real SDK,
  offline;
- the real window with nobody in front of it (:mod:`.headless`) and the probe of the Qt
  binding's references to ``None`` on its hot paths (:mod:`.none_refcount`);
- the self-test driver (:mod:`.self_test`, on a copy of the profile taken by
  :mod:`.profile_snapshot`), which ``acai-desktop --self-test`` imports when it runs.

The tests, the benchmarks (``benchmarks/``) and the frozen bundle (its build runs the
self-test, packaging/acai-desktop.spec adds this package) use it; the wheel does not
ship it. It may import the product; the product imports it only in ``--self-test``.
"""
