"""Benchmark tests use the same scripted OpenAI-compatible server as the core tests."""

from tests.core.conftest import fake_openai  # noqa: F401  (a fixture, used by name)
