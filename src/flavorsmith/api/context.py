"""The request context every handler of every family uses: the application's services, the
caller, policy (``authorize``) and blocking work on a worker thread (``run`` in one
transaction, ``call`` without one).

A handler keeps the shape authorize → parse → one call → serialize::

    authorize(request, "baremetal:node:get")
    fields = ...
    row = await run(request, lambda c: store.find(c, ident), write=False)
    return serialize.node(row, ...)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from flavorsmith.api.auth import Identity
from flavorsmith.api.requests import identity
from flavorsmith.api.services import Services
from flavorsmith.db.engine import Connection, writer
from flavorsmith.db.immediate import ImmediateWriter

T = TypeVar("T")


@dataclass(frozen=True)
class RequestContext:
    """One request as the handlers see it."""

    request: Request

    @property
    def services(self) -> Services:
        services: Services = self.request.app.state.services
        return services

    @property
    def identity(self) -> Identity:
        """The authenticated caller (the middleware has set it; 401 if it has not)."""
        return identity(self.request)

    def authorize(self, rule: str, target: Mapping[str, object] | None = None) -> Identity:
        """Refuse (403, in the family's words) unless policy ``rule`` allows the caller on
        ``target``; the caller when it does."""
        who = self.identity
        self.services.enforcer.authorize(rule, who, target)
        return who

    def allowed(self, rule: str, target: Mapping[str, object] | None = None) -> bool:
        """Does policy ``rule`` allow the caller on ``target`` (by default its own project)?
        Never refuses."""
        return self.services.enforcer.permits(rule, self.identity, target)

    async def run(self, work: Callable[[Connection], T], *, write: bool, short: bool = False) -> T:
        """``work`` in one transaction on a worker thread (the database calls block); a
        writing transaction takes SQLite's write lock at BEGIN (whether a node may be written
        is the node service's call, nodes/service.py). ``short``: a write of a few
        statements on one row's worth of data (a node's traits), which on a SQLite file
        always runs on the event loop itself (``ImmediateWriter.write_when_free``: a fraction
        of a millisecond, less than the hop to a worker thread and back; while another writer
        holds the lock it waits without holding the loop or a thread); on any other database,
        on a worker thread as any other."""
        engine = self.services.engine
        immediate = self.services.immediate
        if write and short and immediate is not None:
            result = await immediate.write_when_free(work)
            if immediate.checkpoint_due():  # off the loop, and after this answer
                _checkpoint(immediate)
            return result

        def transaction() -> T:
            with (writer(engine) if write else engine).begin() as connection:
                return work(connection)

        return await run_in_threadpool(transaction)

    async def call(self, work: Callable[[], T]) -> T:
        """``work`` on a worker thread, for blocking work that opens no transaction here."""
        return await run_in_threadpool(work)


def _checkpoint(immediate: ImmediateWriter) -> None:
    """Checkpoint the log on worker threads: first the copy, while writes go on; then the
    restart of the log, which short writes wait for (``run``): a few milliseconds."""
    loop = asyncio.get_running_loop()

    def restart(_: object) -> None:
        immediate.hold_writes()  # until ``checkpoint`` has run (``held``)
        try:
            loop.run_in_executor(None, immediate.checkpoint)
        except RuntimeError:  # the loop is ending (its executor shut down): here, then,
            immediate.checkpoint()  # as the hold must end and no request waits on this loop

    loop.run_in_executor(None, immediate.copy_log).add_done_callback(restart)


def context(request: Request) -> RequestContext:
    return RequestContext(request)


# The same, for handlers that take one step of the context at a time.


def services(request: Request) -> Services:
    return context(request).services


def authorize(request: Request, rule: str, target: Mapping[str, object] | None = None) -> Identity:
    return context(request).authorize(rule, target)


def allowed(request: Request, rule: str, target: Mapping[str, object] | None = None) -> bool:
    return context(request).allowed(rule, target)


async def run(
    request: Request, work: Callable[[Connection], T], *, write: bool, short: bool = False
) -> T:
    return await context(request).run(work, write=write, short=short)


async def call(request: Request, work: Callable[[], T]) -> T:
    return await context(request).call(work)
