"""Each model's speed as this computer measures it (issue 42, item 1): time to the first
token, tokens per second and whether the call failed, over its last calls.

Kept in the profile's folder (``model-speed.json``), not in the memory's store: a
model's speed is a property of this computer and its network, so two computers sharing
one PostgreSQL memory measure their own. A damaged file is set aside and measuring
starts over: it holds nothing the user made.
"""

from __future__ import annotations

import json
import logging
import statistics
from pathlib import Path

from acai_desktop.core.files.atomic import write_json_atomically
from acai_desktop.core.routing.selection import Speed

log = logging.getLogger(__name__)

FILE_NAME = "model-speed.json"
#: The calls a model's figures are medians over: recent enough to follow a server that
#: got a new GPU, enough to shrug off one slow answer.
KEEP_CALLS = 50


def speed_key(base_url: str | None, model: str) -> str:
    """One model at one address (``None``: the built-in server, whatever its port)."""
    return f"{base_url or 'built-in'} {model}"


class SpeedLog:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / FILE_NAME
        self._calls: dict[str, list[list]] = self._load()

    def _load(self) -> dict[str, list[list]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("model speeds unreadable (%s); measuring again", error)
            return {}
        calls = data.get("calls") if isinstance(data, dict) else None
        return {k: v for k, v in calls.items() if isinstance(v, list)} if calls else {}

    def record(
        self,
        key: str,
        *,
        ok: bool,
        first_token_seconds: float | None = None,
        tokens_per_second: float | None = None,
    ) -> None:
        """One call's outcome (kept in memory until :meth:`save`); a failure counts in
        the error rate only."""
        calls = self._calls.setdefault(key, [])
        calls.append([first_token_seconds, tokens_per_second, ok])
        del calls[:-KEEP_CALLS]

    def snapshot(self) -> dict:
        """What :meth:`save` writes, copied (taken where the calls are recorded)."""
        return {"version": 1, "calls": {key: list(calls) for key, calls in self._calls.items()}}

    def save(self, snapshot: dict | None = None) -> None:
        """Write the figures (blocking: off the event loop)."""
        try:
            write_json_atomically(self.path, snapshot or self.snapshot())
        except OSError as error:  # a full disk costs the figures, never the answer
            log.warning("model speeds not saved: %s", error)

    def speed(self, key: str) -> Speed | None:
        """Medians over the model's last calls (None: never called here)."""
        calls = self._calls.get(key)
        if not calls:
            return None
        first = [c[0] for c in calls if c[2] and isinstance(c[0], int | float)]
        rates = [c[1] for c in calls if c[2] and isinstance(c[1], int | float) and c[1] > 0]
        if not first or not rates:
            # Only failures so far: as slow as can be, so anything measured wins.
            return Speed(60.0, 1.0, error_rate=1.0, calls=len(calls))
        failures = sum(1 for c in calls if not c[2])
        return Speed(
            statistics.median(first),
            statistics.median(rates),
            error_rate=failures / len(calls),
            calls=len(calls),
        )
