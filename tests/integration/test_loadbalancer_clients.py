"""The provider flavor framework through the real `openstack loadbalancer` CLI
(python-octaviaclient) and through openstacksdk's load_balancer proxy, against a live server
(SQLite) serving the example catalog."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from openstack import exceptions as sdk_exceptions

from tests.integration.clients import OpenStack, sdk, unique

CLASSES = "c2.diskless, c2.large, g1.8xh100, m1.medium, m1.small"
TEMPLATES = (
    "CUSTOM_BM_CONFIG_BIOS_VMX_OFF, CUSTOM_BM_CONFIG_BIOS_VMX_ON, "
    "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR, CUSTOM_BM_CONFIG_RAID_DISK_STRIPE"
)
PROVIDERS = [
    {"name": "noop", "description": "The no-op driver (accepts any flavor data)."},
    {
        "name": "baremetal",
        "description": "Standalone Ironic: resource classes and deploy templates from the catalog.",
    },
]
CAPABILITIES = [
    {
        "name": "resource_class",
        "description": f"The node resource class to deploy on; one of: {CLASSES}",
    },
    {
        "name": "deploy_templates",
        "description": f"Deploy templates to apply at deploy time; from: {TEMPLATES}",
    },
]
MIRROR = json.dumps(
    {"resource_class": "c2.large", "deploy_templates": ["CUSTOM_BM_CONFIG_RAID_DISK_MIRROR"]}
)
SMALL = json.dumps({"resource_class": "m1.small"})


# ---------------------------------------------------------------- the openstack CLI


@pytest.fixture(scope="module")
def loadbalancer(sqlite_server: str) -> OpenStack:
    """`openstack loadbalancer ...`"""
    return OpenStack.noauth(sqlite_server, "load_balancer", "loadbalancer")


def test_cli_providers_and_capabilities(loadbalancer: OpenStack) -> None:
    assert loadbalancer.json("provider", "list") == PROVIDERS
    flavor_rows = [{"type": "flavor", **c} for c in CAPABILITIES]
    # Without --flavor the client also asks for availability zone capabilities (none here).
    assert loadbalancer.json("provider", "capability", "list", "baremetal") == flavor_rows
    assert (
        loadbalancer.json("provider", "capability", "list", "baremetal", "--flavor") == flavor_rows
    )
    noop = loadbalancer.json("provider", "capability", "list", "noop", "--flavor")
    assert noop == [
        {
            "type": "flavor",
            "name": "noop_option",
            "description": "Any value; the no-op provider accepts every flavor.",
        }
    ]
    error = loadbalancer.error("provider", "capability", "list", "ghost", "--flavor")
    assert "Provider 'ghost' is not enabled. (HTTP 400)" in error


def test_cli_flavor_profile_lifecycle(loadbalancer: OpenStack) -> None:
    name = unique("cli-profile")
    created = loadbalancer.json(
        "flavorprofile",
        "create",
        "--name",
        name,
        "--provider",
        "baremetal",
        "--flavor-data",
        MIRROR,
    )
    profile_id = created["id"]
    assert str(uuid.UUID(profile_id)) == profile_id
    assert created == {
        "id": profile_id,
        "name": name,
        "provider_name": "baremetal",
        "flavor_data": MIRROR,
    }

    listed = loadbalancer.json("flavorprofile", "list")
    assert {"id": profile_id, "name": name, "provider_name": "baremetal"} in listed
    assert [p["id"] for p in loadbalancer.json("flavorprofile", "list", "--name", name)] == [
        profile_id
    ]
    by_provider = loadbalancer.json("flavorprofile", "list", "--provider", "baremetal")
    assert profile_id in [p["id"] for p in by_provider]
    assert all(p["provider_name"] == "baremetal" for p in by_provider)
    assert profile_id not in [
        p["id"] for p in loadbalancer.json("flavorprofile", "list", "--provider", "noop")
    ]

    assert loadbalancer.json("flavorprofile", "show", name) == created
    assert loadbalancer.json("flavorprofile", "show", profile_id) == created

    new_name = unique("cli-profile-renamed")
    assert loadbalancer.ok("flavorprofile", "set", name, "--name", new_name) == ""
    assert loadbalancer.ok("flavorprofile", "set", new_name, "--flavor-data", SMALL) == ""
    updated = loadbalancer.json("flavorprofile", "show", profile_id)
    assert updated == {**created, "name": new_name, "flavor_data": SMALL}
    assert "Unable to locate" in loadbalancer.error("flavorprofile", "show", name)

    # Changing the data re-validates it with the driver; nothing changes on refusal.
    refused = loadbalancer.error(
        "flavorprofile",
        "set",
        new_name,
        "--flavor-data",
        json.dumps({"resource_class": "m1.huge"}),
    )
    assert (
        "Provider 'baremetal' does not support a requested option: resource_class 'm1.huge' is "
        f"not defined by any device type; defined: {CLASSES} (HTTP 400)"
    ) in refused
    assert loadbalancer.json("flavorprofile", "show", profile_id) == updated

    assert loadbalancer.ok("flavorprofile", "delete", new_name) == ""
    assert "Unable to locate" in loadbalancer.error("flavorprofile", "show", profile_id)
    assert profile_id not in [p["id"] for p in loadbalancer.json("flavorprofile", "list")]


@pytest.mark.parametrize(
    ("flavor_data", "message"),
    [
        (
            json.dumps({"resource_class": "m1.huge"}),
            "Provider 'baremetal' does not support a requested option: resource_class "
            f"'m1.huge' is not defined by any device type; defined: {CLASSES}",
        ),
        (
            json.dumps({"deploy_templates": ["CUSTOM_BM_CONFIG_BIOS_VMX_ON"]}),
            "Provider 'baremetal' does not support a requested option: 'resource_class' is "
            "required by the baremetal provider",
        ),
        (
            json.dumps({"resource_class": "m1.small", "flavor": "m1.small"}),
            "Provider 'baremetal' does not support a requested option: unknown flavor data key "
            "'flavor': the baremetal provider takes resource_class and deploy_templates",
        ),
        (
            json.dumps(
                {
                    "resource_class": "c2.large",
                    "deploy_templates": ["CUSTOM_BM_CONFIG_NOPE"],
                }
            ),
            "Provider 'baremetal' does not support a requested option: deploy_templates: "
            f"'CUSTOM_BM_CONFIG_NOPE' is not a deploy template in the catalog; defined: {TEMPLATES}",
        ),
        (
            json.dumps(
                {
                    "resource_class": "c2.large",
                    "deploy_templates": [
                        "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR",
                        "CUSTOM_BM_CONFIG_RAID_DISK_STRIPE",
                    ],
                }
            ),
            "Provider 'baremetal' does not support a requested option: deploy_templates: "
            "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR and CUSTOM_BM_CONFIG_RAID_DISK_STRIPE both "
            "request raid.apply_configuration; Ironic refuses two templates with one step",
        ),
        ("not json", "not json is not a valid option for flavor_data"),
        (
            '["m1.small"]',
            "Provider 'baremetal' does not support a requested option: ['m1.small'] is not of "
            "type 'object'",
        ),
    ],
)
def test_cli_refuses_bad_baremetal_flavor_data(
    loadbalancer: OpenStack, flavor_data: str, message: str
) -> None:
    name = unique("cli-bad")
    error = loadbalancer.error(
        "flavorprofile",
        "create",
        "--name",
        name,
        "--provider",
        "baremetal",
        "--flavor-data",
        flavor_data,
    )
    assert f"{message} (HTTP 400)" in error
    assert all(p["name"] != name for p in loadbalancer.json("flavorprofile", "list"))


def test_cli_refuses_a_provider_that_is_not_enabled(loadbalancer: OpenStack) -> None:
    error = loadbalancer.error(
        "flavorprofile",
        "create",
        "--name",
        unique("cli-ghost"),
        "--provider",
        "ghost",
        "--flavor-data",
        "{}",
    )
    assert "Provider 'ghost' is not enabled. (HTTP 400)" in error


def test_cli_flavor_lifecycle(loadbalancer: OpenStack) -> None:
    profile = loadbalancer.json(
        "flavorprofile",
        "create",
        "--name",
        unique("cli-flavor-profile"),
        "--provider",
        "baremetal",
        "--flavor-data",
        MIRROR,
    )
    name = unique("cli-flavor")
    created = loadbalancer.json(
        "flavor",
        "create",
        "--name",
        name,
        "--flavorprofile",
        profile["name"],
        "--description",
        "Mirrored disks on c2.large",
    )
    flavor_id = created["id"]
    assert created == {
        "id": flavor_id,
        "name": name,
        "flavor_profile_id": profile["id"],
        "enabled": True,
        "description": "Mirrored disks on c2.large",
    }
    disabled_name = unique("cli-flavor-off")
    disabled = loadbalancer.json(
        "flavor",
        "create",
        "--name",
        disabled_name,
        "--flavorprofile",
        profile["id"],
        "--disable",
    )
    # Stored NULL, shown "" as Octavia 19 does (api/common/types.py, from_db_obj).
    assert (disabled["enabled"], disabled["description"]) == (False, "")

    brief = {"id": flavor_id, "name": name, "flavor_profile_id": profile["id"], "enabled": True}
    assert brief in loadbalancer.json("flavor", "list")
    assert loadbalancer.json("flavor", "list", "--name", name) == [brief]
    mine = loadbalancer.json("flavor", "list", "--flavorprofile", profile["name"])
    assert sorted(f["name"] for f in mine) == sorted([name, disabled_name])
    enabled_ids = [f["id"] for f in loadbalancer.json("flavor", "list", "--enable")]
    disabled_ids = [f["id"] for f in loadbalancer.json("flavor", "list", "--disable")]
    assert flavor_id in enabled_ids and flavor_id not in disabled_ids
    assert disabled["id"] in disabled_ids and disabled["id"] not in enabled_ids

    assert loadbalancer.json("flavor", "show", name) == created
    assert loadbalancer.json("flavor", "show", flavor_id) == created

    new_name = unique("cli-flavor-renamed")
    assert (
        loadbalancer.ok(
            "flavor", "set", name, "--name", new_name, "--description", "New", "--disable"
        )
        == ""
    )
    assert loadbalancer.json("flavor", "show", flavor_id) == {
        **created,
        "name": new_name,
        "description": "New",
        "enabled": False,
    }
    assert loadbalancer.ok("flavor", "set", new_name, "--enable") == ""
    assert loadbalancer.json("flavor", "show", flavor_id)["enabled"] is True
    assert loadbalancer.ok("flavor", "unset", new_name, "--description") == ""
    unset = loadbalancer.json("flavor", "show", flavor_id)
    assert unset == {**created, "name": new_name, "description": ""}

    taken = loadbalancer.error("flavor", "set", new_name, "--name", disabled_name)
    assert f"A flavor of {disabled_name} already exists. (HTTP 409)" in taken
    duplicate = loadbalancer.error(
        "flavor", "create", "--name", new_name, "--flavorprofile", profile["id"]
    )
    assert f"A flavor of {new_name} already exists. (HTTP 409)" in duplicate

    # A profile in use can be neither deleted nor changed.
    in_use = f"Flavor profile {profile['id']} is in use and cannot be modified. (HTTP 409)"
    assert in_use in loadbalancer.error("flavorprofile", "delete", profile["name"])
    assert in_use in loadbalancer.error(
        "flavorprofile", "set", profile["id"], "--flavor-data", SMALL
    )
    assert loadbalancer.json("flavorprofile", "show", profile["id"]) == profile

    assert loadbalancer.ok("flavor", "delete", new_name) == ""
    assert "Unable to locate" in loadbalancer.error("flavor", "show", flavor_id)
    assert in_use in loadbalancer.error("flavorprofile", "delete", profile["id"])
    assert loadbalancer.ok("flavor", "delete", disabled["id"]) == ""
    assert loadbalancer.ok("flavorprofile", "delete", profile["id"]) == ""
    listed = [f["id"] for f in loadbalancer.json("flavor", "list")]
    assert flavor_id not in listed and disabled["id"] not in listed


def test_cli_flavor_over_a_missing_profile(loadbalancer: OpenStack) -> None:
    error = loadbalancer.error(
        "flavor", "create", "--name", unique("cli-orphan"), "--flavorprofile", "nosuch"
    )
    assert "Unable to locate nosuch in flavorprofiles" in error


# ---------------------------------------------------------------- openstacksdk


@pytest.fixture
def conn(sqlite_server: str) -> Any:
    return sdk(sqlite_server, "load_balancer")


def test_sdk_providers_and_capabilities(conn: Any) -> None:
    providers = [(p.name, p.description) for p in conn.load_balancer.providers()]
    assert providers == [(p["name"], p["description"]) for p in PROVIDERS]
    capabilities = conn.load_balancer.provider_flavor_capabilities("baremetal")
    assert [(c.name, c.description) for c in capabilities] == [
        (c["name"], c["description"]) for c in CAPABILITIES
    ]
    with pytest.raises(sdk_exceptions.BadRequestException, match="Provider 'ghost' is not enabled"):
        list(conn.load_balancer.provider_flavor_capabilities("ghost"))


def test_sdk_lifecycle(conn: Any) -> None:
    lb = conn.load_balancer
    name = unique("sdk-profile")
    profile = lb.create_flavor_profile(name=name, provider_name="baremetal", flavor_data=MIRROR)
    assert (profile.name, profile.provider_name, profile.flavor_data) == (
        name,
        "baremetal",
        MIRROR,
    )
    assert str(uuid.UUID(profile.id)) == profile.id

    listed = [p for p in lb.flavor_profiles() if p.id == profile.id]
    assert [(p.name, p.provider_name) for p in listed] == [(name, "baremetal")]
    assert [p.id for p in lb.flavor_profiles(name=name)] == [profile.id]
    fetched = lb.get_flavor_profile(profile.id)
    assert (fetched.name, fetched.provider_name, fetched.flavor_data) == (
        name,
        "baremetal",
        MIRROR,
    )
    assert lb.find_flavor_profile(name).id == profile.id

    new_name = unique("sdk-profile-renamed")
    updated = lb.update_flavor_profile(profile, name=new_name, flavor_data=SMALL)
    assert (updated.name, updated.flavor_data) == (new_name, SMALL)
    again = lb.get_flavor_profile(profile.id)
    assert (again.name, again.provider_name, again.flavor_data) == (new_name, "baremetal", SMALL)

    flavor_name = unique("sdk-flavor")
    flavor = lb.create_flavor(
        name=flavor_name, flavor_profile_id=profile.id, description="Small", is_enabled=True
    )
    assert (flavor.name, flavor.flavor_profile_id, flavor.description, flavor.is_enabled) == (
        flavor_name,
        profile.id,
        "Small",
        True,
    )
    assert [f.id for f in lb.flavors() if f.name == flavor_name] == [flavor.id]
    assert [f.id for f in lb.flavors(name=flavor_name)] == [flavor.id]
    assert lb.find_flavor(flavor_name).id == flavor.id
    assert lb.find_flavor(flavor.id).name == flavor_name
    assert lb.find_flavor(unique("sdk-none")) is None

    renamed = unique("sdk-flavor-renamed")
    changed = lb.update_flavor(flavor, name=renamed, description="Renamed", is_enabled=False)
    assert (changed.name, changed.description, changed.is_enabled) == (renamed, "Renamed", False)
    shown = lb.get_flavor(flavor.id)
    assert (shown.name, shown.description, shown.is_enabled, shown.flavor_profile_id) == (
        renamed,
        "Renamed",
        False,
        profile.id,
    )
    assert lb.find_flavor(flavor_name) is None

    with pytest.raises(sdk_exceptions.ConflictException, match="is in use and cannot be modified"):
        lb.delete_flavor_profile(profile, ignore_missing=False)
    with pytest.raises(sdk_exceptions.ConflictException, match="is in use and cannot be modified"):
        lb.update_flavor_profile(profile.id, flavor_data=MIRROR)

    lb.delete_flavor(flavor, ignore_missing=False)
    with pytest.raises(sdk_exceptions.NotFoundException):
        lb.get_flavor(flavor.id)
    with pytest.raises(sdk_exceptions.NotFoundException):
        lb.delete_flavor(flavor.id, ignore_missing=False)
    lb.delete_flavor_profile(profile, ignore_missing=False)
    with pytest.raises(sdk_exceptions.NotFoundException):
        lb.get_flavor_profile(profile.id)
    assert lb.find_flavor_profile(new_name) is None
    assert all(p.id != profile.id for p in lb.flavor_profiles())


def test_sdk_errors(conn: Any) -> None:
    lb = conn.load_balancer
    with pytest.raises(sdk_exceptions.BadRequestException) as refused:
        lb.create_flavor_profile(
            name=unique("sdk-bad"),
            provider_name="baremetal",
            flavor_data=json.dumps({"resource_class": "m1.huge"}),
        )
    assert "resource_class 'm1.huge' is not defined by any device type" in str(refused.value)
    with pytest.raises(sdk_exceptions.BadRequestException, match="Value should be UUID format"):
        lb.create_flavor(name=unique("sdk-orphan"), flavor_profile_id="nosuch")
    missing = str(uuid.uuid4())
    with pytest.raises(
        sdk_exceptions.BadRequestException, match=f"Flavor profile {missing} not found"
    ):
        lb.create_flavor(name=unique("sdk-orphan"), flavor_profile_id=missing)
