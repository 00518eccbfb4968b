"""What becomes of a job that failed: failed for good, failed until revived, or retried
later with exponential backoff (a server's Retry-After honoured, within a limit)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from acai_desktop.core.errors import (
    ContextTooLongError,
    InvalidInputError,
    ModelRateLimitedError,
    ModelUnauthorizedError,
    NotFoundError,
)
from acai_desktop.core.records.jobs import Job

log = logging.getLogger(__name__)

#: Failures trying again can't cure: the content is refused, or too long for the model.
PERMANENT_ERRORS = (InvalidInputError, NotFoundError, ContextTooLongError)
#: The longest wait a server's Retry-After may impose on a job (a 429 asking for a day
#: must not hide the job for a day); the user's Retry runs it at once anyway.
MAX_RETRY_AFTER_SECONDS = 600.0


def is_permanent(error: BaseException) -> bool:
    return isinstance(error, PERMANENT_ERRORS)


@dataclass(frozen=True)
class Failure:
    """How a failed attempt is recorded (``JobRepository.fail``'s arguments)."""

    reason: str
    #: When to try again (ISO time); None: the job is failed until revived.
    retry_at: str | None = None
    #: False: no revival either (trying again can't cure it).
    retryable: bool = True


def failure_of(job: Job, error: Exception, *, max_attempts: int, backoff_seconds: float) -> Failure:
    """How ``job``'s failed attempt (its ``attempts``-th) is recorded, and logged."""
    reason = f"{type(error).__name__}: {error}"
    if is_permanent(error):
        log.error("job %d (%s) can't succeed, not retried: %s", job.id, job.kind, reason)
        return Failure(reason, retryable=False)
    if isinstance(error, ModelUnauthorizedError):
        # A refused key (401/403) is refused again a second later: no backoff
        # rounds, the job fails now and says why. It stays revivable: fixed in
        # Settings, the next answer (or start) runs it again.
        log.error("job %d (%s) not retried, the key was refused: %s", job.id, job.kind, reason)
        return Failure(f"{reason} (not retried: fix the key)")
    if job.attempts >= max_attempts:
        log.error(
            "job %d (%s) failed (attempt %d of %d); it runs again at the next start, "
            "or sooner once the model answers: %s",
            job.id,
            job.kind,
            job.attempts,
            max_attempts,
            reason,
        )
        return Failure(reason)
    delay = retry_delay(error, backoff_seconds * 2 ** (job.attempts - 1))
    retry_at = (datetime.now(UTC) + timedelta(seconds=delay)).isoformat()
    log.warning("job %d (%s) failed, retrying in %.1fs: %s", job.id, job.kind, delay, reason)
    return Failure(reason, retry_at)


def retry_delay(error: BaseException, backoff: float) -> float:
    """Seconds until the next attempt: the backoff, or longer if the server asked for a
    wait (429 Retry-After), but never longer than MAX_RETRY_AFTER_SECONDS for that."""
    if isinstance(error, ModelRateLimitedError) and error.retry_after:
        return max(backoff, min(error.retry_after, MAX_RETRY_AFTER_SECONDS))
    return backoff
