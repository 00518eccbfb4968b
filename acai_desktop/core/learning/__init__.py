"""Background learning (facts, summaries) and the persistent jobs that run it."""
