"""The packaged schemas: seed files validate unchanged; each rule has a clear message."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import fastjsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flavorsmith.catalog import schema
from flavorsmith.catalog.document import Document, parse
from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR, KINDS
from flavorsmith.catalog.load import load_bytes
from tests.support.catalogs import RULES

# Verbatim from the seed: files written for UnderStack's published schema.
SEED_FLAVORS = [
    "---\n# yaml-language-server: $schema=https://rackerlabs.github.io/understack/schema/flavor.schema.json\n"
    "name: m1.small\nresource_class: m1.small\n"
    "description: Small compute flavor with 16 cores, 128GB RAM, and dual 480GB drives\n",
    "---\nname: m1.small.nicX\nresource_class: m1.small\ndescription: Small compute flavor with "
    "NICX network hardware - 16 cores, 128GB RAM, dual 480GB drives\ntraits:\n- trait: NICX\n"
    "  state: required\n",
    "---\nname: m1.small.no-gpu\nresource_class: m1.small\ntraits:\n- trait: GPU\n  state: absent\n",
    "---\nname: m1.small.mellanox-cx5\nresource_class: m1.small\ntraits:\n"
    "- trait: NIC_MELLANOX_CX5\n  state: required\n",
]
SEED_DEVICE_TYPE = """---
class: server
manufacturer: Dell
model: PowerEdge R7615
resource_class:
- name: m1.small
  cpu:
    cores: 16
    model: AMD EPYC 9124
  memory:
    size: 131072 # MB (128 GB)
  drives:
  - size: 480
  - size: 480
  nic_count: 2
u_height: 1
is_full_depth: true
"""
NAUTOBOT_DEVICE_TYPE = """
id: 3f0c6f4e-8a8e-4a55-9d0b-1c2d3e4f5a6b
class: storage
manufacturer: Dell
model: PowerVault ME5024
part_number: ME5024
comments: Dual controller
u_height: 2
is_full_depth: true
console-ports:
  - name: serial
    type: usb-micro-b
module-bays:
  - name: Controller A
    position: A
power-ports:
  - name: PSU1
    type: iec-60320-c14
    maximum_draw: 580
    allocated_draw: 300
"""


def load(text: str, kind: object) -> list[str]:
    loaded = load_bytes(text.encode(), kind, Path("x.yaml"), "x.yaml", rules=RULES)  # type: ignore[arg-type]
    return [d.render() for d in loaded.diagnostics]


@pytest.mark.parametrize("text", SEED_FLAVORS)
def test_seed_flavors_are_valid(text: str) -> None:
    assert load(text, FLAVOR) == []


def test_seed_and_nautobot_device_types_are_valid() -> None:
    assert load(SEED_DEVICE_TYPE, DEVICE_TYPE) == []
    assert load(NAUTOBOT_DEVICE_TYPE, DEVICE_TYPE) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: ''\nresource_class: x\n", "x.yaml:1:7: name: must not be empty"),
        (
            "name: x\nresource_class: x\nis_public: 'no'\n",
            "x.yaml:3:12: is_public: expected true or false, found the string 'no'",
        ),
        (
            "name: x\nresource_class: x\ntraits: NICX\n",
            "x.yaml:3:9: traits: expected a list, found the string 'NICX'",
        ),
        (
            "name: x\nresource_class: x\ntraits:\n- NICX\n",
            "x.yaml:4:3: traits[0]: expected a mapping of keys, found the string 'NICX'",
        ),
        (
            "name: x\nresource_class: x\ntraits:\n- {trait: NICX}\n",
            "x.yaml:4:3: traits[0].state: required key is missing",
        ),
        (
            "name: x\nresource_class: x\nextra_spec: {a: b}\n",
            "x.yaml:3:1: extra_spec: unknown key 'extra_spec' (did you mean 'extra_specs'?); allowed: "
            "name, resource_class, description, traits, is_public, projects, extra_specs",
        ),
        ("- name: x\n", "x.yaml:1:1: (root): expected a mapping of keys, found a list"),
        ("name: 5\nresource_class: x\n", "x.yaml:1:7: name: expected a string, found the number 5"),
        (
            "name: x\nresource_class: x\nis_public: false\nprojects: [p1, p1]\n",
            "x.yaml:4:11: projects: lists 'p1' more than once",
        ),
    ],
)
def test_flavor_schema_messages(text: str, expected: str) -> None:
    assert load(text, FLAVOR) == [expected]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ("class: server", "class: router"),
            "x.yaml:2:8: class: 'router' is not allowed; expected one of 'server', 'switch', "
            "'firewall', 'storage'",
        ),
        (("u_height: 1", "u_height: 0"), "x.yaml:16:11: u_height: 0 must be greater than 0"),
        (
            ("cores: 16", "cores: 0"),
            "x.yaml:8:12: resource_class[0].cpu.cores: 0 is too small; at least 1",
        ),
        (
            ("  - size: 480\n  - size: 480\n", "  - size: 1.5\n"),
            "x.yaml:13:11: resource_class[0].drives[0].size: expected an integer, found the number 1.5",
        ),
        (
            ("  nic_count: 2\n", ""),
            "x.yaml:6:3: resource_class[0].nic_count: required key is missing",
        ),
        (
            ("    model: AMD EPYC 9124\n", "    model: AMD EPYC 9124\n    threads: 32\n"),
            "x.yaml:10:5: resource_class[0].cpu.threads: unknown key 'threads'; allowed: cores, model",
        ),
    ],
)
def test_device_type_schema_messages(change: tuple[str, str], expected: str) -> None:
    assert load(SEED_DEVICE_TYPE.replace(*change), DEVICE_TYPE) == [expected]


# The compiled schemas only decide that a file is valid; they must never pass a file jsonschema
# finds an error in (that would hide the error), nor refuse one it passes.
EXAMPLE_HARDWARE = Path(__file__).resolve().parents[2] / "examples" / "hardware"
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70000),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "CUSTOM_X", "NICX", "required", "m1.small", "1", "enum", "int"]),
    st.lists(st.sampled_from(["a", "A_B", 1, True, None, "a"]), max_size=3),
    st.dictionaries(st.sampled_from(["name", "size", "type", "x"]), st.integers(), max_size=2),
)


def _slots(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _slots(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _slots(value, (*path, index))
    return found


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(EXAMPLE_HARDWARE.glob("[!b]*/*.yaml"))), st.data())
def test_compiled_schemas_agree_with_jsonschema(path: Path, data: st.DataObject) -> None:
    kind = next(k for k in KINDS if k.folder == path.parent.name)
    doc, _ = parse(path.read_bytes(), "f.yaml")
    assert doc is not None
    value = copy.deepcopy(doc.data)
    for _ in range(data.draw(st.integers(0, 3))):
        where = data.draw(st.sampled_from(_slots(value)))
        if not where:
            continue
        parent = value
        for part in where[:-1]:
            parent = parent[part]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = data.draw(ODD_VALUES)
    if isinstance(value, dict) and data.draw(st.booleans()):
        value[data.draw(st.sampled_from(["extra", "name", "traits", "steps", "rules"]))] = (
            data.draw(ODD_VALUES)
        )
    errors = list(schema._validator(kind).iter_errors(value))
    try:
        schema._valid(kind)(value)
        compiled_passes = True
    except fastjsonschema.JsonSchemaException:
        compiled_passes = False
    assert compiled_passes == (not errors), (value, errors[:1])
    edited = Document("f.yaml", doc.tree, value)
    assert bool(schema.validate(edited, kind)) == bool(errors)
