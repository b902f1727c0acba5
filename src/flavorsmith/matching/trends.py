"""Capacity over time, pure: what one sample counts (per flavor and per resource class, on the
matcher's index), the least-squares rate of the recent samples, and when at that rate a
flavor's sellable nodes run out. The leader stores the counts (``nodes/samples.py``); the
``/v1/trends`` API and the dashboard's charts read them back through :func:`series`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from flavorsmith.matching.flavor_rules import FlavorRule
from flavorsmith.matching.index import Index, bitmap

Scope = Literal["flavor", "resource_class"]
SCOPES: tuple[Scope, ...] = ("flavor", "resource_class")

# The rate a forecast is drawn from: the samples of the last RECENT before the newest one.
RECENT = timedelta(days=1)
DAY = 86400.0


@dataclass(frozen=True)
class Count:
    """One series' numbers at one sample: a flavor's nodes (those it matches, of them those
    sellable: available as Placement would offer them, and those used: holding an instance),
    or a resource class's nodes counted the same way."""

    scope: Scope
    name: str
    resource_class: str
    total: int
    sellable: int
    used: int


@dataclass(frozen=True)
class Sample:
    """A stored count of one series, at the time it was taken."""

    at: datetime
    total: int
    sellable: int
    used: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(timespec="seconds"),
            "total": self.total,
            "sellable": self.sellable,
            "used": self.used,
        }


def measure(index: Index, flavors: Sequence[FlavorRule]) -> list[Count]:
    """The counts of one sample: each flavor (in the order given), then each resource class
    the nodes have (sorted); nodes without a resource class are in no series."""
    nodes = index.snapshot.nodes
    used = bitmap([p for p, node in enumerate(nodes) if node.used])
    counts = []
    for flavor in flavors:
        bits = index.match(flavor)
        counts.append(
            Count(
                scope="flavor",
                name=flavor.name,
                resource_class=flavor.resource_class,
                total=bits.bit_count(),
                sellable=(bits & index.available).bit_count(),
                used=(bits & used).bit_count(),
            )
        )
    classes: dict[str, list[int]] = {}
    for node in nodes:
        if node.resource_class:
            row = classes.setdefault(node.resource_class, [0, 0, 0])
            row[0] += 1
            row[1] += int(node.available)
            row[2] += int(node.used)
    for name, (total, sellable, in_use) in sorted(classes.items()):
        counts.append(Count("resource_class", name, name, total, sellable, in_use))
    return counts


@dataclass(frozen=True)
class RunsOut:
    """A falling series: its least-squares rate (nodes per day, negative) over the recent
    samples, and the days from the newest sample until none is left at that rate."""

    rate_per_day: float
    days: float
    at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {
            "rate_per_day": round(self.rate_per_day, 2),
            "days": round(self.days, 1),
            "at": self.at.isoformat(timespec="seconds"),
        }


def slope(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``(x, y)`` points; None for fewer than two distinct x."""
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def runs_out(samples: Sequence[Sample], recent: timedelta = RECENT) -> RunsOut | None:
    """When the sellable nodes of ``samples`` (oldest first) run out at the rate of those of
    the last ``recent``: None unless that rate is falling."""
    if not samples:
        return None
    newest = samples[-1].at
    window = [s for s in samples if newest - s.at <= recent]
    rate = slope([((s.at - newest).total_seconds() / DAY, float(s.sellable)) for s in window])
    if rate is None or rate >= 0:
        return None
    days = samples[-1].sellable / -rate
    return RunsOut(rate_per_day=rate, days=days, at=newest + timedelta(days=days))


def thin(samples: Sequence[Sample], most: int) -> list[Sample]:
    """At most ``most`` of ``samples``, evenly spaced by position, the newest always kept."""
    if most < 1:
        return []
    if len(samples) <= most:
        return list(samples)
    step = -(-len(samples) // most)  # ceiling: len(samples) / step <= most
    return list(samples[len(samples) - 1 :: -step][:most])[::-1]


def series(
    scope: Scope,
    name: str,
    resource_class: str,
    samples: Sequence[Sample],
    *,
    most: int,
    recent: timedelta = RECENT,
) -> dict[str, Any]:
    """One series as the API answers it: its samples (oldest first, thinned to ``most``) and,
    computed on every sample, when its sellable nodes run out at the recent rate."""
    forecast = runs_out(samples, recent)
    return {
        "scope": scope,
        "name": name,
        "resource_class": resource_class,
        "samples": [s.as_dict() for s in thin(samples, most)],
        "runs_out": forecast.as_dict() if forecast is not None else None,
    }
