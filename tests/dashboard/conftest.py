"""One live service on the example data for the whole package (starting one costs a node
import and a server start), and one browser session per test module. The tests change nothing
the others count: the node page's test adds a trait no flavor names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import chromium, example_service


@pytest.fixture(scope="package")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the service's URL, its database URL)."""
    with example_service(tmp_path_factory.mktemp("dashboard")) as found:
        yield found


# The window the pages are checked and photographed in (the docs' screenshots are this wide).
WINDOW = (1400, 900)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(*WINDOW) as driver:
        yield driver
