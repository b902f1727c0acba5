"""One rule set for deploy templates (ironic/deploy_templates.py): a template a catalog file
refuses is refused by POST /baremetal/v1/deploy_templates and the other way round; the one
intended difference is the check against the driver step catalogues, which only the catalog
makes (Ironic checks a template's steps per node, when it deploys)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from flavorsmith.catalog.kinds import DEPLOY_TEMPLATE
from flavorsmith.catalog.load import load_bytes
from flavorsmith.diagnostics import has_errors
from tests.support.catalogs import RULES

URL = "/baremetal/v1/deploy_templates"
LATEST = {"X-OpenStack-Ironic-API-Version": "latest"}
RESET = {"interface": "bios", "step": "factory_reset", "args": {}, "priority": 5}


def settings(value: Any) -> dict[str, Any]:
    return {
        "interface": "bios",
        "step": "apply_configuration",
        "args": {"settings": [{"name": "ProcVirtualization", "value": value}]},
        "priority": 150,
    }


# (fields of the template, accepted): the cases marked "used to disagree" were accepted by one
# side and refused by the other before the rules were one.
CASES = [
    pytest.param({"steps": [RESET]}, True, id="plain"),
    pytest.param({"steps": [settings("Enabled")], "extra": {"a": 1}}, True, id="with-args"),
    pytest.param({"steps": [{**RESET, "priority": "10"}]}, True, id="priority-digits"),
    pytest.param({"steps": [settings(2**64)]}, False, id="integer-beyond-64-bits"),
    pytest.param({"steps": [RESET], "extra": {"note": "a\x00b"}}, False, id="nul-in-extra"),
    # As Ironic's schema (JSON Schema's integer): 1.0 is 1; 1.5 is no priority.
    pytest.param({"steps": [{**RESET, "priority": 1.0}]}, True, id="priority-integral-float"),
    pytest.param({"steps": [{**RESET, "priority": 1.5}]}, False, id="priority-float"),
    pytest.param({"steps": [RESET, {**RESET, "priority": 1}]}, False, id="duplicate-steps"),
    pytest.param({"name": "RAID1", "steps": [RESET]}, False, id="name-not-a-trait"),
    pytest.param({"steps": [{**RESET, "priority": -1}]}, False, id="negative-priority"),
]


def catalog_accepts(template: dict[str, Any]) -> bool:
    raw = json.dumps(template).encode()  # JSON is YAML
    path = Path(f"{template['name']}.yaml")
    loaded = load_bytes(raw, DEPLOY_TEMPLATE, path, path.name, rules=RULES)
    return loaded.model is not None and not has_errors(loaded.diagnostics)


def api_accepts(client: TestClient, template: dict[str, Any]) -> bool:
    response = client.post(URL, json=template, headers=LATEST)
    assert response.status_code in (201, 400), response.text
    return response.status_code == 201


@pytest.mark.parametrize(("fields", "accepted"), CASES)
def test_catalog_and_api_agree(client: TestClient, fields: dict[str, Any], accepted: bool) -> None:
    template = {"name": f"CUSTOM_RULES_{uuid.uuid4().hex[:10].upper()}", **fields}
    assert (catalog_accepts(template), api_accepts(client, template)) == (accepted, accepted)


def test_a_digit_string_priority_is_a_number_in_the_catalog() -> None:
    raw = b"name: CUSTOM_X\nsteps:\n  - {interface: bios, step: factory_reset, args: {}, priority: '10'}\n"
    loaded = load_bytes(raw, DEPLOY_TEMPLATE, Path("CUSTOM_X.yaml"), rules=RULES)
    assert loaded.model is not None and loaded.model.as_api()["steps"][0]["priority"] == 10


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        pytest.param(
            {"interface": "bios", "step": "apply_configuration", "args": {}, "priority": 60},
            "bios.apply_configuration needs the argument(s) settings",
            id="missing-argument",
        ),
        pytest.param(
            {**RESET, "args": {"speed": "fast"}},
            "bios.factory_reset does not accept speed: it takes no arguments",
            id="unexpected-argument",
        ),
    ],
)
def test_only_the_catalog_checks_steps_against_the_driver_catalogues(
    client: TestClient, step: dict[str, Any], expected: str
) -> None:
    """The intended difference: Ironic accepts the template and refuses it per node."""
    template = {"name": f"CUSTOM_RULES_{uuid.uuid4().hex[:10].upper()}", "steps": [step]}
    raw = json.dumps(template).encode()
    loaded = load_bytes(raw, DEPLOY_TEMPLATE, Path("t.yaml"), "t.yaml", rules=RULES)
    assert [d.message for d in loaded.diagnostics] == [expected]
    assert api_accepts(client, template)
