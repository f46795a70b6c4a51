"""Errors a user can act on. Each message names the thing at fault and what to do."""


class ShuError(Exception):
    """Base class: anything Shu reports to a user as a one-line error."""


class ConfigError(ShuError):
    pass


class InvalidRequestError(ShuError):
    """The request itself is wrong (an empty or over-long question, a bad argument): a client's
    mistake (HTTP 400/422), never the server's."""


class NotFoundError(ShuError):
    """The thing asked for does not exist, or not for this asker (HTTP 404)."""


class ForbiddenError(ShuError):
    """The asker may not reach this (HTTP 403)."""


class ConflictError(ShuError):
    """The request collides with the state of the knowledge base (HTTP 409)."""


class UnknownPersonaError(NotFoundError):
    def __init__(self, slug: str, known: list[str]) -> None:
        listing = ", ".join(known) if known else "none ingested yet"
        super().__init__(f"unknown persona {slug!r} (known: {listing})")
        self.slug = slug


class DocumentError(ShuError):
    """A single input file cannot be ingested; the run goes on without it."""


class SkipDocument(ShuError):
    """A file is deliberately not ingested (empty, unsupported type); not a failure."""


class EmbedderError(ShuError):
    pass


class StoreError(ShuError):
    pass


class UnauthorizedError(ShuError):
    """No key, or a key that is unknown or revoked (HTTP 401)."""


class LockedError(ShuError):
    """An account that may not sign in for now: too many wrong passwords, or locked by an admin
    (HTTP 423)."""


class TooManyRequestsError(ShuError):
    """Too many attempts from one place for now (HTTP 429, with Retry-After)."""

    def __init__(self, message: str, retry_after_s: int = 1) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
