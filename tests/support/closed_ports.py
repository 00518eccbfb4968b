"""Addresses where nothing answers, for detection tests that must not see the machine's
own Ollama / LM Studio / llama.cpp servers."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from contextlib import contextmanager

from acai_desktop.core.models.detection import (
    PROBED_PROVIDERS,
    Detect,
    DetectionReport,
    detect_providers,
)
from acai_desktop.core.models.presets import ProviderName


@contextmanager
def closed_ports(count: int) -> Iterator[list[int]]:
    """``count`` ports on 127.0.0.1 that refuse connections. Each port stays bound (but
    not listening) until the block ends, so no other process can take it and answer in
    the meantime."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for held in sockets:
            held.bind(("127.0.0.1", 0))
        yield [held.getsockname()[1] for held in sockets]
    finally:
        for held in sockets:
            held.close()


@contextmanager
def closed_urls(count: int) -> Iterator[list[str]]:
    """``count`` base URLs on 127.0.0.1 ports that refuse connections (see closed_ports)."""
    with closed_ports(count) as ports:
        yield [f"http://127.0.0.1:{port}/v1" for port in ports]


@contextmanager
def presets_with_nothing_there() -> Iterator[dict[ProviderName, str]]:
    """Every preset that first-start detection probes, at an address where nothing answers."""
    with closed_urls(len(PROBED_PROVIDERS)) as urls:
        yield dict(zip(PROBED_PROVIDERS, urls, strict=True))


@contextmanager
def detecting_only(servers: dict[ProviderName, str]) -> Iterator[Detect]:
    """A detection that finds ``servers`` (a preset → its base URL) on this computer and
    nothing else: every other probed preset is at a closed port, no built-in model."""
    with presets_with_nothing_there() as nothing_there:
        urls = {**nothing_there, **servers}

        async def detect() -> DetectionReport:
            found = await detect_providers(0.5, urls=urls, environ={})
            return dataclasses.replace(found, bundled_model=None)

        yield detect
