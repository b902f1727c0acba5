"""Extra specs reach every sync target through the one validation path
(extra_specs.validation.refusal): the service's own flavors refuse what its compute API
refuses for a bad value, with the same words and nothing stored, and keeps Ironic's
capabilities as a real Nova keeps them; a real Nova's target learns which keys stock
Nova refuses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.errors import TargetError
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.factory import base_registry
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.sync import store_target as store
from flavorsmith.sync.kinds import nova_flavors
from tests.api.conftest import build_app
from tests.api.test_flavors import URL, create, v

BAD = {"hw:cpu_policy": "dedicated", "hw:numa_nodes": "0"}
IRONIC = {"capabilities:boot_mode": "uefi"}


@pytest.fixture
def client(migrated_engine: Engine) -> Iterator[TestClient]:
    with TestClient(build_app(migrated_engine)) as test_client:
        yield test_client


def test_the_store_target_refuses_what_the_compute_api_refuses(
    client: TestClient, migrated_engine: Engine
) -> None:
    flavor = create(client)
    answered = client.post(
        f"{URL}/{flavor['id']}/os-extra_specs", json={"extra_specs": BAD}, headers=v("2.86")
    )
    assert answered.status_code == 400
    target = store.target(
        nova_flavors.KIND, migrated_engine, spec_check=refusal(base_registry(), "permissive")
    )
    with pytest.raises(TargetError) as refused:
        target.set_specs(flavor["id"], BAD)
    assert refused.value.status == 400
    assert str(refused.value) == answered.json()["badRequest"]["message"]
    stored = client.get(f"{URL}/{flavor['id']}/os-extra_specs", headers=v("2.86"))
    assert stored.json() == {"extra_specs": {}}
    target.set_specs(flavor["id"], {"hw:numa_nodes": "2", **IRONIC})
    stored = client.get(f"{URL}/{flavor['id']}/os-extra_specs", headers=v("2.86"))
    assert stored.json() == {"extra_specs": {"hw:numa_nodes": "2", **IRONIC}}


def test_a_store_target_without_a_check_is_the_old_unchecked_target(
    client: TestClient, migrated_engine: Engine
) -> None:
    flavor = create(client)
    store.target(nova_flavors.KIND, migrated_engine).set_specs(flavor["id"], {"hw:numa_nodes": "0"})
    stored = client.get(f"{URL}/{flavor['id']}/os-extra_specs", headers=v("2.86"))
    assert stored.json() == {"extra_specs": {"hw:numa_nodes": "0"}}


def test_a_real_novas_check_names_the_keys_stock_nova_refuses() -> None:
    check = refusal(build(), "nova")
    assert check("hw:cpu_policy", "dedicated") is None
    why = check("capabilities:boot_mode", "uefi")
    assert why is not None and "Nova >= 2.86 refuses it" in why
    assert check("hw:numa_nodes", "0") is not None
