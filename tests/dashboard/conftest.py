"""One live service on the example data, and one browser session, per test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import chromium, example_service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the service's URL, its database URL)."""
    with example_service(tmp_path_factory.mktemp("dashboard")) as found:
        yield found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver
