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
    with pytest.raises(NotFound, match="Flavor profile"):
        store.profile(connection, profile["id"])
