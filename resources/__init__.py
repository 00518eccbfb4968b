"""Data files (prompt templates, icons, themes) shipped with ACAI Desktop.

Read them with :func:`acai_desktop.core.resources.resource_text` and friends so the
same code works from a source checkout, an installed wheel and a PyInstaller bundle.
"""
