"""Flavor profiles and service flavors: constraint-breaking writes answer False and leave the
transaction usable."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Connection

from flavorsmith.errors import NotFound
from flavorsmith.store import service_flavors as store


def _profile(connection: Connection) -> dict[str, str]:
    row = {
        "id": str(uuid.uuid4()),
        "name": "p",
        "provider_name": "noop",
        "flavor_data": "{}",
    }
    assert store.insert_profile(connection, row)
    return row


def test_guarded_writes(connection: Connection) -> None:
    profile = _profile(connection)
    assert not store.insert_profile(connection, profile)
    name = f"f-{uuid.uuid4().hex[:8]}"
    flavor = {
        "id": str(uuid.uuid4()),
        "name": name,
        "description": None,
        "enabled": True,
        "flavor_profile_id": profile["id"],
    }
    assert store.insert_flavor(connection, flavor)
    assert not store.insert_flavor(connection, {**flavor, "id": str(uuid.uuid4())})  # name taken
    missing_profile = {**flavor, "id": str(uuid.uuid4()), "name": name + "-2"}
    assert not store.insert_flavor(connection, {**missing_profile, "flavor_profile_id": "x"})
    assert store.profile_in_use(connection, profile["id"])
    assert not store.delete_profile(connection, profile["id"])
    other = {**flavor, "id": str(uuid.uuid4()), "name": name + "-3"}
    assert store.insert_flavor(connection, other)
    assert not store.update_flavor(connection, other["id"], {"name": name})
    assert store.update_flavor(connection, other["id"], {"description": "d"})
    assert store.flavor(connection, other["id"], lock=True)["description"] == "d"
    assert store.flavor_named(connection, name) == flavor
    store.delete_flavor(connection, flavor["id"])
    store.delete_flavor(connection, other["id"])
    assert store.delete_profile(connection, profile["id"])
    with pytest.raises(NotFound, match=r"Flavor [Pp]rofile"):
        store.profile(connection, profile["id"])


def test_pages_forward_and_back(connection: Connection) -> None:
    profile = _profile(connection)
    prefix = f"f-{uuid.uuid4().hex[:8]}"
    rows = [
        {
            "id": f"{prefix}-{i}",
            "name": f"{prefix}-{i}",
            "description": ["x", None, "y"][i % 3],
            "enabled": True,
            "flavor_profile_id": profile["id"],
        }
        for i in range(5)
    ]
    for row in rows:
        assert store.insert_flavor(connection, row)
    sort = [("description", False)]
    expected = sorted((r for r in rows if r["description"]), key=lambda r: r["id"])
    expected.sort(key=lambda r: r["description"], reverse=True)
    expected += [r for r in rows if r["description"] is None]
    ids = [r["id"] for r in expected]
    filters = {"flavor_profile_id": profile["id"]}
    first = store.page(connection, "flavors", filters=filters, sort=sort, limit=2)
    assert [r["id"] for r in first.rows] == ids[:2]
    assert (first.more_before, first.more_after) == (False, True)
    last = store.page(connection, "flavors", filters=filters, sort=sort, marker=ids[1], limit=10)
    assert [r["id"] for r in last.rows] == ids[2:]
    assert (last.more_before, last.more_after) == (True, False)
    back = store.page(
        connection, "flavors", filters=filters, sort=sort, marker=ids[4], limit=2, reverse=True
    )
    assert [r["id"] for r in back.rows] == ids[2:4]
    assert (back.more_before, back.more_after) == (True, True)
    huge = store.page(connection, "flavors", filters=filters, sort=sort, limit=2**63 - 1)
    assert [r["id"] for r in huge.rows] == ids and not huge.more_after
    missing = store.page(connection, "flavors", filters={**filters, "description": ""})
    assert [r["id"] for r in missing.rows] == [r["id"] for r in rows if r["description"] is None]
    with pytest.raises(NotFound, match="Marker"):
        store.page(connection, "flavors", filters={"enabled": False}, marker=ids[0])
