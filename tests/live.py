"""A real HTTP server (uvicorn in a thread, with the protocol and limits `serve` uses) on
loopback, for clients that need a socket."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import FastAPI

from flavorsmith.serving.server import Limits, server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    port = free_port()
    running = server(
        app, Limits(), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=10)
