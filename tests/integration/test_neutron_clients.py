"""The Neutron client (src/flavorsmith/clients/neutron.py) against the real Neutron 29 of the
test support (tests/support/neutron_api.py): flavors, service profiles, their associations
and the routers that use a flavor, through the same openstacksdk connection a sync makes
(``clients.cloud.connect`` with an endpoint); and what the real service refuses, in its words.
"""

from __future__ import annotations

import pytest

from flavorsmith.clients import neutron as neutron_client
from flavorsmith.clients.cloud import connect
from flavorsmith.clients.neutron import NeutronTarget
from flavorsmith.errors import TargetError
from tests.support.neutron_api import Neutron, sdk_connection

pytestmark = pytest.mark.slow

SINGLE_NODE = "neutron.services.l3_router.service_providers.single_node.SingleNodeDriver"
HA = "neutron.services.l3_router.service_providers.ha.HaDriver"


@pytest.fixture
def target(clean_neutron: Neutron) -> NeutronTarget:
    """A client of the session's Neutron (emptied after each test)."""
    return NeutronTarget(connect(None, "network", clean_neutron.url))


def test_the_support_serves_l3_flavors(neutron: Neutron) -> None:
    status, body = neutron.call("GET", "/extensions")
    assert status == 200
    aliases = {extension["alias"] for extension in body["extensions"]}
    assert {"flavors", "l3-flavors", "router"} <= aliases
    status, body = neutron.call("GET", "/service-providers")
    assert status == 200
    assert {(p["service_type"], p["name"]) for p in body["service_providers"]} == {
        ("L3_ROUTER_NAT", name) for name in ("single_node", "ha", "dvr", "dvrha")
    }


def test_a_flavor_with_its_profile_and_a_router_that_uses_it(
    target: NeutronTarget, neutron: Neutron
) -> None:
    profile = target.create_service_profile(driver=SINGLE_NODE, description="one node")
    assert (profile["driver"], profile["enabled"], profile["metainfo"]) == (SINGLE_NODE, True, "")
    flavor = target.create_flavor(
        name="gold-router", service_type="L3_ROUTER_NAT", description="gold"
    )
    assert flavor["service_profiles"] == [] and flavor["enabled"] is True
    target.associate(flavor["id"], profile["id"])
    [listed] = target.flavors()
    assert listed == {**flavor, "service_profiles": [profile["id"]]}
    assert target.flavors(service_type="L3_ROUTER_NAT") == [listed]
    # A profile's flavors are stored but not shown: "flavors" is not in its attribute map.
    assert target.service_profiles() == [profile]
    assert target.routers_using(flavor["id"]) == 0

    router = sdk_connection(neutron.url).network.create_router(
        name="uses-gold", flavor_id=flavor["id"]
    )
    assert router.flavor_id == flavor["id"]
    assert target.routers_using(flavor["id"]) == 1
    assert target.routers_by_flavor() == {flavor["id"]: 1}

    with pytest.raises(TargetError) as refused:
        target.delete_flavor(flavor["id"])
    assert refused.value.status == 409
    assert "(FlavorInUse)" in str(refused.value)
    assert not refused.value.transient  # retrying would not help: a router uses it

    sdk_connection(neutron.url).network.delete_router(router)
    assert target.routers_using(flavor["id"]) == 0
    target.disassociate(flavor["id"], profile["id"])
    target.delete_flavor(flavor["id"])
    target.delete_service_profile(profile["id"])
    assert target.flavors() == [] and target.service_profiles() == []


