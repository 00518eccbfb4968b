"""The SQLite store (see docs/architecture.md, "Storage and concurrency")."""
