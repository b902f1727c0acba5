"""kustomization.yaml edits change exactly one entry and keep every other byte."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from flavorsmith.catalog import kustomization
from flavorsmith.catalog.document import parse
from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR
from tests.conftest import Invoke

SEED_STYLE = """\
---
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization

# Published to the cluster by ArgoCD.
configMapGenerator:
- name: device-types  # hardware models
  options:
    disableNameSuffixHash: true
  files:
  - dell-poweredge-r7615.yaml=../device-types/dell-poweredge-r7615.yaml
- name: flavors
  options:
    disableNameSuffixHash: true
  files:
  # generic flavors first
  - m1.small.yaml=../flavors/m1.small.yaml
  - m1.small.nicX.yaml=../flavors/m1.small.nicX.yaml   # NICX hardware

generatorOptions:
  labels:
    app: hardware
"""

INDENTED = """\
configMapGenerator:
  - name: flavors
    files:
      - "a.yaml=../flavors/a.yaml"
      - c.yaml=../flavors/c.yaml
resources: []
"""


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_add_appends_one_line_when_unsorted() -> None:
    after = kustomization.add_entry(SEED_STYLE, FLAVOR, "m1.medium.yaml")
    assert changed_lines(SEED_STYLE, after) == ["+  - m1.medium.yaml=../flavors/m1.medium.yaml"]
    assert after.index("m1.medium.yaml=") > after.index("m1.small.nicX.yaml=")


def test_add_inserts_in_order_when_sorted() -> None:
    after = kustomization.add_entry(INDENTED, FLAVOR, "b.yaml")
    assert changed_lines(INDENTED, after) == ["+      - b.yaml=../flavors/b.yaml"]
    assert after.splitlines()[4] == "      - b.yaml=../flavors/b.yaml"


def test_add_is_idempotent() -> None:
    assert kustomization.add_entry(SEED_STYLE, FLAVOR, "m1.small.yaml") == SEED_STYLE


def test_remove_deletes_one_line_and_keeps_comments() -> None:
    after = kustomization.remove_entry(SEED_STYLE, FLAVOR, "m1.small.nicX.yaml")
    assert changed_lines(SEED_STYLE, after) == [
        "-  - m1.small.nicX.yaml=../flavors/m1.small.nicX.yaml   # NICX hardware"
    ]


def test_add_then_remove_round_trips_byte_for_byte() -> None:
    added = kustomization.add_entry(SEED_STYLE, DEVICE_TYPE, "hpe-proliant-dl360-gen11.yaml")
    assert kustomization.remove_entry(added, DEVICE_TYPE, "hpe-proliant-dl360-gen11.yaml") == (
        SEED_STYLE
    )


def test_remove_last_entry_leaves_an_empty_list() -> None:
    after = kustomization.remove_entry(SEED_STYLE, DEVICE_TYPE, "dell-poweredge-r7615.yaml")
    assert changed_lines(SEED_STYLE, after) == [
        "-  files:",
        "-  - dell-poweredge-r7615.yaml=../device-types/dell-poweredge-r7615.yaml",
        "+  files: []",
    ]


def test_add_new_generator_keeps_the_rest() -> None:
    text = SEED_STYLE.replace("- name: flavors", "- name: other")
    after = kustomization.add_entry(text, FLAVOR, "m1.small.yaml")
    assert changed_lines(text, after) == [
        "+- name: flavors",
        "+  options:",
        "+    disableNameSuffixHash: true",
        "+  files:",
        "+  - m1.small.yaml=../flavors/m1.small.yaml",
    ]
    # The block lands inside configMapGenerator, before the comment-free next key.
    assert after.index("- name: flavors") < after.index("generatorOptions:")


def test_add_to_file_without_generators() -> None:
    text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    after = kustomization.add_entry(text, FLAVOR, "m1.small.yaml")
    assert after.startswith(text)
    doc, _ = parse(after.encode(), "k")
    assert doc is not None
    entries = kustomization.entries(doc, "flavors")
    assert entries is not None and [e.text for e in entries] == [
        "m1.small.yaml=../flavors/m1.small.yaml"
    ]


def test_flow_style_falls_back_to_a_round_trip() -> None:
    text = "configMapGenerator:\n- name: flavors\n  files: [a.yaml=../flavors/a.yaml]  # keep\n"
    after = kustomization.add_entry(text, FLAVOR, "b.yaml")
    doc, _ = parse(after.encode(), "k")
    assert doc is not None
    entries = kustomization.entries(doc, "flavors")
    assert entries is not None
    assert [e.text for e in entries] == ["a.yaml=../flavors/a.yaml", "b.yaml=../flavors/b.yaml"]


def test_entry_matching() -> None:
    entry = kustomization.Entry("m1.small.yaml=../flavors/m1.small.yaml", 1, 1)
    assert entry.names("flavors", "m1.small.yaml")
    assert not entry.names("device-types", "m1.small.yaml")
    assert kustomization.Entry("../flavors/x.yaml", 1, 1).names("flavors", "x.yaml")


def test_entries_that_leave_the_repository_are_errors_inside_ones_are_not(
    example_repo: Path, tmp_path: Path, cli: Invoke
) -> None:
    """A files entry that is a link out of the repository is refused like one written with
    ``..`` or an absolute path; ``..`` that stays inside, and a link inside, are fine."""
    kust = example_repo / "hardware/base/kustomization.yaml"
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: x\n")
    (example_repo / "hardware/flavors/leak.yaml").symlink_to(secret)
    (example_repo / "hardware/extra").symlink_to("flavors")
    text = kust.read_text()
    kust.write_text(
        text.replace(
            "  - c2.diskless.yaml=../flavors/c2.diskless.yaml\n",
            "  - c2.diskless.yaml=../flavors/../flavors/c2.diskless.yaml\n"
            "  - leak.yaml=../flavors/leak.yaml\n"
            "  - other=../extra/m1.small.yaml\n",
        )
    )
    result = cli("validate", "-f", "json")
    errors = [d for d in json.loads(result.stdout) if d["severity"] == "error"]
    assert [(d["field"], d["message"]) for d in errors if d["code"] != "outside-repository"] == [
        (
            "configMapGenerator[flavors].files",
            "'../flavors/leak.yaml' leads outside the repository through a symbolic link; "
            "kustomize build refuses files that are not in or below the repository, and "
            "nothing there is read",
        )
    ], result.stdout
    assert all(
        d["path"] == "hardware/base/kustomization.yaml"
        for d in errors
        if d["code"] == "kustomization-outside"
    )
