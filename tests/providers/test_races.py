"""A flavor created while its profile is deleted, on both databases: one of them wins, the
other gets a clear error (never an IntegrityError), and no flavor points at nothing."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

from sqlalchemy import Engine

from flavorsmith.config import DEFAULT_PROVIDERS
from flavorsmith.db.engine import writer
from flavorsmith.errors import FlavorsmithError
from flavorsmith.providers import service
from flavorsmith.providers.driver import ProviderContext
from flavorsmith.providers.registry import DriverRegistry, load
from flavorsmith.store import service_flavors as store


def attempt(engine: Engine, work: Callable[..., object], *args: object) -> str:
    try:
        with writer(engine).begin() as connection:
            work(connection, *args)
    except FlavorsmithError as exc:
        return f"{exc.status} {exc.message}"
    return "ok"


def race(engine: Engine, registry: DriverRegistry) -> tuple[str, str, str, str]:
    with writer(engine).begin() as connection:
        profile = service.create_profile(
            connection, registry, {"name": "race", "provider_name": "noop", "flavor_data": "{}"}
        )
    name = f"race-{uuid.uuid4().hex[:8]}"
    barrier = threading.Barrier(2)
    results: dict[str, str] = {}

    def create() -> None:
        barrier.wait()
        values = {"name": name, "flavor_profile_id": profile["id"]}
        results["create"] = attempt(engine, service.create_flavor, values)

    def remove() -> None:
        barrier.wait()
        results["delete"] = attempt(engine, service.delete_profile, profile["id"])

    threads = [threading.Thread(target=create), threading.Thread(target=remove)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    with engine.connect() as connection:
        flavor = store.flavor_named(connection, name)
        left = any(p["id"] == profile["id"] for p in store.profiles(connection))
    state = ("flavor" if flavor else "no flavor") + (", profile" if left else ", no profile")
    return profile["id"], results["create"], results["delete"], state


def test_create_flavor_racing_profile_delete(migrated_engine: Engine) -> None:
    registry = load(DEFAULT_PROVIDERS, ProviderContext())
    for _ in range(15):
        profile_id, created, deleted, state = race(migrated_engine, registry)
        in_use = f"409 Flavor profile {profile_id} is in use and cannot be modified."
        gone = f"400 Flavor profile {profile_id} not found."
        assert (created, deleted, state) in (
            ("ok", in_use, "flavor, profile"),
            (gone, "ok", "no flavor, no profile"),
        )
