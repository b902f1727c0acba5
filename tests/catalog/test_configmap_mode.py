"""ConfigMap mode: ``--repo`` names a folder holding the catalog's kinds as mounted ConfigMap
volumes (``device-types/``, ``flavors/``, ...; no ``hardware/`` level, no kustomization), laid
out and updated exactly as the kubelet does it (tests/support/configmap_volume.py)."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from pathlib import Path

import pytest

from flavorsmith.catalog import edit
from flavorsmith.catalog.fingerprint import fingerprint
from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.model import Flavor
from flavorsmith.catalog.repo import Repository
from flavorsmith.db.engine import make_engine
from flavorsmith.diagnostics import has_errors
from tests.conftest import EXAMPLES, Invoke
from tests.matching.conftest import load_examples
from tests.support.catalogs import RULES
from tests.support.configmap_volume import STEPS, ConfigMapVolume, mount_catalog

FLAVORS = EXAMPLES / "hardware" / "flavors"


@pytest.fixture
def mounted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example catalog as five mounted ConfigMaps under /etc/flavorsmith/catalog, say; the
    working directory is the mount's parent, as diagnostics name paths relative to it."""
    root = tmp_path / "catalog"
    mount_catalog(root, EXAMPLES / "hardware")
    monkeypatch.chdir(root)
    return root


def example_flavors() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(FLAVORS.glob("*.yaml"))}


def test_the_layout_is_the_kubelets(mounted: Path) -> None:
    flavors = mounted / "flavors"
    data = flavors / "..data"
    assert data.is_symlink()
    stamp = data.readlink().name
    assert stamp.startswith("..") and len(stamp.split(".")[-1]) >= 1
    link = flavors / "m1.small.yaml"
    assert link.is_symlink() and link.readlink() == Path("..data/m1.small.yaml")
    assert (flavors / stamp / "m1.small.yaml").is_file()
    assert not (flavors / stamp / "m1.small.yaml").is_symlink()
    assert not (mounted / "hardware").exists()


def test_validate_loads_every_file_without_a_kustomization(cli: Invoke, mounted: Path) -> None:
    result = cli("validate", "--repo", str(mounted))
    assert result.exit_code == 0, result.output
    assert result.stdout == "35 files: 0 errors, 0 warnings\n"
    repository = Repository(mounted, RULES)
    assert repository.mounted and repository.exists()
    assert len(repository.load().catalog.flavors) == 12


def test_the_kubelets_hidden_entries_are_never_catalog_files(cli: Invoke, mounted: Path) -> None:
    """A stale timestamped folder, a ``..data_tmp`` left by an interrupted update and a hidden
    file that would fail every check are all ignored."""
    flavors = mounted / "flavors"
    stale = flavors / "..2026_11_24_04_59_59.987654321"
    stale.mkdir()
    (stale / "m1.small.yaml").write_text("name: [broken\n")
    (flavors / "..data_tmp").symlink_to(stale.name)
    (flavors / "..broken.yaml").write_text("not: a flavor\n")
    result = cli("validate", "--repo", str(mounted))
    assert result.stdout == "35 files: 0 errors, 0 warnings\n", result.output


def test_diagnostics_name_the_visible_file(cli: Invoke, mounted: Path) -> None:
    flavors = ConfigMapVolume(mounted / "flavors")
    payload = example_flavors()
    payload["m1.small.yaml"] = payload["m1.small.yaml"].replace(b"name: m1.small", b"nme: x")
    flavors.write(payload)
    result = cli("validate", "--repo", str(mounted))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "error" in line and ":" in line]
    assert lines and all(line.startswith("flavors/m1.small.yaml:") for line in lines[:-1])
    assert "..data" not in result.stdout and "..20" not in result.stdout


def test_match_and_sync_plan_read_the_mounted_catalog(
    cli: Invoke, mounted: Path, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'nodes.db'}"
    engine = make_engine(url)
    load_examples(engine)
    engine.dispose()
    args = ["--repo", str(mounted), "--database", url]
    matched = cli("match", *args, "-f", "json")
    assert matched.exit_code == 0, matched.output
    counts = {row["flavor"]: row["count"] for row in json.loads(matched.stdout)}
    assert counts["g1.8xh100"] == 16 and counts["c2.large"] == 60 and len(counts) == 12
    plan = cli("sync", "plan", *args, "-f", "json")
    assert plan.exit_code == 0, plan.output
    body = json.loads(plan.stdout)
    assert body["diagnostics"] == []
    created = sorted(a["flavor"] for a in body["actions"] if a["action"] == "create")
    assert created == sorted(p.stem for p in FLAVORS.glob("*.yaml"))


