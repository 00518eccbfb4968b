"""Read a profile's database directly, as a check from outside the program."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def rows(db_path: Path, sql: str) -> list[tuple]:
    connection = sqlite3.connect(db_path)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()
