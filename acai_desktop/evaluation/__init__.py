"""Retrieval evaluation: the LoCoMo-format harness and the speed benchmark."""
