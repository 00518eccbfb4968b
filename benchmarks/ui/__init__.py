"""The benchmarks that run the real window (they import Qt; the product never imports
them)."""
