"""The HTTP server: uvicorn with the limits a service on a network needs, through its public
options where it has them — ``timeout_keep_alive`` (the idle time between requests) and
``limit_concurrency`` (the connection limit, answered with uvicorn's 503) — and a subclass of
its httptools protocol (``GuardedHttpToolsProtocol``) for the guards no public option of
uvicorn gives:

- an idle timer from a connection's first byte: uvicorn arms its keep-alive timer only after a
  first response, so a connection that never sends anything stays open;
- a request-head timer: a connection that sends part of a head and stalls is closed after the
  header timeout (uvicorn has no such timer: a slow-loris client holds a slot for ever);
- a request-body timer: a body not in full within the body timeout of its head gets a 408 in
  its API family's body (when no response has begun) and the connection is closed;
- a head larger than MAX_HEADER_BYTES is a 431 (uvicorn's limit on a head,
  ``h11_max_incomplete_event_size``, exists for its h11 protocol only);
- ``/healthz`` and ``/readyz`` are answered past the connection limit, so that slow clients
  filling it never make a replica look dead, and the overload is logged once a minute, not
  once per socket (uvicorn refuses every request past ``limit_concurrency`` alike).

A reverse proxy in front (the Kubernetes manifests' ingress) may enforce the same; the service
does not rely on one. Requests are parsed by uvicorn's httptools protocol (llhttp, Node.js's C
parser): a round trip costs a third less than on its pure-Python h11 one. The event loop is
uvloop's where it is installed (a dependency; uvicorn's "auto" picks it), asyncio's otherwise:
the protocol only uses what both loops offer."""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Any

import httptools
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from flavorsmith.api.families import error_response, family_of
from flavorsmith.api.log_throttle import LogThrottle, left_out_note
from flavorsmith.api.middleware import BODY_TIMED_OUT
from flavorsmith.config import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
)

# What uvicorn logs, once per refused request, when its concurrency limit is exceeded.
_UVICORN_OVERLOAD = "Exceeded concurrency limit."
# Answered past the connection limit: a load balancer's and a kubelet's probes.
PROBE_PATHS = frozenset({b"/healthz", b"/readyz"})


@dataclass(frozen=True)
class Limits:
    idle_timeout: int = DEFAULT_IDLE_TIMEOUT
    header_timeout: int = DEFAULT_HEADER_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    body_timeout: float = DEFAULT_BODY_TIMEOUT


class ServerConfig(uvicorn.Config):
    """uvicorn's configuration and the header timeout its protocol reads."""

    def __init__(self, app: Any, limits: Limits, **options: Any) -> None:
        super().__init__(
            app,
            http=GuardedHttpToolsProtocol,
            timeout_keep_alive=limits.idle_timeout,
            # uvicorn refuses when the open connections, the one asking included, reach the
            # limit: one more lets exactly max_connections be served.
            limit_concurrency=limits.max_connections + 1,
            **options,
        )
        self.limits = limits


