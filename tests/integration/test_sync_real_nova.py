"""The sync cycle against the real Nova 34 compute API (installed and started by the test
support in tests/support/nova_api.py): create, update, replace with the same id, flavor
access, prune, unmanaged flavors untouched, and zero writes on a second apply."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openstack
import pytest

from flavorsmith.catalog.edit import delete
from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.repo import Repository
from flavorsmith.extra_specs.builtin import build
from flavorsmith.extra_specs.validation import refusal
from flavorsmith.sync.engine import run
from flavorsmith.sync.kinds.nova_flavors import KIND as FLAVORS
from flavorsmith.sync.kinds.nova_flavors import MARKER, SdkFlavors
from tests.conftest import EXAMPLES
from tests.support import nova_api
from tests.support.catalogs import RULES


@pytest.fixture(scope="module")
def nova(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with nova_api.running(tmp_path_factory.mktemp("nova")) as url:
        yield url


@pytest.fixture
def conn(nova: str) -> Any:
    return openstack.connect(
        auth_type="admin_token",
        auth={"endpoint": nova, "token": "admin:admin"},
        compute_endpoint_override=nova,
        load_yaml_config=False,
        load_envvars=False,
    )


def target(conn: Any) -> SdkFlavors:
    """As ``sync --cloud`` makes it: the keys stock Nova refuses are written at 2.85."""
    return SdkFlavors(conn, refusal(build(), "nova"))


def edit(repo: Repository, name: str, old: str, new: str) -> None:
    path = repo.hardware / name
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))


def test_sync_cycle_against_real_nova(conn: Any, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    repo = Repository(tmp_path / "deploy", RULES)
    conn.compute.create_flavor(name="operator-made", ram=512, vcpus=1, disk=1, id="operator-made")

    first = run(FLAVORS, repo, target(conn), prune=False, execute=True)
    assert first.report is not None and [o.as_dict() for o in first.report.failed] == []
    gpu = conn.compute.get_flavor("g1.8xh100")
    assert (gpu.vcpus, gpu.ram, gpu.disk) == (112, 2097152, 960)
    specs = conn.compute.fetch_flavor_extra_specs(gpu).extra_specs
    assert specs[MARKER] == "true" and specs["capabilities:boot_mode"] == "uefi"
    assert specs["trait:CUSTOM_GPU_NVIDIA_H100"] == "required"
    access = conn.compute.get_flavor_access("m1.medium.dedicated")
    assert len(access) == 2

    again = run(FLAVORS, repo, target(conn), prune=False, execute=True)
    assert again.report is not None and again.report.writes == 0

    edit(repo, "flavors/m1.small.yaml", "dual 480GB drives", "two 480GB drives")
    edit(
        repo,
        "device-types/hpe-proliant-dl360-gen11.yaml",
        "size: 524288 # MB (512 GB)",
        "size: 786432",
    )
    edit(
        repo,
        "flavors/m1.medium.dedicated.yaml",
        "  - 9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a\n",
        "  - 0a1b2c3d4e5f40718293a4b5c6d7e8f9\n",
    )
    delete(repo, FLAVOR, "c2.diskless")
    changed = run(FLAVORS, repo, target(conn), prune=True, execute=True)
    assert changed.report is not None and [o.as_dict() for o in changed.report.failed] == []
    kinds = {a.flavor: a.kind for a in changed.actions if a.writes or a.kind == "unmanaged"}
    assert kinds == {
        "m1.small": "update",
        "c2.large": "replace",
        "c2.large.vmx-mirror": "replace",  # same device type: its memory changed too
        "c2.large.novmx-stripe": "replace",
        "m1.medium.dedicated": "access",
        "c2.diskless": "delete",
        "operator-made": "unmanaged",
    }
    assert conn.compute.get_flavor("m1.small").description.endswith("two 480GB drives")
    large = conn.compute.get_flavor("c2.large")
    assert (large.id, large.ram) == ("c2.large", 786432)
    assert sorted(
        a["tenant_id"] for a in conn.compute.get_flavor_access("m1.medium.dedicated")
    ) == [
        "0a1b2c3d4e5f40718293a4b5c6d7e8f9",
        "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d",
    ]
    assert conn.compute.find_flavor("c2.diskless") is None
    assert conn.compute.get_flavor("operator-made").ram == 512

    final = run(FLAVORS, repo, target(conn), prune=True, execute=True)
    assert final.report is not None and final.report.writes == 0


class Killed(BaseException):
    """The process dies: nothing after it runs."""


class DiesAfter(SdkFlavors):
    """A real Nova's flavors, the process dying right after Nova answered the ``nth`` call
    of ``method`` to a path ending in ``ending``: between that step and the next."""

    def __init__(self, conn: Any, method: str, ending: str, nth: int) -> None:
        super().__init__(conn, refusal(build(), "nova"))
        self.method, self.ending, self.left = method, ending, nth

    def request(
        self, method: str, path: str, version: tuple[int, int], body: Any = None, params: Any = None
    ) -> Any:
        answer = super().request(method, path, version, body, params)
        if method == self.method and path.endswith(self.ending):
            self.left -= 1
            if self.left == 0:
                raise Killed(f"{method} {path}")
        return answer


def empty(conn: Any) -> None:
    for flavor in list(conn.compute.flavors(is_public=None)):
        conn.compute.delete_flavor(flavor.id)


DEDICATED = "m1.medium.dedicated"
PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"

# (the call the process dies after, its count, the flavor it leaves as it is, what the next
# plan does with it). Flavors are created in id order: c2.diskless first, g1.8xh100 fifth
# (the only one with extra specs stock Nova refuses, written in a second call), the private
# m1.medium.dedicated seventh.
CRASHES = {
    "after POST /flavors": ("POST", "/flavors", 1, "c2.diskless", "repair"),
    "between the two extra-spec calls": ("POST", "/os-extra_specs", 5, "g1.8xh100", "repair"),
    "after POST /flavors, private": ("POST", "/flavors", 7, DEDICATED, "repair"),
    "between two access grants": ("POST", "/action", 1, DEDICATED, "access"),
}


@pytest.mark.parametrize("crash", list(CRASHES))
def test_a_sync_killed_at_each_step_is_repaired_by_the_next(
    conn: Any, nova: str, tmp_path: Path, crash: str
) -> None:
    """What a crash after each call leaves in a real Nova (docs/how-to/sync.md, "What a
    crash at each step leaves"), and the next plan completing it."""
    method, ending, nth, flavor, then = CRASHES[crash]
    empty(conn)
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    repo = Repository(tmp_path / "deploy", RULES)
    with pytest.raises(Killed):
        run(FLAVORS, repo, DiesAfter(conn, method, ending, nth), prune=False, execute=True)
    left = conn.compute.get_flavor(flavor)
    specs = conn.compute.fetch_flavor_extra_specs(left).extra_specs
    if crash == "after POST /flavors":
        assert (left.is_public, specs) == (True, {})  # public, bare: Nova has no other way
        seen = openstack.connect(
            auth_type="admin_token",
            auth={"endpoint": nova, "token": f"member:{PROJECT}"},
            compute_endpoint_override=nova,
            load_yaml_config=False,
            load_envvars=False,
        )
        assert "c2.diskless" in {f.id for f in seen.compute.flavors()}
    elif crash == "between the two extra-spec calls":
        assert MARKER not in specs and "capabilities:boot_mode" not in specs
        assert specs["trait:CUSTOM_GPU_NVIDIA_H100"] == "required"
    elif crash == "after POST /flavors, private":
        assert (left.is_public, specs, conn.compute.get_flavor_access(flavor)) == (False, {}, [])
    else:
        assert specs[MARKER] == "true" and len(conn.compute.get_flavor_access(flavor)) == 1

    planned = run(FLAVORS, repo, target(conn), prune=False, execute=False)
    kinds = {a.flavor: a.kind for a in planned.actions}
    assert kinds[flavor] == then
    assert "conflict" not in kinds.values()
    repaired = run(FLAVORS, repo, target(conn), prune=False, execute=True)
    assert repaired.report is not None and [o.as_dict() for o in repaired.report.failed] == []
    specs = conn.compute.fetch_flavor_extra_specs(conn.compute.get_flavor(flavor)).extra_specs
    assert specs[MARKER] == "true"
    assert len(conn.compute.get_flavor_access(DEDICATED)) == 2
    again = run(FLAVORS, repo, target(conn), prune=False, execute=True)
    assert again.report is not None and again.report.writes == 0
    empty(conn)


def test_a_replace_killed_after_its_delete_leaves_the_id_free(conn: Any, tmp_path: Path) -> None:
    empty(conn)
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "deploy" / "hardware")
    repo = Repository(tmp_path / "deploy", RULES)
    assert run(FLAVORS, repo, target(conn), prune=False, execute=True).report is not None
    path = repo.hardware / "flavors" / "m1.small.yaml"
    path.write_text(path.read_text() + "is_public: false\nprojects:\n  - " + PROJECT + "\n")
    with pytest.raises(Killed):
        run(FLAVORS, repo, DiesAfter(conn, "DELETE", "/m1.small", 1), prune=False, execute=True)
    assert conn.compute.find_flavor("m1.small") is None
    planned = run(FLAVORS, repo, target(conn), prune=False, execute=False)
    assert {a.flavor: a.kind for a in planned.actions}["m1.small"] == "create"
    assert run(FLAVORS, repo, target(conn), prune=False, execute=True).report.writes == 1  # type: ignore[union-attr]
    assert not conn.compute.get_flavor("m1.small").is_public
    empty(conn)
