"""Nova flavor lists: keyset pages in SQL, visibility as SQL, name patterns over batches."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from sqlalchemy import Connection

from flavorsmith.errors import Invalid
from flavorsmith.store import nova_flavors as store
from flavorsmith.store.nova_flavors import FlavorQuery
from flavorsmith.visibility import Viewer

ADMIN = Viewer(admin=True, project_id=None)
BASE = 2_000_000_000  # above any other test's flavors in the shared database


def _flavors(connection: Connection) -> tuple[str, list[dict[str, Any]]]:
    prefix = f"t{uuid.uuid4().hex[:8]}"
    rows = []
    for i in range(7):
        rows.append(
            store.create(
                connection,
                {
                    "flavorid": f"{prefix}-{i}",
                    "name": f"{prefix}-{'odd' if i % 2 else 'even'}-{i}",
                    "memory_mb": BASE + i,
                    "vcpus": 1,
                    "root_gb": 1,
                    "is_public": i != 3,
                },
            )
        )
    store.add_project(connection, rows[3], "p1")
    return prefix, rows


def _all_pages(connection: Connection, query: FlavorQuery, viewer: Viewer) -> list[str]:
    out: list[str] = []
    marker = None
    while True:
        page = store.list_flavors(
            connection, FlavorQuery(**{**query.__dict__, "marker": marker}), viewer
        )
        out.extend(r["flavorid"] for r in page)
        if len(page) < query.limit:
            return out
        marker = page[-1]["flavorid"]


@pytest.mark.parametrize("sort_dir", ["asc", "desc"])
def test_pages_with_a_name_pattern_over_small_batches(
    connection: Connection, monkeypatch: pytest.MonkeyPatch, sort_dir: str
) -> None:
    monkeypatch.setattr(store, "NAME_BATCH", 2)
    prefix, rows = _flavors(connection)
    query = FlavorQuery(
        is_public=None,
        min_ram=BASE,
        name=re.compile(f"^{prefix}-odd"),
        sort_key="memory_mb",
        sort_dir=sort_dir,
        limit=2,
    )
    expected = [r["flavorid"] for r in rows if "odd" in r["name"]]
    assert _all_pages(connection, query, ADMIN) == (
        expected if sort_dir == "asc" else expected[::-1]
    )


def test_visibility_and_markers(connection: Connection) -> None:
    _, rows = _flavors(connection)
    query = FlavorQuery(is_public=None, min_ram=BASE, sort_key="memory_mb", limit=3)
    ids = [r["flavorid"] for r in rows]
    private = ids[3]
    outsider = Viewer(admin=False, project_id="p2")
    member = Viewer(admin=False, project_id="p1")
    assert _all_pages(connection, query, ADMIN) == ids
    assert _all_pages(connection, query, member) == ids
    assert _all_pages(connection, query, outsider) == [i for i in ids if i != private]
    with pytest.raises(Invalid, match=rf"marker \[{private}\] not found"):
        store.list_flavors(
            connection, FlavorQuery(**{**query.__dict__, "marker": private}), outsider
        )
    # As in Nova, the marker need not pass the filters, only be visible.
    narrowed = FlavorQuery(**{**query.__dict__, "min_ram": BASE + 5, "marker": ids[0]})
    assert [r["flavorid"] for r in store.list_flavors(connection, narrowed, ADMIN)] == ids[5:]
