"""``flavorsmith serve`` closes connections that idle or stall in their request head, and
answers 503 past its connection limit with one overload line in its log, not one per socket."""

from __future__ import annotations

import json
import select
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.serve import serve_process

N = 50  # idle sockets, and as many half-sent ones


@contextmanager
def serve(folder: Path, *options: str) -> Iterator[tuple[int, Path]]:
    """A real `flavorsmith serve` on a free port; yields the port and its log file."""
    with serve_process(folder, *options, ready="/healthz") as served:
        yield served.port, served.log_path


def connect(port: int, data: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    if data:
        sock.sendall(data)
    return sock


def still_open(sockets: list[socket.socket], until: float) -> list[socket.socket]:
    """The sockets the server has not closed by the monotonic time ``until``."""
    remaining = list(sockets)
    while remaining:
        timeout = until - time.monotonic()
        if timeout <= 0:
            break
        readable, _, _ = select.select(remaining, [], [], timeout)
        for sock in readable:
            try:
                if sock.recv(4096) == b"":
                    remaining.remove(sock)
            except ConnectionError:
                remaining.remove(sock)
    return remaining


def status(port: int, path: str = "/healthz") -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_idle_and_half_sent_connections_are_closed(tmp_path: Path) -> None:
    with serve(tmp_path, "--idle-timeout", "1", "--header-timeout", "4") as (port, log):
        assert (
            "limits: idle 1 s, request head 4 s, request body 30 s, 1000 connections"
            in log.read_text()
        )
        started = time.monotonic()
        idle = [connect(port) for _ in range(N)]
        half_sent = [
            connect(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ") for _ in range(N)
        ]
        try:
            assert status(port) == 200  # served meanwhile
            # A trickle of header bytes does not restart the header timer.
            time.sleep(1.5)
            for sock in half_sent:
                sock.sendall(b"a")
            assert still_open(idle, started + 3) == []
            assert still_open(half_sent, time.monotonic()) == half_sent  # not before their time
            assert still_open(half_sent, started + 4 + 4) == []
            assert time.monotonic() - started >= 4 - 0.1
        finally:
            for sock in idle + half_sent:
                sock.close()
        # A complete request on a kept-alive connection is answered as ever.
        assert status(port) == 200


def test_past_the_connection_limit_a_request_is_503_logged_once(tmp_path: Path) -> None:
    with serve(tmp_path, "--max-connections", "3", "--idle-timeout", "60") as (port, log):
        held = [connect(port), connect(port)]
        try:
            assert status(port, "/") == 200  # the third connection is served
            held.append(connect(port))
            time.sleep(0.2)  # the server has accepted it
            refused = [status(port, "/") for _ in range(5)]
            assert refused == [503] * 5
            # Probes are answered past the limit: a full server is not a dead one.
            assert status(port, "/healthz") == 200
            assert status(port, "/readyz") == 200
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 10
        while status(port, "/") != 200:
            assert time.monotonic() < deadline, "still refusing after the connections closed"
            time.sleep(0.1)
    text = log.read_text()
    # stderr is not a terminal, so the log lines are JSON documents
    lines = [
        json.loads(line)["message"]
        for line in text.splitlines()
        if "overloaded" in line and line.startswith("{")
    ]
    assert lines == [
        "overloaded: 3 connections open, the most served (--max-connections); answering 503"
    ], text
    assert "Exceeded concurrency limit" not in text


def test_a_request_head_past_the_limit_is_431(tmp_path: Path) -> None:
    """In one read or trickled, a request head larger than 32 KiB is refused with 431 and
    the connection closed; one just under it is served."""
    refusal = (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
        b"content-type: text/plain; charset=utf-8\r\ncontent-length: 91\r\n"
        b"connection: close\r\n\r\n"
        b"Request head is larger than 32768 bytes, the most accepted "
        b"(request line and header fields)"
    )

    def answer(sock: socket.socket) -> bytes:
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received

    with serve(tmp_path) as (port, _log):
        head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
        whole = connect(port, head + b"X-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        trickled = connect(port, head + b"X-Big: ")
        try:
            for _ in range(5):
                trickled.sendall(b"a" * 10_000)
            assert answer(whole) == refusal
            assert answer(trickled) == refusal
        finally:
            whole.close()
            trickled.close()
        fits = connect(port, head + b"Connection: close\r\nX-Big: " + b"a" * 30_000 + b"\r\n\r\n")
        try:
            assert answer(fits).startswith(b"HTTP/1.1 200 OK\r\n")
        finally:
            fits.close()


def _answer(sock: socket.socket, within: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the socket, and when it closed."""
    sock.settimeout(within)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received, time.monotonic()


def test_a_body_that_stops_arriving_is_408_and_the_slots_come_back(tmp_path: Path) -> None:
    """A body dripped a byte at a time is cut off --body-timeout after its head with a 408 in
    the family's error body, and the connection closed; while such clients fill
    --max-connections, /healthz and /readyz still answer; nothing is logged as an error and
    the request is recorded as the 408 it was."""
    options = ("--body-timeout", "2", "--max-connections", "4", "--idle-timeout", "60")
    with serve(tmp_path, *options) as (port, log):
        head = (
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n{extra}\r\n{{"
        )
        paths = {
            "/compute/v2.1/flavors": "OpenStack-API-Version: compute 2.1\r\n",
            "/baremetal/v1/nodes": "X-OpenStack-Ironic-API-Version: 1.81\r\n",
            "/v1/nodes/any/inspection": "",
            "/load-balancer/v2.0/lbaas/flavors": "",
        }
        started = time.monotonic()
        slow = {
            path: connect(port, head.format(path=path, port=port, extra=extra).encode())
            for path, extra in paths.items()
        }
        try:
            time.sleep(1)
            for sock in slow.values():
                sock.sendall(b" ")  # more bytes do not restart the timer
            assert status(port, "/") == 503  # every slot is held
            assert status(port, "/healthz") == 200
            assert status(port, "/readyz") == 200
            answers = {path: _answer(sock, 10) for path, sock in slow.items()}
        finally:
            for sock in slow.values():
                sock.close()
        for path, (raw, closed) in answers.items():
            assert 2 - 0.1 <= closed - started < 2 + 3, path
            head_bytes, _, body = raw.partition(b"\r\n\r\n")
            assert head_bytes.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), raw
            assert b"connection: close" in head_bytes
            text = body.decode()
            assert "did not arrive within 2 seconds of its head (--body-timeout)" in text, text
        assert json.loads(answers["/compute/v2.1/flavors"][0].partition(b"\r\n\r\n")[2]) == {
            "computeFault": {
                "code": 408,
                "message": "The request body did not arrive within 2 seconds of its head "
                "(--body-timeout); send it at once, or in fewer, larger writes",
            }
        }
        assert "error_message" in answers["/baremetal/v1/nodes"][0].decode()
        deadline = time.monotonic() + 10
        while status(port, "/") != 200:
            assert time.monotonic() < deadline, "slots not given back"
            time.sleep(0.1)
        # A client that gives up mid-body: no error, recorded as 499.
        gone = connect(
            port, head.format(path="/v1/nodes/any/inspection", port=port, extra="").encode()
        )
        time.sleep(0.3)
        gone.close()
        time.sleep(0.5)
    records = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert [r for r in records if r.get("level") in ("ERROR", "CRITICAL")] == []
    statuses = sorted(
        r["status"] for r in records if r.get("message") == "request" and r.get("method") == "POST"
    )
    assert statuses == [408, 408, 408, 408, 499], statuses
