"""flavorsmith extra-specs list/show/validate/docs/metadef."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLES, Invoke


def test_list_and_namespace_filter(cli: Invoke) -> None:
    everything = json.loads(cli("extra-specs", "list", "-f", "json").stdout)
    assert len(everything) == 529
    traits = cli(
        "extra-specs", "list", "--namespace", "trait", "-f", "value", "-c", "key"
    ).stdout.splitlines()
    assert len(traits) == 378 and traits[-1] == "trait{group}:CUSTOM_{trait}"
    site = cli(
        "extra-specs", "list", "--namespace", "scheduling", "--repo", str(EXAMPLES), "-f", "json"
    )
    assert [r["key"] for r in json.loads(site.stdout)] == [
        "scheduling:tier",
        "scheduling:max_per_rack",
        "scheduling:rack_affinity.{group}",
    ]
    bad = cli("extra-specs", "list", "--namespace", "nope")
    assert bad.exit_code == 1 and bad.stderr.startswith("error: no namespace 'nope'; known: accel,")


def test_show(cli: Invoke) -> None:
    shown = json.loads(cli("extra-specs", "show", "trait_gpu:CUSTOM_NVME", "-f", "json").stdout)
    assert shown["key"] == "trait{group}:CUSTOM_{trait}"
    missing = cli("extra-specs", "show", "hw:cpu_polcy")
    assert (missing.exit_code, missing.stderr) == (
        1,
        "error: no validator for 'hw:cpu_polcy' (did you mean 'hw:cpu_policy'?)\n",
    )


def test_validate_pairs_and_modes(cli: Invoke) -> None:
    result = cli("extra-specs", "validate", "hw:cpu_policy=dedicated", "site:x=1")
    assert result.exit_code == 0
    assert result.stdout == (
        "hw:cpu_policy=dedicated: ok (valid): valid\n"
        "site:x=1: ok (unregistered): namespace 'site' is not registered; nothing checks it\n"
    )
    assert cli("extra-specs", "validate", "site:x=1", "--mode", "strict").exit_code == 1
    assert cli("extra-specs", "validate", "hw:cpu_policy=x", "--mode", "off").exit_code == 0
    disabled = cli("extra-specs", "validate", "hw:cpu_policy=x", "--mode", "disabled", "-f", "json")
    off = cli("extra-specs", "validate", "hw:cpu_policy=x", "--mode", "off", "-f", "json")
    assert (disabled.exit_code, disabled.output) == (0, off.output)
    assert cli("extra-specs", "validate", "hw:cpu_policy=x", "--mode", "lenient").exit_code == 2
    assert cli("extra-specs", "validate", "hw:cpu_policy").exit_code == 2


def test_validate_stdin_json_lines(cli: Invoke) -> None:
    lines = (
        '{"key": "hw:numa_nodes", "value": "2"}\n{"key": "hw:numa_nodes", "value": "0"}\nnot json\n'
    )
    result = cli("extra-specs", "validate", "--stdin", "-f", "json", input=lines)
    assert result.exit_code == 1
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {
            "key": "hw:numa_nodes",
            "value": "2",
            "status": "valid",
            "valid": True,
            "message": "valid",
        },
        {
            "key": "hw:numa_nodes",
            "value": "0",
            "status": "invalid-value",
            "valid": False,
            "message": "hw:numa_nodes: 0 is less than the minimum 1",
        },
        {"error": "line 3: expected a JSON object with key and value"},
    ]


def test_docs_and_metadef(cli: Invoke, tmp_path: Path) -> None:
    docs = cli("extra-specs", "docs").stdout
    assert docs.startswith("# Flavor extra specs\n\n529 validators.")
    assert "| `hw:cpu_policy` | one of dedicated, shared, mixed |" in docs
    assert "- **unescaped-dot**:" in docs
    documents = json.loads(cli("extra-specs", "metadef").stdout)
    hw = next(d for d in documents if d["namespace"] == "OS::Compute::Flavorsmith::Hw")
    assert hw["resource_type_associations"] == [{"name": "OS::Nova::Flavor", "prefix": "hw:"}]
    assert hw["properties"]["cpu_policy"]["enum"] == ["dedicated", "shared", "mixed"]
    assert hw["properties"]["numa_nodes"] == {
        "title": "numa_nodes",
        "description": hw["properties"]["numa_nodes"]["description"],
        "type": "integer",
        "minimum": 1,
    }
    assert "hw:numa_cpus.{num}" in hw["description"]
    result = cli("extra-specs", "metadef", "--output", str(tmp_path / "out"))
    assert result.exit_code == 0 and (tmp_path / "out" / "hw.json").is_file()


def test_validate_stdin_whole_output(cli: Invoke) -> None:
    """A mixed input (valid and invalid values, unknown keys with and without a suggestion,
    parameterised keys, traits and resources with group suffixes, a malformed group, repeated
    pairs, escapes, blank and malformed lines) gives exactly the expected document."""
    here = Path(__file__).parent
    lines = (here / "validate_stdin.jsonl").read_text(encoding="utf-8")
    for fmt, expected in (
        ("json", "validate_stdin.expected.jsonl"),
        ("text", "validate_stdin.expected.txt"),
    ):
        result = cli("extra-specs", "validate", "--stdin", "-f", fmt, input=lines)
        assert (result.exit_code, result.stdout) == (
            1,
            (here / expected).read_text(encoding="utf-8"),
        )


def test_validate_stdin_gives_a_nul_its_verdict(cli: Invoke) -> None:
    """A line that is a JSON object with a key and a value gets a verdict even when the text
    holds a NUL: Flavorsmith cannot store it (PostgreSQL text cannot hold one), and the verdict
    says so, and whether Nova 34 would have accepted the pair."""
    lines = (
        '{"key": "capabilities:vcpus", "value": "\\u0000"}\n'
        '{"key": "capabilities:x\\u0000", "value": "1"}\n'
        '{"key": "a", "value": NaN}\n'
    )
    result = cli("extra-specs", "validate", "--stdin", "-f", "json", input=lines)
    assert result.exit_code == 1
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {
            "key": "capabilities:vcpus",
            "value": "\x00",
            "status": "invalid-value",
            "valid": False,
            "message": "capabilities:vcpus: the value cannot be stored: a NUL character "
            "(\\u0000) is not allowed in text (Nova 34 would accept this pair; Flavorsmith "
            "cannot store it)",
        },
        {
            "key": "capabilities:x\x00",
            "value": "1",
            "status": "invalid-value",
            "valid": False,
            "message": "capabilities:x\x00: the key cannot be stored: a NUL character "
            "(\\u0000) is not allowed in text (capabilities:x\x00 is not a known key of "
            "namespace capabilities (did you mean 'capabilities:id'?))",
        },
        {
            "error": "Invalid JSON in line 3: value: NaN is not allowed: numbers must be "
            "finite: NaN, Infinity and numbers beyond 1.8e308 are refused"
        },
    ]
    text = cli("extra-specs", "validate", "capabilities:vcpus=a\x00b")
    assert text.stdout.startswith("capabilities:vcpus=a\\x00b: rejected (invalid-value): ")