def test_a_missing_mount_is_an_error_not_an_empty_catalog(cli: Invoke, tmp_path: Path) -> None:
    view = Repository(tmp_path / "nothing-mounted", RULES).load()
    assert [d.code for d in view.diagnostics] == ["repository-missing"]
    result = cli("sync", "plan", "--repo", str(tmp_path / "nothing-mounted"))
    assert result.exit_code == 2
    assert "nor mounted catalog folders" in " ".join(result.output.split())


def test_empty_mounts_are_an_error_not_an_empty_catalog(cli: Invoke, tmp_path: Path) -> None:
    """An optional ConfigMap that does not exist yet is mounted as an empty folder."""
    root = tmp_path / "catalog"
    ConfigMapVolume(root / "device-types").write({})
    (root / "flavors").mkdir()
    view = Repository(root, RULES).load()
    assert [d.code for d in view.diagnostics] == ["repository-empty"]
    assert has_errors(view.diagnostics) and not view.catalog.flavors
    result = cli("sync", "apply", "--repo", str(root), "--yes", "--prune", "--allow-empty")
    assert result.exit_code == 1
    assert "hold no definition file" in " ".join(result.output.split())


def test_edits_are_refused_on_mounted_configmaps(mounted: Path) -> None:
    repository = Repository(mounted, RULES)
    with pytest.raises(edit.EditRefused, match="ConfigMap mode"):
        edit.delete(repository, FLAVOR, "m1.small")
    with pytest.raises(edit.EditRefused, match="ConfigMap mode"):
        edit.add(repository, FLAVOR, FLAVORS / "m1.small.yaml", force=True)
    assert (mounted / "flavors" / "m1.small.yaml").is_file()


def test_the_fingerprint_changes_at_the_swap_and_only_then(mounted: Path) -> None:
    volume = ConfigMapVolume(mounted / "flavors")
    payload = example_flavors()
    del payload["m1.small.yaml"]
    payload["m9.new.yaml"] = payload["m1.medium.yaml"].replace(b"m1.medium", b"m9.new")
    seen: dict[str, str] = {}
    start = fingerprint(mounted)
    volume.write(payload, step=lambda name: seen.update({name: fingerprint(mounted)}))
    assert seen["written"] == seen["linked"] == seen["data_tmp"] == start
    assert seen["swapped"] != start
    assert seen["swapped"] == seen["unlinked"] == seen["cleaned"] == fingerprint(mounted)
    # Same keys, one file's content changed in place of another update: a change.
    payload["m9.new.yaml"] += b"# touched\n"
    volume.write(payload)
    assert fingerprint(mounted) != seen["cleaned"]
    assert list(STEPS) == list(seen)


def test_a_load_never_mixes_two_updates(mounted: Path) -> None:
    """The flavors ConfigMap flips between two updates while the catalog is loaded again and
    again: every load is all of one update, all of the other, or refused as changing."""
    volume = ConfigMapVolume(mounted / "flavors")
    updates = []
    for marker in ("first", "second"):
        payload = example_flavors()
        for key, text in payload.items():
            payload[key] = re.sub(
                rb"(?m)^description: .*$", f"description: {marker}".encode(), text
            )
        updates.append(payload)
    volume.write(updates[0])
    repository = Repository(mounted, RULES)
    assert {f.description for f in repository.load().catalog.flavors} == {"first"}
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for payload in updates:
                volume.write(payload)
                stop.wait(random.uniform(0.0, 0.3))

    worker = threading.Thread(target=flip)
    worker.start()
    outcomes: list[frozenset[str | None]] = []
    try:
        deadline = time.monotonic() + 3
        # at least three loads, however slow the machine, so some overlap a flip
        while time.monotonic() < deadline or len(outcomes) < 3:
            view = repository.load()
            codes = {d.code for d in view.diagnostics}
            if codes == {"changing"}:
                outcomes.append(frozenset())
                continue
            assert not has_errors(view.diagnostics), view.diagnostics[:3]
            flavors = [m for m in (x.model for x in view.loaded) if isinstance(m, Flavor)]
            assert len(flavors) == 12
            outcomes.append(frozenset(f.description for f in flavors))
    finally:
        stop.set()
        worker.join()
    assert outcomes and all(len(seen) <= 1 for seen in outcomes), outcomes
    # once the flips stop, a load is whole again: "changing" is never sticky (on a busy
    # machine every load during the flips may overlap one, so that is not asserted)
    settled = repository.load()
    assert "changing" not in {d.code for d in settled.diagnostics}, settled.diagnostics
    last = {f.description for f in settled.catalog.flavors}
    assert last in ({"first"}, {"second"})
