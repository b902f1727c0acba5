"""The pure part of capacity trends: what one sample counts, the least-squares rate, when a
falling series runs out, and how a long series is thinned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot
from flavorsmith.matching.trends import (
    Count,
    RunsOut,
    Sample,
    measure,
    runs_out,
    series,
    slope,
    thin,
)

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _daily(*sellable: int, start: datetime = T0) -> list[Sample]:
    return [Sample(start + timedelta(days=i), 10, n, 10 - n) for i, n in enumerate(sellable)]


def test_measure_counts_each_flavor_and_each_resource_class() -> None:
    nodes = (
        NodeInfo("u1", "a", "m1.small", frozenset({"CUSTOM_A"})),  # available
        NodeInfo("u2", "b", "m1.small", frozenset({"CUSTOM_A"}), instance_uuid="i-1"),  # used
        NodeInfo("u3", "c", "m1.small", frozenset(), maintenance=True),  # neither
        NodeInfo("u4", "d", "gpu", frozenset()),
        NodeInfo("u5", None, None, frozenset()),  # no resource class: in no series
    )
    flavors = [
        FlavorRule("small.a", "m1.small", frozenset({"CUSTOM_A"}), frozenset()),
        FlavorRule("small", "m1.small", frozenset(), frozenset()),
        FlavorRule("none", "m1.large", frozenset(), frozenset()),
    ]
    assert measure(Index.build(Snapshot(nodes)), flavors) == [
        Count("flavor", "small.a", "m1.small", total=2, sellable=1, used=1),
        Count("flavor", "small", "m1.small", total=3, sellable=1, used=1),
        Count("flavor", "none", "m1.large", total=0, sellable=0, used=0),
        Count("resource_class", "gpu", "gpu", total=1, sellable=1, used=0),
        Count("resource_class", "m1.small", "m1.small", total=3, sellable=1, used=1),
    ]


def test_slope_is_the_least_squares_fit() -> None:
    assert slope([(0, 1), (1, 3), (2, 5)]) == 2.0
    assert slope([(0, 0), (1, 2), (2, 1)]) == 0.5
    assert slope([(0, 4)]) is None
    assert slope([(1, 4), (1, 6)]) is None  # no spread in x: no line


def test_a_falling_series_runs_out_at_its_recent_rate() -> None:
    # One node fewer a day over the last day's samples (hours apart), 6 left.
    start = T0 + timedelta(days=5)
    samples = [
        *_daily(20, 20),
        *(Sample(start + timedelta(hours=h), 10, 8 - h // 12, 0) for h in (0, 12, 24)),
    ]
    forecast = runs_out(samples)
    assert forecast == RunsOut(rate_per_day=-2.0, days=3.0, at=start + timedelta(days=4))
    assert forecast.as_dict() == {
        "rate_per_day": -2.0,
        "days": 3.0,
        "at": "2026-11-10T00:00:00+00:00",
    }


def test_a_level_or_rising_series_does_not_run_out() -> None:
    assert runs_out(_daily(5, 5, 5)) is None
    assert runs_out(_daily(5, 6)) is None
    assert runs_out(_daily(5)) is None
    assert runs_out([]) is None


def test_the_recent_window_decides_the_rate() -> None:
    # Falling for days, level over the last day: no forecast; a wider window sees the fall.
    samples = [*_daily(9, 8, 7, 6), Sample(T0 + timedelta(days=3, hours=12), 10, 6, 4)]
    assert runs_out(samples) is None
    wider = runs_out(samples, recent=timedelta(days=4))
    # x (days before the newest) -3.5 -2.5 -1.5 -0.5 0, y 9 8 7 6 6: slope -7.4 / 8.2.
    assert wider == RunsOut(
        rate_per_day=pytest.approx(-37 / 41),  # type: ignore[arg-type]
        days=pytest.approx(6 * 41 / 37),  # type: ignore[arg-type]
        at=wider.at if wider is not None else T0,
    )
    assert wider is not None and wider.as_dict() == {
        "rate_per_day": -0.9,
        "days": 6.6,
        "at": "2026-11-11T03:34:03+00:00",  # 6.6486 days after Nov 4, 12:00
    }


def test_a_series_already_out_runs_out_now() -> None:
    samples = _daily(2, 0)
    assert runs_out(samples, recent=timedelta(days=2)) == RunsOut(-2.0, 0.0, samples[-1].at)


def test_thin_keeps_the_newest_and_spaces_the_rest() -> None:
    samples = _daily(*range(10))
    assert [s.sellable for s in thin(samples, 3)] == [1, 5, 9]
    assert [s.sellable for s in thin(samples, 4)] == [0, 3, 6, 9]
    assert thin(samples, 10) == samples
    assert thin(samples, 0) == []


def test_series_is_the_api_shape() -> None:
    samples = _daily(4, 3, 2)  # thinned to two: every second one, the newest kept
    assert series("flavor", "f", "m1.small", samples, most=2, recent=timedelta(days=2)) == {
        "scope": "flavor",
        "name": "f",
        "resource_class": "m1.small",
        "samples": [
            {"at": "2026-11-01T00:00:00+00:00", "total": 10, "sellable": 4, "used": 6},
            {"at": "2026-11-03T00:00:00+00:00", "total": 10, "sellable": 2, "used": 8},
        ],
        "runs_out": {"rate_per_day": -1.0, "days": 2.0, "at": "2026-11-05T00:00:00+00:00"},
    }
