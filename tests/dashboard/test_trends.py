"""The capacity trends in a real browser: the capacity page draws a chart per flavor with
samples and the flavor page its own, each from the samples stored in the database (inserted
here, on a service that takes none itself: ``--trend-interval 0``), as /v1/trends answers
them, with when a falling flavor runs out; axe-core finds nothing serious on either."""

from __future__ import annotations

import json
import math
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest

from flavorsmith.db.engine import make_engine, writer
from flavorsmith.matching.trends import Count
from flavorsmith.store import samples
from tests.support.browser import (
    accessibility_violations,
    console_errors,
    example_service,
    screenshot,
    wait_until,
)

FALLING = "c2.large.vmx-mirror"
LEVEL = "m1.small"
UNSAMPLED = "c2.large"


@pytest.fixture(scope="module")
def trended(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A service with samples of two flavors over the last day and a half: FALLING loses a
    sellable node every 12 hours, LEVEL keeps three. Its URL."""
    with example_service(tmp_path_factory.mktemp("trends"), "--trend-interval", "0") as found:
        url, database = found
        engine = make_engine(database)
        newest = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
        with writer(engine).begin() as connection:
            for hours, sellable in ((36, 7), (24, 6), (12, 5), (0, 4)):
                samples.add(
                    connection,
                    newest - timedelta(hours=hours),
                    [
                        Count("flavor", FALLING, "c2.large", 8, sellable, 8 - sellable),
                        Count("flavor", LEVEL, "m1.small", 5, 3, 2),
                    ],
                )
        engine.dispose()
        yield url


def _api(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def _charts(browser: Any) -> list[dict[str, Any]]:
    wait_until(
        browser,
        lambda d: d.execute_script(
            "return document.getElementById('trend-charts').dataset.loaded === 'true'"
        ),
    )
    drawn: list[dict[str, Any]] = browser.execute_script(
        """
        const ys = (line) => line.getAttribute("points").split(" ").map((p) => Number(p.split(",")[1]));
        return [...document.querySelectorAll("#trend-charts figure.trend")].map((f) => ({
          series: f.dataset.series,
          samples: Number(f.dataset.samples),
          sellable: ys(f.querySelector("polyline.sellable")),
          used: ys(f.querySelector("polyline.used")),
          label: f.querySelector("svg").getAttribute("aria-label"),
          outlook: f.querySelector(".outlook").textContent,
        }));
        """
    )
    return drawn


def _higher_is_up(ys: list[float], values: list[int]) -> bool:
    """The drawn y of each sample puts a bigger count higher (SVG's y grows downwards)."""
    steps = zip(pairwise(ys), pairwise(values), strict=True)
    return len(ys) == len(values) and all(
        (y1 > y2) == (v1 < v2) and (y1 == y2) == (v1 == v2) for (y1, y2), (v1, v2) in steps
    )


def _outlook(series: dict[str, Any]) -> str:
    """What the page says of a series, from the API's answer."""
    out = series["runs_out"]
    if out is None:
        return "not falling over the last day"
    whole = math.floor(out["days"] + 0.5)
    when = "less than a day" if out["days"] < 1 else f"~{whole} day{'' if whole == 1 else 's'}"
    return f"runs out in {when} at the recent rate ({out['rate_per_day']:g} a day)"


def test_the_capacity_page_draws_each_flavor_s_stored_samples(trended: str, browser: Any) -> None:
    browser.get(f"{trended}/ui/")
    drawn = _charts(browser)
    answer = _api(f"{trended}/v1/trends?days=7&scope=flavor&points=60")
    assert [d["series"] for d in drawn] == [f"flavor:{s['name']}" for s in answer["flavors"]]
    assert [d["series"] for d in drawn] == [f"flavor:{FALLING}", f"flavor:{LEVEL}"]
    for chart, series in zip(drawn, answer["flavors"], strict=True):
        values = series["samples"]
        assert chart["samples"] == len(values) == 4
        assert len(chart["sellable"]) == len(chart["used"]) == 4
        assert _higher_is_up(chart["sellable"], [s["sellable"] for s in values])
        assert _higher_is_up(chart["used"], [s["used"] for s in values])
        assert chart["outlook"] == _outlook(series)
    falling = answer["flavors"][0]["runs_out"]
    assert falling is not None and falling["rate_per_day"] < 0
    assert drawn[0]["label"].startswith(f"{FALLING}: sellable and used nodes over the last 7 days")
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
    screenshot(browser, "capacity-trends", max_height=4000)


def test_the_flavor_page_draws_its_own_trend(trended: str, browser: Any) -> None:
    browser.get(f"{trended}/ui/flavor.html?name={FALLING}")
    [chart] = _charts(browser)
    [series] = _api(f"{trended}/v1/trends?days=7&flavor={FALLING}&points=240")["flavors"]
    assert chart["series"] == f"flavor:{FALLING}" and chart["samples"] == 4
    assert _higher_is_up(chart["sellable"], [s["sellable"] for s in series["samples"]])
    assert chart["outlook"] == _outlook(series)
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []

    browser.get(f"{trended}/ui/flavor.html?name={UNSAMPLED}")
    assert _charts(browser) == []
    said = browser.find_element("css selector", "#trend-charts p.none").text
    assert said.startswith("No samples yet")
