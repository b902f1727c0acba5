"""Domain exceptions: a few bases that one place per API family maps to HTTP."""

from __future__ import annotations


class FlavorsmithError(Exception):
    """Base class. ``status`` is the HTTP status an API answers with."""

    status = 500

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers or {}


class Invalid(FlavorsmithError):
    status = 400


class NotAuthenticated(FlavorsmithError):
    status = 401


class Forbidden(FlavorsmithError):
    status = 403


class NotFound(FlavorsmithError):
    status = 404


class MethodNotAllowed(FlavorsmithError):
    status = 405


class NotAcceptable(FlavorsmithError):
    status = 406


class Conflict(FlavorsmithError):
    status = 409


class PayloadTooLarge(FlavorsmithError):
    status = 413


class UnsupportedMediaType(FlavorsmithError):
    status = 415


class ServiceUnavailable(FlavorsmithError):
    status = 503


class TargetError(Exception):
    """A call a sync target (a real OpenStack service, or the service's own database) refused;
    ``transient`` ones are worth retrying; ``status``: the HTTP status, when there was one."""

    def __init__(self, message: str, *, transient: bool = False, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status
