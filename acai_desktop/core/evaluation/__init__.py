"""Retrieval evaluation: the LoCoMo-format harness and the synthetic benchmark profiles."""
