"""A mirror's first load tells how far it got: a log line per page by default, a bar with the
count and rate on a terminal (``serve`` chooses it when stderr is one); later refreshes say
nothing until their one line."""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine

from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.logs import fields_of
from flavorsmith.progress import progress
from flavorsmith.sync.mirror import Mirror


class Pages:
    """A node source: fixed pages, counting calls."""

    def __init__(self, pages: Sequence[list[dict[str, Any]]]) -> None:
        self._pages = pages
        self.calls = 0

    def pages(self, fields: Sequence[str]) -> Iterator[list[dict[str, Any]]]:
        for page in self._pages:
            self.calls += 1
            yield page


def fleet(sizes: Sequence[int]) -> Pages:
    count = iter(range(sum(sizes)))
    return Pages(
        [
            [
                {"uuid": str(uuid.UUID(int=n + 1)), "name": f"n{n}", "driver": "fake-hardware"}
                for n in (next(count) for _ in range(size))
            ]
            for size in sizes
        ]
    )


@pytest.fixture
def empty_engine(tmp_path: Any) -> Iterator[Engine]:
    """A database of its own: a first load into the suite's shared one would see the nodes
    other tests mirrored and (rightly) refuse to delete them."""
    engine = make_engine(f"sqlite:///{tmp_path / 'mirror.db'}")
    migrate.upgrade(engine)
    yield engine
    engine.dispose()


def test_a_log_line_per_page_of_the_first_load_only(
    empty_engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = Mirror(fleet([3, 3, 1]), empty_engine, label="http://ironic-logged")
    with caplog.at_level(logging.INFO, logger="flavorsmith.mirror"):
        assert mirror.refresh().error is None
        assert mirror.refresh().error is None
    lines = [
        (record.getMessage(), fields_of(record).get("pages"), fields_of(record).get("nodes"))
        for record in caplog.records
    ]
    assert lines == [
        ("mirror first load: page read", 1, 3),
        ("mirror first load: page read", 2, 6),
        ("mirror first load: page read", 3, 7),
        ("mirror refresh", None, 7),
        ("mirror refresh", None, 7),
    ]


def test_a_bar_on_a_terminal(empty_engine: Engine) -> None:
    main, child = os.openpty()
    terminal = os.fdopen(child, "w")

    @contextmanager
    def bar() -> Iterator[Callable[[int, int], None]]:
        with progress("loading nodes from Ironic", stream=terminal) as shown:
            yield lambda _pages, nodes: shown.at(nodes, None)

    mirror = Mirror(
        fleet([3, 3, 1]), empty_engine, label="http://ironic-on-a-terminal", first_load=bar
    )
    try:  # the terminal closed whatever happens: a leaked one fails a later test
        first, second = mirror.refresh(), mirror.refresh()
        drawn = os.read(main, 65536).decode()  # written and flushed: all there, a few lines
    finally:
        terminal.close()
        os.close(main)
    assert first.error is None and second.error is None
    assert drawn.endswith("\r\n")
    lines = [line.rstrip() for line in drawn[:-2].split("\r") if line]
    assert lines[0] == "loading nodes from Ironic  0"
    assert [line.split("  ")[1] for line in lines[1:]] == ["3", "6", "7"]
    for line in lines[1:]:
        assert line.split("  ")[2].endswith("/s")
