"""Nova parity over the committed, Nova-labelled corpus; linear-time value rules."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from flavorsmith.extra_specs.builtin import build, nova_validators
from flavorsmith.extra_specs.nova_differences import FIXES
from flavorsmith.extra_specs.registry import Registry

CORPUS = Path(__file__).with_name("parity.jsonl")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return build()


def test_corpus_covers_every_validator(registry: Registry) -> None:
    pairs = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    assert len(pairs) > 5000
    statuses: dict[str, set[str]] = {}
    for pair in pairs:
        found = registry.find(pair["key"])
        if found is not None:
            statuses.setdefault(found.name, set()).add(
                registry.verdict(pair["key"], pair["value"]).status
            )
    for validator in nova_validators():
        assert "valid" in statuses.get(validator.name, set()), validator.name
        if validator.value.kind != "string":
            assert "invalid-value" in statuses[validator.name], validator.name


def test_nova_mode_agrees_with_nova_except_documented_fixes(registry: Registry) -> None:
    disagreements: dict[str, list[str]] = {}
    for line in CORPUS.read_text().splitlines():
        pair = json.loads(line)
        ours = registry.verdict(pair["key"], pair["value"]).allowed("nova")
        if ours != pair["nova_valid"]:
            fix = next((f.name for f in FIXES if f.applies(pair["key"])), "UNDOCUMENTED")
            disagreements.setdefault(fix, []).append(f"{pair['key']}={pair['value']!r}")
    assert "UNDOCUMENTED" not in disagreements, disagreements.get("UNDOCUMENTED")
    assert set(disagreements) == {"unescaped-dot", "invalid-group"}


def test_there_are_525_nova_validators() -> None:
    assert len(nova_validators()) == 525


ADVERSARIAL = [
    ("hw:pmem", "a" * 254 + "!"),
    ("hw:pmem", "a," * 127 + "!"),
    ("hw:cpu_realtime_mask", "1" * 254 + "x"),
    ("hw:cpu_dedicated_mask", "1-1," * 63 + "x"),
    ("hw:numa_cpus.0", "^1" * 127 + "-"),
    ("pci_passthrough:alias", "a:1, " * 50 + "x"),
    ("pci_passthrough:alias", " " * 254 + ":"),
    ("pci_passthrough:alias", "a:" + "1 " * 126 + ","),
    ("hw:mem_page_size", "1" * 254 + "x"),
    ("aggregate_instance_extra_specs:" + "a" * 200, "x" * 255),
    ("capabilities:cpu_info" + ":a" * 100 + "!", "x"),
    ("trait" + "a" * 64 + ":CUSTOM_" + "A" * 180, "required"),
    ("resources:CUSTOM_" + "A" * 230 + "!", "1"),
]


@pytest.mark.parametrize(("key", "value"), ADVERSARIAL)
def test_every_rule_is_linear_on_adversarial_input(
    registry: Registry, key: str, value: str
) -> None:
    registry.verdict(key, value)  # warm up
    started = time.perf_counter()
    for _ in range(20):
        registry.verdict(key, value)
    assert (time.perf_counter() - started) / 20 < 0.001, "a verdict took over a millisecond"
