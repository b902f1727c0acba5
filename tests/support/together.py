"""Starting several of the test support's services at once: each takes seconds to start, and
most of that is waiting."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from typing import Any


def start_together(
    stack: ExitStack, managers: dict[str, AbstractContextManager[Any]]
) -> dict[str, Any]:
    """Enter the context managers at once; every one that started is exited with ``stack``
    (the first error is raised once all have started or failed). Returns name -> what each
    yielded."""
    with ThreadPoolExecutor(max(len(managers), 1)) as pool:
        futures = {name: pool.submit(m.__enter__) for name, m in managers.items()}
    started: dict[str, Any] = {}
    error: BaseException | None = None
    for name, future in futures.items():
        exc = future.exception()
        if exc is None:
            stack.push(managers[name].__exit__)
            started[name] = future.result()
        else:
            error = error or exc
    if error is not None:
        raise error
    return started
