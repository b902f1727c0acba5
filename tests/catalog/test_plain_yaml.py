"""The streamed YAML reader of node inventories gives exactly the data the positioned parser
gives, or nothing (and then the positioned parser reads the file): never different data."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from flavorsmith.catalog import plain_yaml
from flavorsmith.catalog.document import parse

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def positioned(raw: bytes) -> Any:
    doc, diagnostics = parse(raw, "nodes.yaml", max_bytes=None, fast=False)
    assert doc is not None and not diagnostics, diagnostics
    return json.loads(json.dumps(doc.data, default=str))


def streamed(raw: bytes, tmp_path: Path) -> Any:
    """The document as ``node import`` streams it, or None when it raises ``Unsure``."""
    path = tmp_path / "nodes.yaml"
    path.write_bytes(raw)
    stream = plain_yaml.Stream(path)
    try:
        items = list(stream)
    except plain_yaml.Unsure:
        return None
    if stream.prefix:
        return {**stream.top, "nodes": items}
    return items if isinstance(stream.top, list) else stream.top


def test_the_example_inventory_reads_the_same(tmp_path: Path) -> None:
    raw = (EXAMPLES / "nodes.yaml").read_bytes()
    fast = streamed(raw, tmp_path)
    assert fast is not None  # the common shape takes the fast path
    assert fast == positioned(raw)


# Values YAML 1.1 (libyaml) and YAML 1.2 (ruamel) may read differently, and shapes the fast
# reader must leave to the positioned parser.
TRICKY = [
    "yes",
    "no",
    "on",
    "off",
    "Yes",
    "~",
    "null",
    "",
    "true",
    "False",
    "0x1F",
    "0o17",
    "017",
    "1_000",
    "1e3",
    "1.5",
    "-0",
    "+12",
    ".inf",
    "-.inf",
    ".nan",
    "2026-11-24",
    "2026-11-24T10:00:00Z",
    "12:30",
    "1:2:3",
    "'quoted'",
    '"double"',
    "plain text",
    "a: b",
    "[1, 2]",
    "{a: 1}",
    "!!str 12",
    "<<",
    "=",
    ".5",
    "5.",
    "1.0e+3",
    "0.",
    "-",
    "CUSTOM_NVME",
]


@pytest.mark.parametrize("value", TRICKY)
def test_a_tricky_value_reads_the_same_or_not_at_all(value: str, tmp_path: Path) -> None:
    raw = (
        "nodes:\n"
        "  - name: n1\n"
        f"    driver: fake-hardware\n"
        f"    extra: {{v: {value}}}\n"
        f"    properties:\n"
        f"      note: {value}\n"
    ).encode()
    doc, diagnostics = parse(raw, "nodes.yaml", max_bytes=None, fast=False)
    fast = streamed(raw, tmp_path)
    if doc is None or diagnostics:
        assert fast is None  # a file the positioned parser refuses is never read fast
        return
    if fast is not None:
        assert fast == json.loads(json.dumps(doc.data, default=str))


def test_a_duplicate_key_is_left_to_the_positioned_parser(tmp_path: Path) -> None:
    raw = b"nodes:\n  - name: a\n    name: b\n"
    assert streamed(raw, tmp_path) is None


def test_anchors_and_aliases_are_left_to_the_positioned_parser(tmp_path: Path) -> None:
    raw = b"nodes:\n  - name: &n a\n    extra: {copy: *n}\n"
    assert streamed(raw, tmp_path) is None


def test_generated_inventories_read_the_same(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = ["alpha", "beta", "CUSTOM_X", "HW_CPU_X86_AVX2", "r7615-a01-u01", "power off"]
    for _ in range(20):
        lines = ["nodes:"]
        for i in range(rng.randint(1, 30)):
            lines += [
                f"  - name: node-{i}",
                "    driver: fake-hardware",
                f"    resource_class: {rng.choice(['m1.small', 'c2.large', 'g1.8xh100'])}",
                f"    properties: {{cpus: {rng.randint(1, 128)}, memory_mb: {rng.randint(1, 10**6)}}}",
                f"    traits: [{', '.join(rng.sample(words[:4], rng.randint(0, 4)))}]",
                f"    power_state: {rng.choice(['power on', 'power off'])}",
                f"    maintenance: {rng.choice(['true', 'false'])}",
            ]
        raw = ("\n".join(lines) + "\n").encode()
        fast = streamed(raw, tmp_path)
        assert fast is not None
        assert fast == positioned(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"%YAML 1.1\n---\n- {name: a, extra: {v: on}}\n",  # a directive
        b"- {name: a}\n---\n- {name: b}\n",  # a second document
        b"\xff\xfe- \x00",  # UTF-16
        b"- {name: \xe9}\n",  # not UTF-8
        b"- {name: a\n",  # a syntax error
        b"- {name: !custom a}\n",  # a tag of its own
        b"",  # empty
    ],
)
def test_what_the_positioned_parser_must_read_is_left_to_it(tmp_path: Path, raw: bytes) -> None:
    assert streamed(raw, tmp_path) is None
