"""The service's Prometheus metrics (every name prefixed ``flavorsmith_``), how they are
exposed, and the listener that serves them.

Counters and histograms are recorded where the work happens (the API middleware, the sync
engine, the mirror); gauges that describe the data (capacity per flavor, nodes per resource
class) are computed when scraped, by collectors passed to :func:`exposition`.

Two modes, chosen by prometheus-client itself when it is first imported: with
``PROMETHEUS_MULTIPROC_DIR`` set, every process writes its values to files in that folder and
a scrape adds them up (``serve`` always runs this way, with a folder of its own per start, so
one worker or many read alike); without it, the values live in this process (tests, and
commands that embed the app)."""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import start_wsgi_server
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# prometheus-client adds a ``_created`` timestamp series to every counter and histogram child in
# one process, and none in multiprocess mode (serve with workers): a scrape shows the same
# series whichever way the service runs.
disable_created_metrics()  # type: ignore[no-untyped-call]
PREFIX = "flavorsmith_"

# Values recorded in this process (single-process mode); ignored in multiprocess mode, where
# the files are the truth.
REGISTRY = CollectorRegistry(auto_describe=True)

# Methods outside this set are counted as "other": a client cannot grow the label set.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Latency buckets (seconds): a cached read takes milliseconds, a sync apply seconds.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


@dataclass(frozen=True)
class Recorded:
    """The metrics recorded as work happens (built on first use: see enable_multiprocess)."""

    requests: Counter
    request_seconds: Histogram
    sync_rounds: Counter
    sync_actions: Counter
    sync_failures: Counter
    sync_last_success: Gauge
    sync_round_seconds: Histogram
    mirror_refreshes: Counter
    mirror_refresh_seconds: Histogram
    mirror_nodes: Gauge
    mirror_last_refresh: Gauge
    # (family, route, method, status) -> the request counter's and histogram's children with
    # those labels: looking them up by labels cost more than recording (the set is bounded:
    # route templates, never raw paths).
    request_children: dict[tuple[str, str, str, str], tuple[Any, Any]] = field(
        default_factory=dict, compare=False
    )


@functools.cache
def recorded() -> Recorded:
    return Recorded(
        requests=Counter(
            "flavorsmith_http_requests",
            "HTTP requests answered, by API family, route template, method and status.",
            ("family", "route", "method", "status"),
            registry=REGISTRY,
        ),
        request_seconds=Histogram(
            "flavorsmith_http_request_duration_seconds",
            "Time to answer an HTTP request, by API family, route template and method.",
            ("family", "route", "method"),
            buckets=BUCKETS,
            registry=REGISTRY,
        ),
        sync_rounds=Counter(
            "flavorsmith_sync_rounds",
            "Sync rounds applied, by kind and result (ok, failed: an action or the round failed, "
            "blocked: the catalog has errors or a prune was refused, skipped: another process held "
            "the sync lock).",
            ("kind", "result"),
            registry=REGISTRY,
        ),
        sync_actions=Counter(
            "flavorsmith_sync_actions",
            "Sync actions that write (or conflict), by kind, action (create, update, delete, ...) "
            "and result (done, failed).",
            ("kind", "action", "result"),
            registry=REGISTRY,
        ),
        sync_failures=Counter(
            "flavorsmith_sync_failures",
            "Sync rounds that failed (the round itself, or at least one of its actions), by kind.",
            ("kind",),
            registry=REGISTRY,
        ),
        sync_last_success=Gauge(
            "flavorsmith_sync_last_success_timestamp_seconds",
            "When a sync round of the kind last applied everything (Unix time).",
            ("kind",),
            multiprocess_mode="max",
            registry=REGISTRY,
        ),
        sync_round_seconds=Histogram(
            "flavorsmith_sync_round_duration_seconds",
            "Time one sync round of a kind took.",
            ("kind",),
            buckets=BUCKETS,
            registry=REGISTRY,
        ),
        mirror_refreshes=Counter(
            "flavorsmith_mirror_refreshes",
            "Refreshes of the Ironic mirror, by source and result (ok, failed: nothing changed).",
            ("source", "result"),
            registry=REGISTRY,
        ),
        mirror_refresh_seconds=Histogram(
            "flavorsmith_mirror_refresh_duration_seconds",
            "Time one refresh of the Ironic mirror took (reading every page, then writing).",
            ("source",),
            buckets=BUCKETS,
            registry=REGISTRY,
        ),
        mirror_nodes=Gauge(
            "flavorsmith_mirror_nodes",
            "Nodes the last good refresh of the Ironic mirror listed.",
            ("source",),
            multiprocess_mode="mostrecent",
            registry=REGISTRY,
        ),
        mirror_last_refresh=Gauge(
            "flavorsmith_mirror_last_refresh_timestamp_seconds",
            "When the last good refresh of the Ironic mirror started (Unix time): its data is "
            "as of then.",
            ("source",),
            multiprocess_mode="max",
            registry=REGISTRY,
        ),
    )


