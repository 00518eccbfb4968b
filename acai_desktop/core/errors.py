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


class NewerDatabaseError(StoreError):
    """The database was updated by a newer ACAI Desktop: it has migrations this version
    doesn't know, so this version refuses to read or write it (nothing is changed)."""


class StoreUnavailableError(StoreError):
    """The PostgreSQL server holding the memory can't be used now; ``problem`` (a
    ``core.profile.server_check.ServerProblem``) says why, what to do, and whether it may clear
    by itself (the window then keeps trying)."""

    def __init__(self, problem) -> None:
        super().__init__(problem.message())
        self.problem = problem


class ModelError(AcaiError):
    """Talking to a language model failed; the message says what happened and what to do."""


class ModelUnreachableError(ModelError):
    """The model server did not answer: not running, wrong address, or no network."""


class ModelTimeoutError(ModelUnreachableError):
    """The model server accepted the request but did not answer in time."""


class ModelUnauthorizedError(ModelError):
    """The model server refused the API key (missing, wrong or without permission)."""


class ModelRateLimitedError(ModelError):
    """The provider is rate-limiting us or the quota is used up.

    ``retry_after`` is the wait in seconds the server asked for, when it said.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelNotFoundError(ModelError):
    """The configured model name does not exist on that server."""


class ContextTooLongError(ModelError):
    """The prompt is longer than the model's context window."""


class ModelServerError(ModelError):
    """The model server failed while handling the request (HTTP 5xx)."""


class ModelReplyError(ModelError):
    """The reply was broken: a stream dropped or ended early, or the body was not valid."""


class ModelCantSeeError(ModelError):
    """The message carries an image and the model that would answer is known not to see
    images: refused before any call (the message and its image are kept)."""


class LocalModelUnavailableError(ModelError):
    """The managed local model server cannot run (extra not installed, model file missing,
    or the server did not start)."""


class ModelSettingsError(ModelError, InvalidInputError):
    """The saved model settings are unreadable or incomplete (a damaged settings file,
    a custom provider without an address). The window opens without a model and points
    to Settings; the command line says what to fix."""


class ModelNotChosenError(ModelSettingsError):
    """No model is chosen yet: the first start's choice was put off (the window opens
    without a model, and says to choose one in Settings)."""


class MissingApiKeyError(ModelUnauthorizedError):
    """The provider needs an API key and none is stored or set in the environment."""


class LocalModelFileMissingError(LocalModelUnavailableError):
    """The GGUF file chosen for the Local provider is not there (moved or deleted)."""
