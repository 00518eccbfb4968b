"""Run a coroutine from a plain pytest test (the suite has no asyncio plugin on purpose)."""

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)