def test_changes_neutron_allows_and_the_one_it_refuses(target: NeutronTarget) -> None:
    flavor = target.create_flavor(name="silver", service_type="L3_ROUTER_NAT")
    changed = target.update_flavor(
        flavor["id"], {"name": "silver-2", "description": "now", "enabled": False}
    )
    assert (changed["name"], changed["description"], changed["enabled"]) == (
        "silver-2",
        "now",
        False,
    )
    with pytest.raises(TargetError) as refused:
        target.update_flavor(flavor["id"], {"service_type": "FLAVORS"})
    assert refused.value.status == 400
    assert "service_type" in str(refused.value)

    profile = target.create_service_profile(driver=SINGLE_NODE)
    assert target.update_service_profile(profile["id"], {"driver": HA})["driver"] == HA
    target.associate(flavor["id"], profile["id"])
    with pytest.raises(TargetError) as in_use:
        target.update_service_profile(profile["id"], {"description": "busy"})
    assert in_use.value.status == 409 and not in_use.value.transient
    assert "(ServiceProfileInUse)" in str(in_use.value)
    with pytest.raises(TargetError) as twice:
        target.associate(flavor["id"], profile["id"])
    assert twice.value.status == 409 and not twice.value.transient
    assert "(FlavorServiceProfileBindingExists)" in str(twice.value)
    with pytest.raises(TargetError) as busy:
        target.delete_service_profile(profile["id"])
    assert busy.value.status == 409 and "(ServiceProfileInUse)" in str(busy.value)


def test_what_neutron_refuses_on_create(target: NeutronTarget) -> None:
    with pytest.raises(TargetError) as unknown_driver:
        target.create_service_profile(driver="example.NoSuchDriver")
    assert unknown_driver.value.status == 404
    assert str(unknown_driver.value) == (
        "POST /service_profiles: 404 Service Profile driver example.NoSuchDriver could not be"
        " found. (ServiceProfileDriverNotFound)"
    )
    with pytest.raises(TargetError) as empty:
        target.create_service_profile()
    assert empty.value.status == 400 and "(ServiceProfileEmpty)" in str(empty.value)
    with pytest.raises(TargetError) as bad_type:
        target.create_flavor(name="x", service_type="NO_SUCH_SERVICE")
    assert bad_type.value.status == 400
    assert "Invalid service type: NO_SUCH_SERVICE." in str(bad_type.value)
    # LOADBALANCERV2 is a service type Neutron knows, but no plugin of this Neutron serves it.
    with pytest.raises(TargetError) as unserved:
        target.create_flavor(name="x", service_type="LOADBALANCERV2")
    assert unserved.value.status == 400
    assert target.flavors() == [] and target.service_profiles() == []


def test_lists_are_read_a_page_at_a_time(
    target: NeutronTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = [target.create_flavor(name=f"f{i}", service_type="L3_ROUTER_NAT") for i in range(5)]
    monkeypatch.setattr(neutron_client, "PAGE", 2)
    before = target.calls
    assert sorted(f["id"] for f in target.flavors()) == sorted(f["id"] for f in made)
    assert target.calls - before == 3  # 2 + 2 + 1


def test_neutron_refuses_the_router_flavor_filter(neutron: Neutron) -> None:
    """Why the client counts routers itself: the filter openstacksdk documents is refused."""
    status, body = neutron.call("GET", "/routers?flavor_id=x")
    assert status == 400
    assert body["NeutronError"]["message"] == "['flavor_id'] is invalid attribute for filtering"


def test_an_unreachable_neutron_is_a_transient_error() -> None:
    client = NeutronTarget(connect(None, "network", "http://127.0.0.1:9"))
    with pytest.raises(TargetError) as failed:
        client.flavors()
    assert failed.value.transient
    assert str(failed.value).startswith("cannot reach Neutron")


def test_what_a_sync_of_neutron_flavors_must_do_itself(
    target: NeutronTarget, neutron: Neutron
) -> None:
    """Facts of the real Neutron 29 a sync kind builds on: flavor names are not unique (two
    flavors of one name are both made), any loaded plugin's type is accepted as a service type
    (``CORE`` too, though nothing uses such a flavor), and a router cannot use a flavor that has
    no service profile."""
    first = target.create_flavor(name="same", service_type="L3_ROUTER_NAT")
    second = target.create_flavor(name="same", service_type="L3_ROUTER_NAT")
    assert first["id"] != second["id"]
    assert [f["name"] for f in target.flavors()] == ["same", "same"]
    assert target.create_flavor(name="core", service_type="CORE")["service_type"] == "CORE"
    status, body = neutron.call("POST", "/routers", {"router": {"flavor_id": first["id"]}})
    assert status == 404
    assert body["NeutronError"]["type"] == "FlavorServiceProfileBindingNotFound"
