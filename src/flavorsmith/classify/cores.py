"""Physical cores from an agent's logical CPUs, when the brand string says the cores per socket.

The agent reports ``cpu.count`` as logical CPUs (threads) and, from IPA 9.9, ``cpu.socket_count``
(lscpu's ``Socket(s)``); it never reports threads per core. With the cores per socket from the
brand string (``AMD EPYC 9124 16-Core Processor``), the socket count decides the reading. Without
it, 32 logical CPUs of a 16-Core model are one socket at 2 threads per core or two sockets at
1: SMT on is assumed (the firmware default on servers), and the reading says so. A reading never
depends on what the catalog declares, so a catalog that counts threads as cores does not match.
"""

from __future__ import annotations

from dataclasses import dataclass

THREADS_PER_CORE = (2, 1)  # x86 and Arm servers: SMT on or off


@dataclass(frozen=True)
class Reading:
    logical: int
    sockets: int
    per_socket: int
    threads: int
    from_socket_count: bool
    alternative: int | None = None  # sockets at 1 thread per core that would also fit

    @property
    def cores(self) -> int:
        return self.sockets * self.per_socket

    def describe(self) -> str:
        source = (
            "cpu.socket_count and the model string"
            if self.from_socket_count
            else ("the model string")
        )
        assumed = (
            f"; SMT assumed on: no cpu.socket_count rules out {self.alternative} x "
            f"{self.per_socket}-Core at 1 thread per core"
            if self.alternative
            else ""
        )
        return (
            f"{self.cores} cores from {source}: {self.sockets} x {self.per_socket}-Core, "
            f"{self.threads} thread(s) per core ({self.logical} logical CPUs{assumed})"
        )


def read(logical: int, per_socket: int, socket_count: int) -> Reading | str:
    """The one reading of ``logical`` CPUs, or why none fits (``socket_count`` 0: not reported)."""
    if socket_count > 0:
        for threads in THREADS_PER_CORE:
            if logical == socket_count * per_socket * threads:
                return Reading(logical, socket_count, per_socket, threads, True)
        return (
            f"{logical} logical CPUs are not {socket_count} x {per_socket}-Core "
            "(cpu.socket_count and the model string) at 1 or 2 threads per core: "
            "cores disabled in the firmware?"
        )
    fits = [
        Reading(logical, logical // (per_socket * t), per_socket, t, False)
        for t in THREADS_PER_CORE
        if logical % (per_socket * t) == 0
    ]
    if not fits:
        return (
            f"{logical} logical CPUs are not whole {per_socket}-Core sockets at 1 or 2 threads "
            "per core: cores disabled in the firmware?"
        )
    if len(fits) > 1:
        return Reading(
            logical, fits[0].sockets, per_socket, fits[0].threads, False, fits[1].sockets
        )
    return fits[0]
