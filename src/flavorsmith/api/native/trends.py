"""/v1/trends: the stored capacity samples of each flavor and resource class over a window,
and when each falling series runs out at its recent rate (``matching.trends``).

A caller sees the series of the flavors of the catalog it may see (flavorsmith.visibility):
a private flavor hidden from it, or a flavor gone from the catalog, has no series here."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request

from flavorsmith.api.context import authorize, run, services
from flavorsmith.api.contract import READ, Contract, declare
from flavorsmith.api.query import NATIVE, Query
from flavorsmith.api.schema import INTEGER, array, nullable, obj, string
from flavorsmith.api.viewers import viewer
from flavorsmith.db.engine import Connection
from flavorsmith.errors import Invalid
from flavorsmith.matching.trends import SCOPES, series
from flavorsmith.store import samples
from flavorsmith.visibility import visible_catalog

router = APIRouter()

DEFAULT_DAYS = 7
MAX_DAYS = 366
DEFAULT_POINTS = 120
MAX_POINTS = 2000

SAMPLE = obj(
    {"at": string(format="date-time"), "total": INTEGER, "sellable": INTEGER, "used": INTEGER},
    required=("at", "total", "sellable", "used"),
)
SERIES = obj(
    {
        "scope": string(enum=list(SCOPES)),
        "name": string(),
        "resource_class": string(),
        "samples": array(SAMPLE),
        "runs_out": nullable(
            obj(
                {
                    "rate_per_day": {"type": "number"},
                    "days": {"type": "number"},
                    "at": string(format="date-time"),
                },
                required=("rate_per_day", "days", "at"),
            )
        ),
    },
    required=("scope", "name", "resource_class", "samples", "runs_out"),
)

TRENDS = Contract(
    "Capacity over time: each flavor's and resource class's nodes in all, sellable and used, "
    "as sampled by the service, and when a falling series runs out at its rate of the last day",
    {
        200: obj(
            {
                "since": string(format="date-time"),
                "flavors": array(SERIES),
                "resource_classes": array(SERIES),
            },
            required=("since", "flavors", "resource_classes"),
        )
    },
    query={
        "flavor": string(),
        "resource_class": string(),
        "scope": string(enum=list(SCOPES)),
        "days": {"type": "integer", "minimum": 1, "maximum": MAX_DAYS},
        "points": {"type": "integer", "minimum": 1, "maximum": MAX_POINTS},
    },
    errors=READ,
)


def _number(query: Query, name: str, default: int, most: int) -> int:
    raw = query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= most:
        raise Invalid(f"{name} must be a whole number from 1 to {most}, not {raw!r}")
    return value


@router.get("/trends")
@declare(TRENDS)
async def trends(request: Request) -> dict[str, Any]:
    """The samples of the last ``days`` (thinned to ``points`` per series), of the flavors
    named by ``flavor`` (comma-separated), of ``resource_class``, of one ``scope``."""
    authorize(request, "flavorsmith:match:get")
    TRENDS.check_query(request)
    query = Query(request, NATIVE)
    days = _number(query, "days", DEFAULT_DAYS, MAX_DAYS)
    points = _number(query, "points", DEFAULT_POINTS, MAX_POINTS)
    scope = query.get("scope")
    if scope is not None and scope not in SCOPES:
        raise Invalid(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    asked = query.get("flavor")
    rc = query.get("resource_class") or None
    catalog = visible_catalog(services(request).catalog.view().catalog, viewer(request))
    visible = {f.name for f in catalog.flavors}
    if asked is not None:
        visible &= {name.strip() for name in asked.split(",")}
    since = datetime.now(UTC) - timedelta(days=days)

    def work(connection: Connection) -> dict[str, Any]:
        if asked is not None:  # flavors asked for by name: their series only
            found = samples.read(
                connection, since=since, scope="flavor", names=visible, resource_class=rc
            )
        else:
            found = samples.read(connection, since=since, scope=scope, resource_class=rc)
        answer: dict[str, Any] = {
            "since": since.isoformat(timespec="seconds"),
            "flavors": [],
            "resource_classes": [],
        }
        for s in found:
            if s.scope == "flavor" and s.name not in visible:
                continue
            key = "flavors" if s.scope == "flavor" else "resource_classes"
            answer[key].append(series(s.scope, s.name, s.resource_class, s.samples, most=points))
        return answer

    return await run(request, work, write=False)
