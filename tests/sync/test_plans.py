"""`sync plan` as an operator reviews it: the diff of every kind of action, its colour, the
exit codes for CI, the JSON plan format, and a saved plan applied exactly (or refused)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import termios
from pathlib import Path

import click
import pytest

import flavorsmith
from flavorsmith.catalog.repo import Repository
from flavorsmith.cli.sync.diff import render, use_colour
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import StoreFlavors, count_servers
from tests.conftest import EXAMPLES, Invoke
from tests.support.catalogs import RULES

DEDICATED = "hardware/flavors/m1.medium.dedicated.yaml"
DISKLESS = "hardware/flavors/c2.diskless.yaml"
FLAVOR_IDS = sorted(p.stem for p in (EXAMPLES / "hardware" / "flavors").glob("*.yaml"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    return tmp_path / "deploy"


@pytest.fixture
def args(repo: Path, tmp_path: Path) -> list[str]:
    return ["--repo", str(repo), "--database", f"sqlite:///{tmp_path / 'sync.db'}"]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def an_unmanaged_flavor(args: list[str]) -> None:
    engine = make_engine(args[-1])
    StoreFlavors(engine).create(
        DerivedFlavor("tiny-1", "tiny", None, True, (), vcpus=1, ram=512, disk=1)
    )
    engine.dispose()


def private_warning(repo: Path) -> str:
    """What sync prints on stderr, above the plan, for the catalog ``changed_since_apply``
    leaves: its one warning."""
    return (
        f"{repo}/{DISKLESS}:3:12: is_public: warning: a private flavor without projects can be "
        "used by admins only\n0 errors, 1 warning\n"
    )


def changed_since_apply(cli: Invoke, repo: Path, args: list[str]) -> None:
    """The example catalog applied, then edited: one of each action."""
    assert cli("sync", "apply", *args, "--yes").exit_code == 0
    edit(repo / DEDICATED, "reserved for the analytics team", "for the analytics team only")
    edit(repo / DEDICATED, "scheduling:tier: silver", "scheduling:tier: gold")
    edit(repo / DEDICATED, "  scheduling:max_per_rack: 4\n", "")
    edit(
        repo / DEDICATED,
        "  - 9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a\n",
        "  - 0123456789abcdef0123456789abcdef\n",
    )
    edit(repo / DISKLESS, "name: c2.diskless\n", "name: c2.diskless\nis_public: false\n")
    an_unmanaged_flavor(args)


DIFF = """\
-/+ replace flavor c2.diskless (is_public forces replacement; no servers use it)
    ~ is_public: true → false (forces replacement)
~ update flavor m1.medium.dedicated
    ~ description: "Medium compute flavor reserved for the analytics team, on nodes with \
AVX-512" → "Medium compute flavor for the analytics team only, on nodes with AVX-512"
    ~ extra_specs.scheduling:tier: "silver" → "gold"
    - extra_specs.scheduling:max_per_rack: "4"
~ access flavor m1.medium.dedicated
    + access: "0123456789abcdef0123456789abcdef"
    - access: "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"
  unmanaged (left alone): tiny (id tiny-1)
Plan: 3 changes (1 to update, 1 to change access, 1 to replace). 10 up to date, 1 unmanaged.
"""


def test_an_update_a_replace_and_access_show_old_and_new(
    cli: Invoke, repo: Path, args: list[str]
) -> None:
    changed_since_apply(cli, repo, args)
    result = cli("sync", "plan", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (0, DIFF, private_warning(repo))


def test_a_create_lists_every_attribute(cli: Invoke, args: list[str]) -> None:
    result = cli("sync", "plan", *args)
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines(keepends=True)
    start = lines.index("+ create flavor m1.medium.dedicated\n")
    assert lines[-1] == "Plan: 12 changes (12 to create).\n"
    assert (
        "".join(lines[start : start + 21])
        == """\
+ create flavor m1.medium.dedicated
    + id: "m1.medium.dedicated"
    + name: "m1.medium.dedicated"
    + description: "Medium compute flavor reserved for the analytics team, on nodes with AVX-512"
    + vcpus: 32
    + ram: 262144
    + disk: 960
    + swap: 0
    + ephemeral: 0
    + is_public: false
    + extra_specs.flavorsmith:managed: "true"
    + extra_specs.resources:CUSTOM_M1_MEDIUM: "1"
    + extra_specs.resources:DISK_GB: "0"
    + extra_specs.resources:MEMORY_MB: "0"
    + extra_specs.resources:VCPU: "0"
    + extra_specs.scheduling:max_per_rack: "4"
    + extra_specs.scheduling:tier: "silver"
    + extra_specs.trait:CUSTOM_CPU_AVX512: "required"
    + access: "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"
    + access: "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"
