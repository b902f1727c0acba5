"""A page's viewport of an exact size in CSS pixels (Chrome DevTools' device metrics), whatever
the window around it: to check what a reader sees without scrolling on a given screen."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def viewport(browser: Any, width: int, height: int) -> Iterator[None]:
    """The page's viewport is ``width`` by ``height`` inside the block, the window's after it."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
