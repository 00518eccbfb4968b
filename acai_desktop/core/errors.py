"""Every error the core raises on purpose, in one place.

Each carries a message written for the person using the app: the UI and the command
line show ``str(error)`` as it is.
"""


class AcaiError(Exception):
    """Base class of the errors the core raises deliberately."""


class InvalidInputError(AcaiError, ValueError):
    """The caller passed something the core refuses (empty text, bad id, bad file)."""


class NotFoundError(AcaiError, LookupError):
    """A record with that id does not exist."""


class ProtectedMemoryError(AcaiError):
    """A processor tried to change a memory the user pinned or edited.

    ``conflict`` is the memory stored instead with status ``conflict`` (when the
    refused call carried a new fact), so the caller can report it.
    """

    def __init__(self, message: str, conflict: object | None = None) -> None:
        super().__init__(message)
        self.conflict = conflict


class StoreError(AcaiError):
    """The database could not be opened or written (corrupt, read-only, locked)."""