class HeadTooLarge(Exception):
    """Raised in the parser's callback when a request head passes MAX_HEADER_BYTES."""


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a timer on a fresh connection and on a request head,
    and a limit on the size of a request head (431, as the parser itself has none)."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        limits = config.limits if isinstance(config, ServerConfig) else Limits()
        self.header_timeout = limits.header_timeout
        self.body_timeout = limits.body_timeout
        self.head_timer: asyncio.TimerHandle | None = None
        self.body_timer: asyncio.TimerHandle | None = None
        # Bytes of the request head being received: as they arrive (bounds what a head that
        # never ends may make the parser keep) and as parsed (a head received in one read).
        self.head_received = 0
        self.head_parsed = 0
        self.head_too_large = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # A connection that never sends a byte is idle too.
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        self._stop_body_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.head_timer is not None and not self.transport.is_closing():
            # A head still incomplete after this read: its bytes so far are bounded.
            self.head_received += len(data)
            if self.head_received > MAX_HEADER_BYTES:
                self._refuse_head()

    # The parser's callbacks: a head begins, grows, and is complete.

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_received = self.head_parsed = 0
        self._stop_head_timer()
        # Not restarted by more bytes: a trickle of header bytes is timed from its start.
        self.head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def on_url(self, url: bytes) -> None:
        self.head_parsed += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_parsed += len(name) + len(value) + 4  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._stop_head_timer()
        if self.head_parsed > MAX_HEADER_BYTES:
            self.head_too_large = True
            raise HeadTooLarge  # the parser stops; uvicorn answers with send_400_response
        limit = self.limit_concurrency
        if limit is not None and httptools.parse_url(self.url).path in PROBE_PATHS:
            self.limit_concurrency = None  # probes are answered past the connection limit
        try:
            super().on_headers_complete()
        finally:
            self.limit_concurrency = limit
        if self._has_body():
            # The whole body is timed from the end of the head: more bytes do not restart it.
            self.body_timer = self.loop.call_later(self.body_timeout, self._body_timed_out)

    def on_message_complete(self) -> None:
        self._stop_body_timer()
        super().on_message_complete()

    def _has_body(self) -> bool:
        for name, value in self.headers:
            if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
                return True
        return False

    def send_400_response(self, msg: str) -> None:
        if self.head_too_large:
            self._refuse_head()
            return
        super().send_400_response(msg)

    def _refuse_head(self) -> None:
        """431 and close: the request head is larger than this server reads."""
        self._stop_head_timer()
        message = (
            f"Request head is larger than {MAX_HEADER_BYTES} bytes, the most accepted "
            "(request line and header fields)"
        ).encode("ascii")
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(message)).encode("ascii") + b"\r\n"
            b"connection: close\r\n\r\n" + message
        )
        self.transport.close()

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _stop_body_timer(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None

    def _body_timed_out(self) -> None:
        """The body has not arrived in full: a 408 in the family's error body when no
        response has begun, then the connection is closed. The handler waiting for the body
        sees the client gone; the service records the request as this 408."""
        self.body_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:
            cycle.response_started = True  # nothing the handler sends now reaches the socket
            state = cycle.scope.get("state")
            if isinstance(state, dict):
                state[BODY_TIMED_OUT] = True
            path = str(cycle.scope.get("path", "/"))
            message = (
                f"The request body did not arrive within {self.body_timeout:g} seconds of its "
                "head (--body-timeout); send it at once, or in fewer, larger writes"
            )
            response = error_response(family_of(path), 408, message)
            head = [b"HTTP/1.1 408 Request Timeout"]
            for name, value in response.raw_headers:
                if name not in (b"connection",):
                    head.append(name + b": " + value)
            head.append(b"connection: close")
            self.transport.write(b"\r\n".join(head) + b"\r\n\r\n" + bytes(response.body))
        self.transport.close()


class OverloadLog(logging.Filter):
    """Lets uvicorn's per-request overload warning through once a minute, reworded with
    the limit and how many were left out."""

    def __init__(self, max_connections: int) -> None:
        super().__init__()
        self.max_connections = max_connections
        self.throttle = LogThrottle()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() != _UVICORN_OVERLOAD:
            return True
        left_out = self.throttle.admit()
        if left_out is None:
            return False
        record.msg = (
            f"overloaded: {self.max_connections} connections open, the most served "
            f"(--max-connections); answering 503{left_out_note(left_out)}"
        )
        record.args = ()
        return True


def server(app: Any, limits: Limits, **options: Any) -> uvicorn.Server:
    """A uvicorn server for ``app`` with ``limits``; ``options`` are uvicorn's."""
    config = ServerConfig(app, limits, **options)
    error_log = logging.getLogger("uvicorn.error")
    for old in [f for f in error_log.filters if isinstance(f, OverloadLog)]:
        error_log.removeFilter(old)
    error_log.addFilter(OverloadLog(limits.max_connections))
    return uvicorn.Server(config)


def run(app: Any, limits: Limits, sock: socket.socket, **options: Any) -> None:
    """Serve ``app`` on the listening ``sock`` until interrupted."""
    server(app, limits, **options).run(sockets=[sock])
