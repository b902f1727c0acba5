"""The HTTP server: uvicorn with the limits a service on a network needs. A connection that
sends nothing is closed after the idle timeout (uvicorn arms its keep-alive timer only after
a first response), one that sends part of a request head and stalls after the header timeout
(uvicorn has no such timer), and past the connection limit a request gets uvicorn's 503; the
overload is logged once a minute, not once per socket. The event loop is uvloop's where it is
installed (a dependency; uvicorn's "auto" picks it), asyncio's otherwise: the protocol only
uses what both loops offer."""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from flavorsmith.api.log_throttle import LogThrottle, left_out_note
from flavorsmith.config import (
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
)

# What uvicorn logs, once per refused request, when its concurrency limit is exceeded.
_UVICORN_OVERLOAD = "Exceeded concurrency limit."


@dataclass(frozen=True)
class Limits:
    idle_timeout: int = DEFAULT_IDLE_TIMEOUT
    header_timeout: int = DEFAULT_HEADER_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS


class ServerConfig(uvicorn.Config):
    """uvicorn's configuration and the header timeout its protocol reads."""

    def __init__(self, app: Any, limits: Limits, **options: Any) -> None:
        super().__init__(
            app,
            http=GuardedH11Protocol,
            timeout_keep_alive=limits.idle_timeout,
            # uvicorn refuses when the open connections, the one asking included, reach the
            # limit: one more lets exactly max_connections be served.
            limit_concurrency=limits.max_connections + 1,
            h11_max_incomplete_event_size=MAX_HEADER_BYTES,
            **options,
        )
        self.limits = limits


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a timer on a fresh connection and on a request head."""

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
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # A connection that never sends a byte is idle too.
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler
        )

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_head()  # a pipelined next request may have arrived in part

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _watch_head(self) -> None:
        """Time a request head that has begun to arrive; stop timing once it is complete."""
        pending, _ = self.conn.trailing_data
        if self.conn.their_state is h11.IDLE and pending and not self.transport.is_closing():
            if self.head_timer is None:
                self.head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)
        else:
            self._stop_head_timer()

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
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
