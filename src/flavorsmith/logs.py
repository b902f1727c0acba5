"""How the service logs: one line per event with its time, level, logger, the request it
belongs to and the fields that matter, as text (for a terminal) or JSON (for a collector).

An event is logged with its fields as ``extra={"fields": {...}}`` (see :func:`event`); the
request id of the request being served rides in a context variable, so every line logged
while serving it (by any logger, on any thread the request runs work on) names it. Alembic's
and uvicorn's lines go through the same handler; Alembic's routine INFO lines ("Context impl
SQLiteImpl.", one per start) are DEBUG here."""

from __future__ import annotations

import contextvars
import json
import logging
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

LogFormat = Literal["text", "json"]
FORMATS: tuple[LogFormat, ...] = ("text", "json")

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "flavorsmith_request_id", default=None
)
# Loggers whose INFO lines are routine detail: shown at DEBUG only.
QUIET_INFO = ("alembic",)
# Libraries that install their own handlers unless told not to; theirs are replaced by ours.
ROUTED = ("uvicorn", "uvicorn.error", "uvicorn.access", "alembic")
# The attributes every LogRecord has; anything else was passed as ``extra``.
_FIELDS = "fields"


def event(name: str, **fields: object) -> dict[str, Any]:
    """The ``extra`` of an event line: ``log.info("...", extra=event("sync", kind=...))``."""
    return {_FIELDS: {"event": name, **fields}}


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The fields an event line carries ({} for a plain message)."""
    found = record.__dict__.get(_FIELDS)
    return dict(found) if isinstance(found, Mapping) else {}


def default_format(stream: TextIO) -> LogFormat:
    """Text on a terminal, JSON otherwise (a collector reads it)."""
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


def timestamp(record: logging.LogRecord) -> str:
    """ISO 8601 in UTC with milliseconds: 2026-01-31T12:00:00.123Z."""
    global _second
    whole = int(record.created)
    found = _second
    if found[0] != whole:  # once a second: formatting it cost a log line a fifth of its time
        found = _second = (whole, datetime.fromtimestamp(whole, UTC).strftime(_SECOND))
    return f"{found[1]}{int(record.msecs):03d}Z"


_SECOND = "%Y-%m-%dT%H:%M:%S."
# The last second ``timestamp`` formatted, and how (one tuple: threads swap it whole).
_second: tuple[int, str] = (-1, "")


def _request_id(record: logging.LogRecord) -> str | None:
    found = record.__dict__.get("request_id") or fields_of(record).get("request_id")
    return str(found) if found else None


class RequestIdFilter(logging.Filter):
    """Stamps each record with the request id of the request being served (if any) and
    demotes the routine INFO lines of QUIET_INFO loggers to DEBUG, dropping them below
    ``level``."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        if "request_id" not in record.__dict__:
            record.request_id = REQUEST_ID.get()
        if record.levelno == logging.INFO and record.name.split(".")[0] in QUIET_INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return self.level <= logging.DEBUG
        return True


# json.dumps(value, default=str), without making an encoder for each line.
_encode = json.JSONEncoder(default=str).encode


class JsonFormatter(logging.Formatter):
    """One JSON document per line: time, level, logger, request_id, message, the event's
    fields, and the traceback as one string when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": timestamp(record),
            "level": record.levelname,
            "logger": record.name,
        }
        request_id = _request_id(record)
        if request_id:
            line["request_id"] = request_id
        line["message"] = record.getMessage()
        for key, value in fields_of(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _encode(line)


class TextFormatter(logging.Formatter):
    """``TIME LEVEL LOGGER [REQUEST] message key=value ...``; a value with a space, a quote or
    any character outside printable ASCII is written as a JSON string, so a field never
    starts a forged line."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [timestamp(record), f"{record.levelname:<7}", record.name]
        request_id = _request_id(record)
        if request_id:
            parts.append(request_id)
        parts.append(record.getMessage())
        for key, value in fields_of(record).items():
            if key in ("event", "request_id"):
                continue
            parts.append(f"{key}={text_value(value)}")
        line = " ".join(parts)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def text_value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, str) and value and all(33 <= ord(c) < 127 and c != '"' for c in value):
        return value
    return json.dumps(value, default=str)


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to sys.stderr as it is when a line is written (a test may swap it)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass


def formatter(fmt: LogFormat) -> logging.Formatter:
    return JsonFormatter() if fmt == "json" else TextFormatter()


def configure(
    fmt: LogFormat | None = None, *, level: int = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Send every logger (ours, Alembic's, uvicorn's, any library's) through one handler on
    ``stream`` (stderr) in ``fmt`` (by default: text on a terminal, JSON otherwise). Returns
    the handler (a caller may remove it again)."""
    handler: logging.StreamHandler[TextIO] = (
        logging.StreamHandler(stream) if stream is not None else _Stderr()
    )
    handler.setFormatter(formatter(fmt or default_format(stream or sys.stderr)))
    handler.addFilter(RequestIdFilter(level))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "flavorsmith", False)]:
        root.removeHandler(old)
    handler.flavorsmith = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    # Our loggers at ``level``; other libraries keep the root's level (WARNING by default),
    # so their routine INFO lines (HTTP clients, drivers) stay out, their warnings do not.
    logging.getLogger("flavorsmith").setLevel(level)
    for name in ROUTED:
        routed = logging.getLogger(name)
        routed.handlers.clear()
        routed.propagate = True
        if routed.level == logging.NOTSET or routed.level < level:
            routed.setLevel(level)
    for name in QUIET_INFO:  # their INFO is our DEBUG: not even made above DEBUG
        logging.getLogger(name).setLevel(
            logging.DEBUG if level <= logging.DEBUG else logging.WARNING
        )
    return handler
