"""`flavorsmith validate` on a catalog with errors in many files, in many YAML layouts: the
whole output, every file, line, column, field, value and what is allowed, text and JSON.

The expected outputs were recorded with the positioned (ruamel) parser reading every file;
the fast reader must give exactly the same."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Invoke

F = "hardware/flavors"
D = "hardware/device-types"

# File name -> content, written over a copy of the example catalog. Each breaks something
# else, in another layout: flow and block collections, quoted keys and values, comments,
# anchors, block scalars, CRLF line ends, text beyond ASCII, a tab, YAML 1.1-only scalars.
BROKEN_FILES: dict[str, str | bytes] = {
    # A trait state with a typo, in flow style, after a value with text beyond ASCII.
    f"{F}/m1.small.nicX.yaml": (
        "name: m1.small.nicX\nresource_class: m1.small\n"
        'description: "Größe — 16 cores"\n'
        "traits: [{trait: NICX, state: requird}, {trait: 'NICY',   state: absent}]\n"
    ),
    # An extra-spec key with a typo and a value out of range, quoted keys, comments between.
    f"{F}/m1.small.pinned.yaml": (
        "# pinned CPUs\nname: m1.small.pinned\n"
        "resource_class: m1.small   # same hardware\n"
        "extra_specs:\n"
        '  "hw:cpu_polcy": dedicated\n'
        "  # the site's tiers\n"
        "  'scheduling:max_per_rack': '99'\n"
        "  scheduling:tier: platinum\n"
    ),
    # CRLF line ends; an undefined resource class.
    f"{F}/c2.crlf.yaml": (
        b"name: c2.crlf\r\nresource_class: c2.larg\r\n"
        b"traits:\r\n  - trait: BM_CONFIG_BIOS_VMX_ON\r\n    state: required\r\n"
    ),
    # The same flavor name twice across files (reported on the copy), a block scalar.
    f"{F}/m1.small.again.yaml": (
        "name: m1.small\nresource_class: m1.small\ndescription: |\n  two\n  lines\n"
    ),
    # A YAML syntax error (indentation).
    f"{F}/broken-indent.yaml": "name: broken-indent\nresource_class: m1.small\n  traits: []\n",
    # A duplicate key.
    f"{F}/dup-key.yaml": "name: dup-key\nresource_class: m1.small\nname: dup-key-2\n",
    # Anchors and an alias; an unknown top-level key.
    f"{F}/anchored.yaml": (
        "name: anchored\nresource_class: &rc m1.small\ncomment: *rc\n"
        "traits:\n- &t {trait: NICX, state: required}\n"
    ),
    # YAML 1.1 and 1.2 read these differently: an octal-looking, a hex and a sexagesimal value.
    f"{F}/numbers.yaml": (
        "name: numbers\nresource_class: m1.small\ndescription: 0x1F\n"
        "traits:\n  - trait: 017\n    state: 1:30\n"
    ),
    # A trait listed twice, the second in another case; a tab inside a value.
    f"{F}/twice.yaml": (
        'name: twice\nresource_class: m1.medium\ndescription: "a\\tb"\ntraits:\n'
        "  - {trait: NICX, state: required}\n  - trait: NICX\n    state: absent\n"
    ),
    # A device type with an unknown key and a bad number, nested deeper.
    f"{D}/acme-box.yaml": (
        "class: server\nmanufacturer: Acme\nmodel: Box\nu_height: 1\ncomment: nope\n"
        "resource_class:\n  - name: acme.box\n    cpu:\n      cores: -4\n      model: X\n"
        "    memory: {size: 1024}\n    drives:\n      - size: 0\n    nic_count: 2\n"
    ),
    # A device type defining a resource class another already defines.
    f"{D}/acme-dup.yaml": (
        "class: server\nmanufacturer: Acme\nmodel: Dup\nu_height: 1\nis_full_depth: false\n"
        "resource_class:\n- name: m1.small\n  cpu: {cores: 16, model: AMD EPYC 9124}\n"
        "  memory: {size: 131072}\n  drives: [{size: 480}, {size: 480}]\n  nic_count: 2\n"
    ),
    # A trait rule adding a trait outside its prefix.
    "hardware/trait-rules/bad-prefix.yaml": (
        "name: bad-prefix\nprefix: CUSTOM_NIC\nrules:\n  - name: GPU\n    when:\n"
        '      interface: {vendor: "0x10de"}\n    add: [CUSTOM_GPU_X]\n'
    ),
    # An extra-spec validator file with a wrong type of value.
    "hardware/extra-specs/broken.yaml": (
        "namespace: broken\nvalidators:\n  - name: broken:x\n    value: {type: integer}\n"
    ),
    # A deploy template with a step on an unknown interface.
    "hardware/deploy-templates/CUSTOM_BROKEN.yaml": (
        "name: CUSTOM_BROKEN\nsteps:\n  - interface: toaster\n    step: apply\n"
        "    args: {}\n    priority: 10\n"
    ),
    # A schema type error in a one-line flow mapping.
    f"{F}/flow.yaml": "{name: flow, resource_class: m1.small, is_public: 'yes', projects: [1]}",
    # Empty, and not a mapping.
    f"{F}/empty.yaml": "# nothing here\n",
    f"{F}/a-list.yaml": "- name: a-list\n",
}


def write_broken(repo: Path) -> None:
    for name, content in BROKEN_FILES.items():
        path = repo / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    kustomization = repo / "hardware/base/kustomization.yaml"
    text = kustomization.read_text()
    text = text.replace(
        "  - c2.diskless.yaml=../flavors/c2.diskless.yaml\n",
        "  - c2.diskless.yaml=../flavors/c2.diskless.yaml\n"
        "  - gone.yaml=../flavors/gone.yaml\n"
        "  - m1.small.pinned.yaml=../flavors/m1.small.pinned.yaml\n",
    )
    kustomization.write_text(text)


EXPECTED_TEXT = (
    "hardware/base/kustomization.yaml:21:5: configMapGenerator[flavors].files: '../flavors/gone.yaml' does not exist; kustomize build will fail\n"
    "hardware/deploy-templates/CUSTOM_BROKEN.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'deploy-templates'): it is never deployed\n"
    "hardware/deploy-templates/CUSTOM_BROKEN.yaml:3:16: steps[0].interface: 'toaster' is not allowed; expected one of 'deploy', 'bios', 'raid', 'management', 'power', 'firmware', 'vendor'\n"
    "hardware/device-types/acme-box.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'device-types'): it is never deployed\n"
    "hardware/device-types/acme-box.yaml:1:1: is_full_depth: required key is missing\n"
    "hardware/device-types/acme-box.yaml:5:1: comment: unknown key 'comment' (did you mean 'comments'?); allowed: id, class, manufacturer, model, part_number, comments, u_height, is_full_depth, interfaces, power-ports, console-ports, module-bays, resource_class\n"
    "hardware/device-types/acme-box.yaml:9:14: resource_class[0].cpu.cores: -4 is too small; at least 1\n"
    "hardware/device-types/acme-box.yaml:13:15: resource_class[0].drives[0].size: 0 is too small; at least 1\n"
    "hardware/device-types/acme-dup.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'device-types'): it is never deployed\n"
    "hardware/device-types/dell-poweredge-r7615.yaml:24:11: resource_class[0].name: resource class 'm1.small' is already defined at hardware/device-types/acme-dup.yaml:7; each resource class belongs to exactly one device type\n"
    "hardware/extra-specs/broken.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'extra-specs'): it is never deployed\n"
    "hardware/extra-specs/broken.yaml:3:5: validators[0].description: required key is missing\n"
    "hardware/extra-specs/broken.yaml:4:19: validators[0].value.type: 'integer' is not allowed; expected one of 'int', 'bool', 'enum', 'string', 'pattern' (did you mean 'int'?)\n"
    "hardware/flavors/a-list.yaml:1:1: (root): expected a mapping of keys, found a list\n"
    "hardware/flavors/a-list.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/anchored.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/anchored.yaml:3:1: comment: unknown key 'comment'; allowed: name, resource_class, description, traits, is_public, projects, extra_specs\n"
    "hardware/flavors/broken-indent.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/broken-indent.yaml:3:9: yaml: invalid YAML: mapping values are not allowed here (check the indentation of this line and the one above)\n"
    "hardware/flavors/c2.crlf.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/c2.crlf.yaml:2:17: resource_class: resource class 'c2.larg' is not defined by any device type (did you mean 'c2.large'?); defined: c2.diskless, c2.large, g1.8xh100, m1.medium, m1.small\n"
    "hardware/flavors/dup-key.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    'hardware/flavors/dup-key.yaml:3:1: yaml: invalid YAML: found duplicate key "name" with value "dup-key-2" (original value: "dup-key")\n'
    "hardware/flavors/empty.yaml:1:1: yaml: file is empty; expected a mapping of keys\n"
    "hardware/flavors/empty.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/flow.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/flow.yaml:1:51: is_public: expected true or false, found the string 'yes'\n"
    "hardware/flavors/flow.yaml:1:69: projects[0]: expected a string, found the number 1\n"
    "hardware/flavors/m1.medium.dedicated.yaml:8:12: is_public: warning: pool leak: 'twice' (public) can reach the nodes of private flavor 'm1.medium.dedicated': same resource class, and no trait one requires is forbidden by the other (checked without nodes); fix: mark CPU_AVX512 absent in 'twice' (trait: CPU_AVX512, state: absent); or put the pool's nodes in a Nova aggregate with trait:CUSTOM_CPU_AVX512=required and set [scheduler]enable_isolated_aggregate_filtering\n"
    "hardware/flavors/m1.small.again.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/m1.small.again.yaml:1:7: name: warning: file name should be 'm1.small.yaml' to match the definition\n"
    "hardware/flavors/m1.small.again.yaml:1:7: name: flavor 'm1.small' is already defined at hardware/flavors/m1.small.yaml:2\n"
    "hardware/flavors/m1.small.nicX.yaml:4:31: traits[0].state: 'requird' is not allowed; expected one of 'required', 'absent' (did you mean 'required'?)\n"
    "hardware/flavors/m1.small.pinned.yaml:5:3: extra_specs.hw:cpu_polcy: hw:cpu_polcy is not a known key of namespace hw (did you mean 'hw:cpu_policy'?)\n"
    "hardware/flavors/m1.small.pinned.yaml:7:30: extra_specs.scheduling:max_per_rack: 99 is more than the maximum 42\n"
    "hardware/flavors/m1.small.pinned.yaml:8:20: extra_specs.scheduling:tier: 'platinum' is not one of 'gold', 'silver', 'bronze'\n"
    "hardware/flavors/numbers.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/numbers.yaml:3:14: description: expected a string, found the number 31\n"
    "hardware/flavors/numbers.yaml:5:12: traits[0].trait: expected a string, found the number 17\n"
    "hardware/flavors/numbers.yaml:6:12: traits[0].state: '1:30' is not allowed; expected one of 'required', 'absent'\n"
    "hardware/flavors/twice.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'flavors'): it is never deployed\n"
    "hardware/flavors/twice.yaml:6:12: traits[1].trait: NICX is both required (line 5) and absent\n"
    "hardware/trait-rules/bad-prefix.yaml:1:1: file: warning: not listed in hardware/base/kustomization.yaml (configMapGenerator 'trait-rules'): it is never deployed\n"
    "hardware/trait-rules/bad-prefix.yaml:7:11: rules[0].add[0]: CUSTOM_GPU_X is outside this file's prefix CUSTOM_NIC: a rule file may only set the traits it owns\n"
    "hardware/trait-rules/nics.yaml:6:9: prefix: prefix CUSTOM_NIC overlaps CUSTOM_NIC of trait rules 'bad-prefix' (hardware/trait-rules/bad-prefix.yaml:2); each trait has one owner\n"
    "51 files: 28 errors, 17 warnings\n"
)


def test_validate_text_output_of_a_catalog_broken_in_many_files(
    cli: Invoke, example_repo: Path
) -> None:
    write_broken(example_repo)
    result = cli("validate")
    assert result.exit_code == 1
    assert result.stdout == EXPECTED_TEXT


def test_validate_json_output_names_the_same_positions(cli: Invoke, example_repo: Path) -> None:
    write_broken(example_repo)
    result = cli("validate", "-f", "json")
    assert result.exit_code == 1
    found = json.loads(result.stdout)
    text = [
        f"{d['path']}:{d['line']}:{d['column']}: {d['field']}: "
        + ("warning: " if d["severity"] == "warning" else "")
        + d["message"]
        for d in found
    ]
    assert text == EXPECTED_TEXT.splitlines()[:-1]
    assert [(d["path"], d["line"], d["column"], d["severity"], d["code"]) for d in found] == (
        EXPECTED_CODES
    )


def test_validate_github_output_annotates_each_position(cli: Invoke, example_repo: Path) -> None:
    write_broken(example_repo)
    result = cli("validate", "-f", "github")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    found = json.loads(cli("validate", "-f", "json").stdout)
    assert len(lines) == len(found) + 1 and lines[-1] == EXPECTED_TEXT.splitlines()[-1]
    for line, d in zip(lines, found, strict=False):
        level = "error" if d["severity"] == "error" else "warning"
        title = d["field"].replace(":", "%3A").replace(",", "%2C")
        assert line.startswith(
            f"::{level} file={d['path']},line={d['line']},col={d['column']},title={title}::"
        )
        message = line.split("::", 2)[2]
        assert message.replace("%0A", "\n").replace("%25", "%") == d["message"]


EXPECTED_CODES = [
    ("hardware/base/kustomization.yaml", 21, 5, "error", "kustomization-missing-file"),
    ("hardware/deploy-templates/CUSTOM_BROKEN.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/deploy-templates/CUSTOM_BROKEN.yaml", 3, 16, "error", "schema-enum"),
    ("hardware/device-types/acme-box.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/device-types/acme-box.yaml", 1, 1, "error", "schema-required"),
    ("hardware/device-types/acme-box.yaml", 5, 1, "error", "schema-unknown-key"),
    ("hardware/device-types/acme-box.yaml", 9, 14, "error", "schema-minimum"),
    ("hardware/device-types/acme-box.yaml", 13, 15, "error", "schema-minimum"),
    ("hardware/device-types/acme-dup.yaml", 1, 1, "warning", "kustomization-unlisted"),
    (
        "hardware/device-types/dell-poweredge-r7615.yaml",
        24,
        11,
        "error",
        "resource-class-duplicate",
    ),
    ("hardware/extra-specs/broken.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/extra-specs/broken.yaml", 3, 5, "error", "schema-required"),
    ("hardware/extra-specs/broken.yaml", 4, 19, "error", "schema-enum"),
    ("hardware/flavors/a-list.yaml", 1, 1, "error", "schema-type"),
    ("hardware/flavors/a-list.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/anchored.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/anchored.yaml", 3, 1, "error", "schema-unknown-key"),
    ("hardware/flavors/broken-indent.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/broken-indent.yaml", 3, 9, "error", "yaml-syntax"),
    ("hardware/flavors/c2.crlf.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/c2.crlf.yaml", 2, 17, "error", "resource-class-undefined"),
    ("hardware/flavors/dup-key.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/dup-key.yaml", 3, 1, "error", "yaml-syntax"),
    ("hardware/flavors/empty.yaml", 1, 1, "error", "empty"),
    ("hardware/flavors/empty.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/flow.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/flow.yaml", 1, 51, "error", "schema-type"),
    ("hardware/flavors/flow.yaml", 1, 69, "error", "schema-type"),
    ("hardware/flavors/m1.medium.dedicated.yaml", 8, 12, "warning", "pool-leak"),
    ("hardware/flavors/m1.small.again.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/m1.small.again.yaml", 1, 7, "warning", "file-name"),
    ("hardware/flavors/m1.small.again.yaml", 1, 7, "error", "flavor-duplicate"),
    ("hardware/flavors/m1.small.nicX.yaml", 4, 31, "error", "schema-enum"),
    ("hardware/flavors/m1.small.pinned.yaml", 5, 3, "error", "extra-spec-unknown-key"),
    ("hardware/flavors/m1.small.pinned.yaml", 7, 30, "error", "extra-spec-invalid-value"),
    ("hardware/flavors/m1.small.pinned.yaml", 8, 20, "error", "extra-spec-invalid-value"),
    ("hardware/flavors/numbers.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/numbers.yaml", 3, 14, "error", "schema-type"),
    ("hardware/flavors/numbers.yaml", 5, 12, "error", "schema-type"),
    ("hardware/flavors/numbers.yaml", 6, 12, "error", "schema-enum"),
    ("hardware/flavors/twice.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/flavors/twice.yaml", 6, 12, "error", "trait-conflict"),
    ("hardware/trait-rules/bad-prefix.yaml", 1, 1, "warning", "kustomization-unlisted"),
    ("hardware/trait-rules/bad-prefix.yaml", 7, 11, "error", "trait-rule-outside-prefix"),
    ("hardware/trait-rules/nics.yaml", 6, 9, "error", "trait-rule-prefix-overlap"),
]
