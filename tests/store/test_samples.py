"""Capacity samples on SQLite and PostgreSQL: stored, read back as series in a window and
filtered, and pruned past the retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection

from flavorsmith.matching.trends import Count, Sample
from flavorsmith.store import samples

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _take(connection: Connection, at: datetime, sellable: int) -> None:
    samples.add(
        connection,
        at,
        [
            Count("flavor", "m1.small", "m1.small", 4, sellable, 4 - sellable),
            Count("flavor", "c2.large", "c2.large", 2, 1, 1),
            Count("resource_class", "m1.small", "m1.small", 5, sellable, 4 - sellable),
        ],
    )


def _everything(connection: Connection) -> None:
    samples.prune(connection, T0 + timedelta(days=365))


def test_samples_come_back_as_series_oldest_first(connection: Connection) -> None:
    _everything(connection)
    for day, sellable in ((2, 1), (0, 3), (1, 2)):  # stored out of order
        _take(connection, T0 + timedelta(days=day), sellable)
    found = samples.read(connection, since=T0)
    assert [(s.scope, s.name, s.resource_class) for s in found] == [
        ("flavor", "c2.large", "c2.large"),
        ("flavor", "m1.small", "m1.small"),
        ("resource_class", "m1.small", "m1.small"),
    ]
    assert found[1].samples == [
        Sample(T0, 4, 3, 1),
        Sample(T0 + timedelta(days=1), 4, 2, 2),
        Sample(T0 + timedelta(days=2), 4, 1, 3),
    ]
    # The window starts at ``since``, inclusive.
    later = samples.read(connection, since=T0 + timedelta(days=1), scope="flavor")
    assert [(s.name, [x.sellable for x in s.samples]) for s in later] == [
        ("c2.large", [1, 1]),
        ("m1.small", [2, 1]),
    ]


def test_samples_filtered_by_scope_names_and_resource_class(connection: Connection) -> None:
    _everything(connection)
    _take(connection, T0, 3)
    assert [
        (s.scope, s.name) for s in samples.read(connection, since=T0, scope="resource_class")
    ] == [("resource_class", "m1.small")]
    named = samples.read(connection, since=T0, scope="flavor", names={"c2.large", "gone"})
    assert [(s.scope, s.name) for s in named] == [("flavor", "c2.large")]
    by_class = samples.read(connection, since=T0, resource_class="m1.small")
    assert [(s.scope, s.name) for s in by_class] == [
        ("flavor", "m1.small"),
        ("resource_class", "m1.small"),
    ]


def test_prune_deletes_the_samples_before_the_retention(connection: Connection) -> None:
    _everything(connection)
    for day in range(4):
        _take(connection, T0 + timedelta(days=day), 1)
    assert samples.prune(connection, T0 + timedelta(days=2)) == 6  # two samples of three rows
    kept = samples.read(connection, since=T0 - timedelta(days=1))
    assert {s.name: [x.at for x in s.samples] for s in kept if s.scope == "flavor"} == {
        "c2.large": [T0 + timedelta(days=2), T0 + timedelta(days=3)],
        "m1.small": [T0 + timedelta(days=2), T0 + timedelta(days=3)],
    }
    assert samples.prune(connection, T0 + timedelta(days=2)) == 0


def test_times_are_utc_whatever_zone_they_were_given_in(connection: Connection) -> None:
    _everything(connection)
    paris = T0.astimezone(datetime.fromisoformat("2026-11-01T13:00:00+01:00").tzinfo)
    _take(connection, paris, 2)
    [first, *_] = samples.read(connection, since=T0)
    assert first.samples[0].at == T0 and first.samples[0].at.tzinfo == UTC
