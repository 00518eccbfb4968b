"""ACAI Desktop: a desktop chat assistant that remembers."""

__version__ = "0.1.0"
