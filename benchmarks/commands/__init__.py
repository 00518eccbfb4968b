"""The command-line modules of ``python -m benchmarks`` (``bench`` and ``eval``)."""
