"""Keeping a target in sync: re-plan when catalog files change (bursts debounced) and on a
timer; one structured log line per round. A round whose catalog is missing, failed to load
or has errors applies nothing, and neither does one whose prune would delete every managed
flavor (unless ``allow_empty``): the round is logged as blocked and the next change or timer
tries again."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from flavorsmith.catalog.repo import Repository
from flavorsmith.nova.sync import exclusive, run
from flavorsmith.nova.targets import Target

log = logging.getLogger("flavorsmith.sync")


def fingerprint(root: Path) -> str:
    """Changes when any file under hardware/ changes (a ConfigMap swap or a Git pull)."""
    digest = hashlib.sha256()
    hardware = root / "hardware"
    if hardware.is_dir():
        for path in sorted(hardware.rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def watch(
    repository: Repository,
    make_target: Callable[[], Target],
    engine: Engine,
    *,
    prune: bool,
    allow_empty: bool = False,
    interval: float = 60.0,
    debounce: float = 2.0,
    poll: float = 1.0,
    stop: threading.Event | None = None,
    rounds: int | None = None,
) -> int:
    """Run until ``stop`` is set (or ``rounds`` rounds ran); returns the rounds run."""
    stop = stop or threading.Event()
    last = fingerprint(repository.root)
    next_timer = 0.0  # the first round runs at once
    done = 0
    trigger = "start"
    while not stop.is_set() and (rounds is None or done < rounds):
        now = time.monotonic()
        current = fingerprint(repository.root)
        if current != last:
            # Wait for the burst to settle: the fingerprint must hold still for ``debounce``.
            if stop.wait(debounce):
                break
            settled = fingerprint(repository.root)
            if settled != current:
                continue  # still changing: wait again
            last, trigger, next_timer = settled, "files", 0.0
        if now >= next_timer:
            _round(repository, make_target, engine, prune, allow_empty, trigger, done + 1)
            done += 1
            trigger = "timer"
            next_timer = time.monotonic() + interval
        stop.wait(poll)
    return done


def _round(
    repository: Repository,
    make_target: Callable[[], Target],
    engine: Engine,
    prune: bool,
    allow_empty: bool,
    trigger: str,
    number: int,
) -> None:
    started = time.perf_counter()
    line: dict[str, object] = {"event": "sync", "round": number, "trigger": trigger}
    with exclusive(engine, wait=False) as mine:
        if not mine:
            line["skipped"] = "another process is applying"
        else:
            try:
                result = run(
                    repository, make_target(), prune=prune, execute=True, allow_empty=allow_empty
                )
            except Exception as exc:  # a round must never kill the watcher
                line["error"] = f"{type(exc).__name__}: {exc}"
            else:
                if result.blocked:
                    first = next((d for d in result.diagnostics if d.severity == "error"), None)
                    line["blocked"] = result.error or (
                        f"the catalog has errors: {first.render()}" if first else "blocked"
                    )
                report = result.report
                line["actions"] = sum(1 for a in result.actions if a.writes)
                if report is not None:
                    line.update(
                        writes=report.writes, failed=len(report.failed), api_calls=report.calls
                    )
    line["ms"] = round((time.perf_counter() - started) * 1000, 1)
    log.info(json.dumps(line))
