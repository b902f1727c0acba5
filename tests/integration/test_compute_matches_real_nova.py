"""The compute API answers as the real Nova 34 does (installed and started once for this module
by tests/support/nova_api.py): the same request to both gets the same status, the headers
clients read and the same body, with each service's own root URL in its links.

Where they still differ on purpose: we authorize before we read the input (Nova checks the
body first), and integers beyond 64 bits in a body are refused by our JSON reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support import nova_api

ADMIN = {"X-Auth-Token": "admin:admin"}
HEADERS = ("content-type", "openstack-api-version", "x-openstack-nova-api-version")


@pytest.fixture(scope="module")
def nova(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real Nova's root (its version document; the API is below /v2.1)."""
    with nova_api.running(tmp_path_factory.mktemp("nova")) as url:
        yield url.removesuffix("/v2.1")


@pytest.fixture(scope="module")
def ours(sqlite_server: str) -> str:
    return sqlite_server + "/compute"


def answer(
    root: str,
    method: str,
    path: str,
    *,
    body: Any = None,
    version: str | None = None,
    auth: bool = True,
) -> dict[str, Any]:
    """One exchange as the comparison sees it: status, the headers that matter, the body
    with the root URL replaced by ROOT."""
    headers = dict(ADMIN) if auth else {}
    if version is not None:
        headers["OpenStack-API-Version"] = f"compute {version}"
    response = requests.request(
        method, root + path, headers=headers, json=body, timeout=30, allow_redirects=False
    )
    text = response.text.replace(root, "ROOT")
    vary = {
        word.strip()
        for value in response.raw.headers.getlist("Vary")
        for word in value.split(",")
        if word.strip()
    }
    return {
        "status": response.status_code,
        "headers": {k: response.headers.get(k) for k in HEADERS},
        "vary": vary,
        "body": json.loads(text) if text else text,
    }


def same(
    nova: str, ours: str, method: str, path: str, *, wording: bool = True, **kwargs: Any
) -> dict[str, Any]:
    """The exchange with both services, asserted equal; ``wording=False`` leaves out the
    message of an error (extra-spec validators word their refusals in our own way)."""
    theirs = answer(nova, method, path, **kwargs)
    mine = answer(ours, method, path, **kwargs)
    if not wording and theirs["status"] >= 400:
        mine["body"] = theirs["body"] = None
    assert mine == theirs
    return theirs


def flavor(nova: str, ours: str, flavorid: str) -> None:
    body = {"flavor": {"name": flavorid, "ram": 1, "vcpus": 1, "disk": 1, "id": flavorid}}
    assert same(nova, ours, "POST", "/v2.1/flavors", body=body)["status"] == 200


def test_version_list_without_authentication(nova: str, ours: str) -> None:
    seen = same(nova, ours, "GET", "/", auth=False)
    assert seen["status"] == 200
    assert [v["id"] for v in seen["body"]["versions"]] == ["v2.0", "v2.1"]
    assert same(nova, ours, "GET", "/v2.1/", auth=False)["status"] == 200


@pytest.mark.parametrize("version", ["2.105", "2.200", "3.5", "2.0", "2.1000000"])
def test_microversion_out_of_range_is_406(nova: str, ours: str, version: str) -> None:
    seen = same(nova, ours, "GET", "/v2.1/flavors", version=version)
    assert seen["status"] == 406
    assert seen["headers"]["openstack-api-version"] == f"compute {version}"
    assert seen["headers"]["content-type"] == "application/json; charset=UTF-8"


def test_malformed_microversion_is_400(nova: str, ours: str) -> None:
    assert same(nova, ours, "GET", "/v2.1/flavors", version="abc")["status"] == 400


def test_errors_say_charset(nova: str, ours: str) -> None:
    seen = same(nova, ours, "GET", "/v2.1/flavors/missing")
    assert seen["status"] == 404
    assert seen["headers"]["content-type"] == "application/json; charset=UTF-8"


@pytest.mark.parametrize(("version", "status"), [("2.101", 200), ("2.102", 400), ("2.104", 400)])
def test_rxtx_factor_sort_key_until_2_101(nova: str, ours: str, version: str, status: int) -> None:
    query = "/v2.1/flavors?sort_key=rxtx_factor&minRam=999999999"
    assert same(nova, ours, "GET", query, version=version)["status"] == status


@pytest.mark.parametrize(
    "specs",
    [
        {"hw:numa_nodes": True},
        {"unknown": False},
        {"unknown": None},
        {"unknown": [1, "a"]},
        {"unknown": {"a": 1}},
        {"unknown": "x" * 256},
        {"hw:numa_nodes": 2},
        {"hw:numa_nodes": 2.5},
        {"a": 1e3, "b": -0.0, "c": 1.50, "d": 1e300, "e": 7},
    ],
    ids=["true", "false", "null", "list", "object", "long", "int", "float", "numbers"],
)
@pytest.mark.parametrize("version", ["2.1", "2.86"])
def test_extra_spec_value_types(
    nova: str, ours: str, request: pytest.FixtureRequest, specs: dict[str, Any], version: str
) -> None:
    flavorid = request.node.callspec.id.replace("-", "_")
    flavor(nova, ours, flavorid)
    path = f"/v2.1/flavors/{flavorid}/os-extra_specs"
    seen = same(
        nova,
        ours,
        "POST",
        path,
        body={"extra_specs": specs},
        version=version,
        wording=specs != {"hw:numa_nodes": 2.5},
    )
    if seen["status"] == 200:
        assert seen["body"] == {"extra_specs": specs}  # echoed as sent; stored as text:
        assert same(nova, ours, "GET", path)["body"] == {
            "extra_specs": {k: str(v) for k, v in specs.items()}
        }
    key = next(iter(specs))
    same(
        nova,
        ours,
        "PUT",
        f"{path}/{key}",
        body={key: specs[key]},
        version=version,
        wording=specs != {"hw:numa_nodes": 2.5},
    )


def test_delete_is_202_with_an_empty_body(nova: str, ours: str) -> None:
    flavor(nova, ours, "doomed")
    seen = same(nova, ours, "DELETE", "/v2.1/flavors/doomed")
    assert (seen["status"], seen["body"]) == (202, "")
    assert same(nova, ours, "GET", "/v2.1/flavors/doomed")["status"] == 404
