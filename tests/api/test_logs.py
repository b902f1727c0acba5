"""Log lines as an operator reads them: one line per event with time, level, logger, request id
and the event's fields, as JSON or text; Alembic's routine INFO lines only at DEBUG; a hostile
value never starts a line of its own."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from flavorsmith import logs

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    """The root logger configured as serve configures it, writing into a buffer."""
    root = logging.getLogger()
    level = root.level
    saved = {name: logging.getLogger(name).level for name in (*logs.ROUTED, "flavorsmith")}
    buffer = io.StringIO()
    yield buffer
    for handler in [h for h in root.handlers if getattr(h, "flavorsmith", False)]:
        root.removeHandler(handler)
    root.setLevel(level)
    for name, old in saved.items():
        logging.getLogger(name).setLevel(old)


def test_json_lines_carry_time_level_logger_request_and_fields(stream: io.StringIO) -> None:
    logs.configure("json", stream=stream)
    token = logs.REQUEST_ID.set("req-1234")
    try:
        logging.getLogger("flavorsmith.api").info(
            "request", extra=logs.event("request", method="GET", status=200)
        )
    finally:
        logs.REQUEST_ID.reset(token)
    logging.getLogger("flavorsmith.sync").warning("plain %s", "message")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert re.fullmatch(TIME, first.pop("time"))
    assert first == {
        "level": "INFO",
        "logger": "flavorsmith.api",
        "request_id": "req-1234",
        "message": "request",
        "event": "request",
        "method": "GET",
        "status": 200,
    }
    assert second["level"] == "WARNING" and second["message"] == "plain message"
    assert "request_id" not in second  # logged outside any request


def test_text_lines_are_one_line_with_hostile_values_quoted(stream: io.StringIO) -> None:
    logs.configure("text", stream=stream)
    logging.getLogger("flavorsmith.api").info(
        "request",
        extra=logs.event(
            "request", request_id="req-9", path="/v1/a\n2026-01-01 INFO forged", user=None, ms=1.5
        ),
    )
    (line,) = stream.getvalue().splitlines()
    assert re.fullmatch(
        TIME + r' INFO    flavorsmith\.api req-9 request path="/v1/a\\n2026-01-01 INFO forged" '
        r"user=- ms=1\.5",
        line,
    ), line


def test_an_exception_stays_in_its_json_line(stream: io.StringIO) -> None:
    logs.configure("json", stream=stream)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("flavorsmith.api").exception("unhandled error")
    (line,) = stream.getvalue().splitlines()
    assert "RuntimeError: boom" in json.loads(line)["exception"]


def test_alembic_info_lines_are_debug(stream: io.StringIO) -> None:
    logs.configure("json", stream=stream)
    logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
    logging.getLogger("alembic.runtime.migration").warning("something odd")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["level"], line["message"]) for line in lines] == [("WARNING", "something odd")]


def test_alembic_info_lines_show_at_debug(stream: io.StringIO) -> None:
    logs.configure("text", level=logging.DEBUG, stream=stream)
    logging.getLogger("alembic.runtime.migration").info("Context impl SQLiteImpl.")
    (line,) = stream.getvalue().splitlines()
    assert " DEBUG   alembic.runtime.migration Context impl SQLiteImpl." in line


def test_text_on_a_terminal_json_otherwise() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert logs.default_format(Terminal()) == "text"
    assert logs.default_format(io.StringIO()) == "json"


def test_every_line_logged_while_serving_names_the_request(
    client: TestClient, stream: io.StringIO
) -> None:
    """A line logged by a handler (here the 500's) names the request as the response does."""
    logs.configure("json", stream=stream)
    response = client.get("/v1/probe/boom")
    request_id = response.headers["x-openstack-request-id"]
    assert re.fullmatch(r"req-[0-9a-f-]{36}", request_id)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    unhandled, request = [line for line in lines if line["logger"] == "flavorsmith.api"]
    assert unhandled["level"] == "ERROR" and unhandled["request_id"] == request_id
    assert "RuntimeError" in unhandled["exception"]
    assert request["event"] == "request" and request["request_id"] == request_id
    assert (request["route"], request["status"]) == ("/v1/probe/boom", 500)


def test_the_time_is_the_records_own_to_the_millisecond() -> None:
    """Each line's time is its record's, in UTC, whichever second the line before was in."""
    times = [1_790_000_000.5, 1_790_000_000.999, 1_790_000_001.0, 1_790_000_000.25, 59.0]
    shown = []
    for created in times:
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        record.created = created
        record.msecs = (created - int(created)) * 1000
        shown.append(logs.timestamp(record))
    assert shown == [
        "2026-09-21T14:13:20.500Z",
        "2026-09-21T14:13:20.999Z",
        "2026-09-21T14:13:21.000Z",
        "2026-09-21T14:13:20.250Z",
        "1970-01-01T00:00:59.000Z",
    ]
