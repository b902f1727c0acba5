"""A TCP proxy on loopback that can freeze the connections through it: while frozen, no byte
is forwarded either way and none is refused or closed (as when packets are dropped), and new
connections are accepted and held the same way. For the tests of a stalled database."""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress


class StallProxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.running = threading.Event()  # set: bytes flow
        self.running.set()
        self.closed = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def freeze(self) -> None:
        self.running.clear()

    def thaw(self) -> None:
        self.running.set()

    def close(self) -> None:
        self.closed.set()
        self.running.set()
        for sock in [self.listener, *self.sockets]:
            with suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.sockets.append(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        self.running.wait()  # a connection made while frozen is held, not refused
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        self.sockets.append(server)
        peers = {client: server, server: client}
        try:
            while not self.closed.is_set():
                self.running.wait()
                readable, _, _ = select.select(list(peers), [], [], 0.05)
                for sock in readable:
                    if not self.running.is_set():
                        break  # frozen since select: the bytes stay where they are
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)
        except OSError:
            return
        finally:
            client.close()
            server.close()


@contextmanager
def stall_proxy(upstream: tuple[str, int]) -> Iterator[StallProxy]:
    proxy = StallProxy(upstream)
    try:
        yield proxy
    finally:
        proxy.close()
