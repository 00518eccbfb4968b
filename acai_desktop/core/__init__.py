"""Qt-free core of ACAI Desktop. Never import PySide6 or qasync here."""