def multiprocess_dir() -> str | None:
    """The folder of multiprocess mode, when this process runs in it."""
    return os.environ.get(MULTIPROC_ENV) or None


def enable_multiprocess(path: str) -> None:
    """Record into files under ``path`` from now on (a process of ``serve``, and every worker
    it starts, as they inherit the environment). prometheus-client chooses its mode when
    first imported, which the command line does before any option is read: the choice is made
    again here, before the first metric is built."""
    if recorded.cache_info().currsize:
        raise RuntimeError("metrics were recorded before multiprocess mode was chosen")
    os.environ[MULTIPROC_ENV] = path
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]


def record_request(family: str, route: str, method: str, status: int, seconds: float) -> None:
    shown = method if method in METHODS else "other"
    found = recorded()
    key = (family, route, shown, str(status))
    children = found.request_children.get(key)
    if children is None:
        children = found.request_children[key] = (
            found.requests.labels(*key),
            found.request_seconds.labels(family, route, shown),
        )
    children[0].inc()
    children[1].observe(seconds)


class _Recorded(Collector):
    """What this process recorded, read from the files in multiprocess mode."""

    def collect(self) -> Iterable[Metric]:
        path = multiprocess_dir()
        if path is None:
            recorded()  # every family shows, at zero before anything happened
            return REGISTRY.collect()
        registry = CollectorRegistry(auto_describe=False)
        MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
        return registry.collect()


class Exposition(Collector):
    """Everything a scrape shows: the recorded values and the scrape-time collectors."""

    def __init__(self, extra: Sequence[Collector] = ()) -> None:
        self.sources: list[Collector] = [_Recorded(), *extra]

    def collect(self) -> Iterator[Metric]:
        for source in self.sources:
            for metric in source.collect():
                yield metric
                if metric.name == LAST_REFRESH:
                    yield mirror_lag(metric, time.time())


LAST_REFRESH = "flavorsmith_mirror_last_refresh_timestamp_seconds"


def mirror_lag(last_refresh: Metric, now: float) -> Metric:
    """The mirror's lag as of the scrape: how long ago its last good refresh started (its
    data is as of then), from the timestamp every process can record and read."""
    lag = GaugeMetricFamily(
        "flavorsmith_mirror_lag_seconds",
        "How far the Ironic mirror is behind Ironic: seconds since the last good refresh "
        "started reading it.",
        labels=["source"],
    )
    for sample in last_refresh.samples:
        lag.add_metric([sample.labels.get("source", "")], max(0.0, now - sample.value))
    return lag


def exposition(extra: Sequence[Collector] = ()) -> bytes:
    """The Prometheus text format of every metric."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Exposition(extra))
    return generate_latest(registry)


def listen(
    host: str,
    port: int,
    extra: Sequence[Collector] = (),
    *,
    certfile: str | None = None,
    keyfile: str | None = None,
) -> tuple[WSGIServer, threading.Thread]:
    """Serve /metrics on host:port (0: any free port) from a daemon thread, over TLS with a
    certificate; raises OSError when the address cannot be bound."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Exposition(extra))
    return start_wsgi_server(port, host, registry, certfile=certfile, keyfile=keyfile)
