"""What the dashboard asks for most, made before it asks: the matcher's index, the matrix's
node groups and the drift report, at start-up and again after each node change, catalog
reload or Nova flavor change, on a thread of their own. At 100,000 nodes each takes seconds
(the index is read from every node, the groups and the report walk them all); made here, an
open dashboard's next poll finds them ready. Each process warms its own (they are its caches),
and ``/readyz`` answers 503 until its first warming has finished (``Services.warming``).
"""

from __future__ import annotations

import logging
import threading

from flavorsmith.api.native import verify
from flavorsmith.api.services import Services
from flavorsmith.matching import matrix

log = logging.getLogger(__name__)

# How often the warmer looks for a change: one query of the node generation, one read of the
# Nova flavors; the work itself only when something changed.
PERIOD = 1.0


def warm(shared: Services) -> None:
    progress = shared.warming
    if progress is not None:
        progress.doing(f"building the match index of {shared.index_cache.node_count()} nodes")
    index = shared.index_cache.current()
    nodes = len(index.snapshot.nodes)
    if progress is not None:
        progress.doing(f"grouping {nodes} nodes for the matrix")
    matrix.groups(index)
    if progress is not None:
        progress.doing(f"the drift report of {nodes} nodes")
    verify.warm(shared)
    if progress is not None and (shared.mirror is None or shared.mirror.not_ready() is None):
        progress.finished()  # (a mirror's first load is what is worth warming: wait for it)


def run(shared: Services, stop: threading.Event) -> None:
    """Warm until ``stop`` is set; a failure is logged and tried again on the next round."""
    while not stop.is_set():
        try:
            warm(shared)
        except Exception as exc:  # the requests themselves report it; the warmer carries on
            log.debug("warming the caches failed", exc_info=True)
            if shared.warming is not None:
                shared.warming.failure = f"{type(exc).__name__}: {exc}"
        stop.wait(PERIOD)