+ create flavor m1.small
"""
    )


def test_the_diff_colours_each_line_by_its_sign(cli: Invoke, repo: Path, args: list[str]) -> None:
    changed_since_apply(cli, repo, args)
    plain = cli("sync", "plan", *args)
    assert "\x1b[" not in plain.stdout  # piped: no colour
    engine = make_engine(args[-1])
    target = StoreFlavors(engine)
    actions = FLAVORS.plan(
        FLAVORS.desired(Repository(repo, RULES).load().catalog), target.observe()
    )
    actions = count_servers(actions, target)
    engine.dispose()
    coloured = render(actions, "flavor", colour=True)
    assert coloured.splitlines()[:3] == [
        "\x1b[33m-/+ replace flavor c2.diskless (is_public forces replacement; no servers use "
        "it)\x1b[0m",
        "    \x1b[33m~ is_public: true → false (forces replacement)\x1b[0m",
        "\x1b[33m~ update flavor m1.medium.dedicated\x1b[0m",
    ]
    assert '    \x1b[31m- extra_specs.scheduling:max_per_rack: "4"\x1b[0m' in coloured
    assert '    \x1b[32m+ access: "0123456789abcdef0123456789abcdef"\x1b[0m' in coloured
    assert click.unstyle(coloured) == plain.stdout == DIFF
    assert use_colour(True, {}) is True
    assert use_colour(True, {"NO_COLOR": "1"}) is False
    assert use_colour(False, {}) is False


def test_detailed_exitcode_for_ci(cli: Invoke, repo: Path, args: list[str]) -> None:
    changes = cli("sync", "plan", *args, "--detailed-exitcode")
    assert (changes.exit_code, changes.stdout.splitlines()[-1]) == (
        2,
        "Plan: 12 changes (12 to create).",
    )
    assert cli("sync", "apply", *args, "--yes").exit_code == 0
    none = cli("sync", "plan", *args, "--detailed-exitcode")
    assert (none.exit_code, none.stdout, none.stderr) == (0, "No changes. 12 up to date.\n", "")
    assert cli("sync", "plan", *args).exit_code == 0  # without it: 0 whatever the plan
    edit(repo / DISKLESS, "name: c2.diskless\n", "name: c2.diskless\nis_public: false\n")
    assert cli("sync", "plan", *args).exit_code == 0
    assert cli("sync", "plan", *args, "--detailed-exitcode").exit_code == 2
    broken = ["--repo", str(EXAMPLES / "broken" / "wrong-type"), *args[2:]]
    refused = cli("sync", "plan", *broken, "--detailed-exitcode")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("the catalog has errors; nothing is planned:\n")


def test_detailed_exitcode_is_1_when_apply_would_meet_a_conflict(
    cli: Invoke, args: list[str]
) -> None:
    engine = make_engine(args[-1])
    migrate.upgrade(engine)
    StoreFlavors(engine).create(
        DerivedFlavor("m1.small", "m1.small", None, True, (), vcpus=1, ram=512, disk=1)
    )
    engine.dispose()
    result = cli("sync", "plan", *args, "--detailed-exitcode")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == ("Plan: 11 changes (11 to create). 1 in conflict.")
    assert "! conflict flavor m1.small: a flavor with id 'm1.small' exists but is not managed" in (
        result.stdout
    )


def test_the_json_plan_format(cli: Invoke, repo: Path, args: list[str]) -> None:
    changed_since_apply(cli, repo, args)
    result = cli("sync", "plan", *args, "-f", "json")
    assert (result.exit_code, result.stderr) == (0, private_warning(repo))
    body = json.loads(result.stdout)
    observed = body.pop("observed")
    assert sorted(observed) == [*sorted(FLAVOR_IDS), "tiny-1"]
    assert all(re.fullmatch("sha256:[0-9a-f]{64}", v) for v in observed.values())
    noop = [
        {"action": "noop", "subject": f, "flavor": f, "reason": "up to date", "changes": []}
        for f in FLAVOR_IDS
        if f not in ("c2.diskless", "m1.medium.dedicated")
    ]
    dedicated = "Medium compute flavor {} the analytics team{}, on nodes with AVX-512"
    assert body == {
        "format_version": 1,
        "kind": "flavors",
        "prune": False,
        "diagnostics": [
            {
                "path": str(repo / DISKLESS),
                "line": 3,
                "column": 12,
                "field": "is_public",
                "severity": "warning",
                "code": "private-without-projects",
                "message": "a private flavor without projects can be used by admins only",
            }
        ],
        "actions": [
            {
                "action": "replace",
                "subject": "c2.diskless",
                "flavor": "c2.diskless",
                "reason": "Nova cannot change is_public True -> False in place; delete and "
                "create with the same id",
                "changes": [
                    {
                        "op": "change",
                        "field": "is_public",
                        "old": True,
                        "new": False,
                        "forces_replace": True,
                    }
                ],
                "servers": {"count": 0, "scope": "all_projects"},
            },
            *noop[:5],
            {
                "action": "update",
                "subject": "m1.medium.dedicated",
                "flavor": "m1.medium.dedicated",
                "reason": "description changed; extra specs to set: scheduling:tier; extra specs "
                "to unset: scheduling:max_per_rack",
                "set_extra_specs": {"scheduling:tier": "gold"},
                "unset_extra_specs": ["scheduling:max_per_rack"],
                "description": dedicated.format("for", " only"),
                "changes": [
                    {
                        "op": "change",
                        "field": "description",
                        "old": dedicated.format("reserved for", ""),
                        "new": dedicated.format("for", " only"),
                    },
                    {
                        "op": "change",
                        "field": "extra_specs.scheduling:tier",
                        "old": "silver",
                        "new": "gold",
                    },
                    {"op": "remove", "field": "extra_specs.scheduling:max_per_rack", "old": "4"},
                ],
            },
            {
                "action": "access",
                "subject": "m1.medium.dedicated",
                "flavor": "m1.medium.dedicated",
                "reason": "give 0123456789abcdef0123456789abcdef; take back from "
                "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a",
                "add_projects": ["0123456789abcdef0123456789abcdef"],
                "remove_projects": ["9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"],
                "changes": [
                    {"op": "add", "field": "access", "new": "0123456789abcdef0123456789abcdef"},
                    {"op": "remove", "field": "access", "old": "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a"},
                ],
            },
            *noop[5:],
            {
                "action": "unmanaged",
                "subject": "tiny-1",
                "flavor": "tiny-1",
                "reason": "not created by Flavorsmith; left alone",
                "changes": [],
            },
        ],
        "summary": {"replace": 1, "noop": 10, "update": 1, "access": 1, "unmanaged": 1},
    }


def saved_plan(cli: Invoke, args: list[str], path: Path) -> dict[str, object]:
    result = cli("sync", "plan", *args, "--out", str(path))
    assert result.exit_code == 0, result.output
    body: dict[str, object] = json.loads(path.read_text())
    assert body == json.loads(cli("sync", "plan", *args, "-f", "json").stdout)
    return body


def test_a_saved_plan_is_applied_exactly(
    cli: Invoke, repo: Path, args: list[str], tmp_path: Path
) -> None:
    changed_since_apply(cli, repo, args)
    plan = saved_plan(cli, args, tmp_path / "plan.json")
    applied = cli("sync", "apply", str(tmp_path / "plan.json"), *args, "-f", "json")
    assert (applied.exit_code, applied.stderr) == (0, private_warning(repo))
    results = json.loads(applied.stdout)["results"]
    assert [{k: v for k, v in r.items() if k != "outcome"} for r in results] == plan["actions"]
    assert [r["outcome"] for r in results if r["action"] in ("replace", "update", "access")] == [
        "done"
    ] * 3
    again = cli("sync", "plan", *args, "--detailed-exitcode")
    assert (again.exit_code, again.stdout) == (
        0,
        "  unmanaged (left alone): tiny (id tiny-1)\nNo changes. 12 up to date, 1 unmanaged.\n",
    )


def test_a_saved_plan_is_refused_when_the_target_changed(
    cli: Invoke, repo: Path, args: list[str], tmp_path: Path
) -> None:
    changed_since_apply(cli, repo, args)
    saved_plan(cli, args, tmp_path / "plan.json")
    engine = make_engine(args[-1])
    target = StoreFlavors(engine)
    target.set_description("m1.small", "edited through the API")
    target.delete("tiny-1")
    target.create(DerivedFlavor("xl-1", "xl", None, True, (), vcpus=8, ram=8192, disk=10))
    before = target.observe()
    result = cli("sync", "apply", str(tmp_path / "plan.json"), *args)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        private_warning(repo)
        + "error: refused: the target's flavors changed since the plan was made (changed: "
        "m1.small; appeared: xl-1; gone: tiny-1); make a new plan\n",
    )
    assert target.observe() == before  # nothing written
    engine.dispose()


def test_a_saved_plan_is_refused_when_the_catalog_changed(
    cli: Invoke, repo: Path, args: list[str], tmp_path: Path
) -> None:
    changed_since_apply(cli, repo, args)
    saved_plan(cli, args, tmp_path / "plan.json")
    edit(repo / DEDICATED, "scheduling:tier: gold", "scheduling:tier: bronze")
    result = cli("sync", "apply", str(tmp_path / "plan.json"), *args)
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        private_warning(repo)
        + "error: refused: the catalog changed since the plan was made (flavors planned "
        "differently: m1.medium.dedicated); make a new plan\n",
    )


def test_what_is_not_a_plan_it_can_apply(cli: Invoke, args: list[str], tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    cases = {
        "not json": f"error: {path}: not a plan (not JSON: Expecting value: line 1 column 1 "
        "(char 0))\n",
        "{}": f"error: {path}: not a plan (no format_version; write one with sync plan --out)\n",
        '{"format_version": 2}': f"error: {path}: plan format_version 2; this version applies "
        "format_version 1\n",
        '{"format_version": 1, "diagnostics": []}': f"error: {path}: not a plan (missing or "
        "malformed 'kind')\n",
        '{"format_version": 1, "diagnostics": [], "error": "refused: pruning would delete all"}': (
            f"error: {path}: the plan was refused when it was made; nothing to apply\n"
        ),
    }
    for text, expected in cases.items():
        path.write_text(text)
        result = cli("sync", "apply", str(path), *args)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", expected), text
    missing = cli("sync", "apply", str(tmp_path / "nothing.json"), *args)
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"error: cannot read the plan {tmp_path / 'nothing.json'}: No such file or directory\n",
    )
    saved_plan(cli, args, path)
    with_prune = cli("sync", "apply", str(path), *args, "--prune")
    assert with_prune.exit_code == 2
    assert "a saved plan says what it syncs and is applied once: not with --prune" in " ".join(
        with_prune.stderr.split()
    )


def test_a_deploy_template_update_by_field(cli: Invoke, repo: Path, args: list[str]) -> None:
    only = [*args, "--only", "deploy-templates"]
    assert cli("sync", "apply", *only, "--yes").exit_code == 0
    path = repo / "hardware" / "deploy-templates" / "CUSTOM_BM_CONFIG_BIOS_VMX_OFF.yaml"
    edit(path, "priority: 150", "priority: 160")
    edit(path, "disabled in the BIOS", "off in the BIOS")
    path.write_text(
        path.read_text()
        + "  - interface: bios\n    step: factory_reset\n    args: {}\n    priority: 170\n"
    )
    result = cli("sync", "plan", *only)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "~ update template CUSTOM_BM_CONFIG_BIOS_VMX_OFF\n"
        "    ~ steps[0].priority: 150 → 160\n"
        '    + steps[1]: {"interface": "bios", "step": "factory_reset", "args": {}, '
        '"priority": 170}\n'
        '    ~ description: "Intel VT-x (VMX) disabled in the BIOS" → "Intel VT-x (VMX) off '
        'in the BIOS"\n'
        "Plan: 1 change (1 to update). 3 up to date.\n"
    )


def on_a_terminal(args: list[str], env: dict[str, str], answer: bytes = b"") -> tuple[int, str]:
    """Run the command with a pseudo-terminal as its stdin, stdout and stderr: (exit code,
    everything it wrote, newlines as written by the program)."""
    main, child = os.openpty()
    attributes = termios.tcgetattr(child)
    attributes[3] &= ~termios.ECHO  # what is typed is not written back
    termios.tcsetattr(child, termios.TCSANOW, attributes)
    process = subprocess.Popen(
        [sys.executable, "-m", "flavorsmith", *args],
        stdin=child,
        stdout=child,
        stderr=child,
        env={**os.environ, "PYTHONPATH": str(Path(flavorsmith.__file__).parents[1]), **env},
    )
    os.close(child)
    if answer:
        os.write(main, answer)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed: the program exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return process.wait(), b"".join(chunks).decode().replace("\r\n", "\n")


def test_colour_on_a_terminal_and_none_with_no_color(
    cli: Invoke, repo: Path, args: list[str]
) -> None:
    changed_since_apply(cli, repo, args)
    code, coloured = on_a_terminal(["sync", "plan", *args], {"NO_COLOR": ""})
    assert code == 0
    # The catalog's warning comes first, on stderr (never coloured), then the plan.
    assert coloured.startswith(
        private_warning(repo)
        + "\x1b[33m-/+ replace flavor c2.diskless (is_public forces replacement; no servers use "
        "it)\x1b[0m\n"
    )
    assert click.unstyle(coloured) == private_warning(repo) + DIFF
    code, plain = on_a_terminal(["sync", "plan", *args], {"NO_COLOR": "1"})
    assert (code, plain) == (0, private_warning(repo) + DIFF)


def test_apply_asks_with_the_diff_on_a_terminal(cli: Invoke, repo: Path, args: list[str]) -> None:
    changed_since_apply(cli, repo, args)
    code, output = on_a_terminal(["sync", "apply", *args], {"NO_COLOR": "1"}, b"n\n")
    assert code == 1
    assert output == private_warning(repo) + DIFF + "Apply 3 changes? [y/N]: "


def test_a_watcher_is_never_forced(cli: Invoke, args: list[str]) -> None:
    result = cli("sync", "apply", *args, "--watch", "--force")
    assert result.exit_code == 2
    assert "a watcher never deletes or replaces a flavor servers use" in result.stderr
