"""The boot proof: on a running small cloud (tests/support/small_cloud.py), every catalog flavor
boots on exactly the nodes Flavorsmith predicted.

    with running_cloud(agent_inspection=True, neutron=True) as cloud:
        report = prove(cloud, EXAMPLES)
        print(*report.lines(), sep="\\n")          # one line per flavor, then the summary
        assert report.ok, report.problems

The steps, each through Flavorsmith's own commands (``--cloud``, the small cloud's clouds.yaml)
and the real services:

1. enrol a representative lab of the example fleet (examples/nodes.yaml: every resource class,
   every provision state the matcher treats differently, maintenance included) in Ironic,
   inspect each node in-band with the example inspection document of its kind, classify them
   there (``classify --cloud --all --apply``), sync the flavors and deploy templates
   (``sync apply --cloud``) and wait until nova-compute has reported every node to Placement;
2. ``verify --cloud`` finds no drift; ``capacity --cloud`` and ``match --cloud`` name each
   flavor's available nodes;
3. per flavor (the narrowest first, each prediction read again after the previous flavor's
   servers), boot the predicted number of servers at once, then one more: each lands on a
   predicted node, the count booted is the count predicted, the next one fails with
   NoValidHost and ``explain FLAVOR --cloud`` says why (every node used); a flavor no node
   can take fails at once, and the private flavor is refused to another project as
   ``explain --project`` says;
4. no public flavor lands on a private flavor's nodes, and no node in maintenance or in any
   state but ``available`` gets a server;
5. a flavor that selects deploy templates: ``deploy plan NODE --flavor F --cloud`` before the
   boot, and the node's instance traits and deploy steps in Ironic after it;
6. the servers deleted and a trait rule changed in the catalog, ``classify --cloud`` again:
   the next boots follow the new prediction.

Then, in the same cloud and on the same lab, points 1 to 4 again on a generated catalog
(tests/support/generated_catalog.py, ``seed``): the example run's servers deleted, the
generated operator traits added to the nodes, ``classify --cloud --all --apply`` and ``sync
apply --cloud --prune`` with the generated catalog (the example flavors and deploy templates
leave Nova and Ironic), nova-compute's report awaited, then each generated flavor booted as
above. Points 5 and 6 are the example catalog's own (its deploy templates, its trait rule
change). Each problem names its point and catalog (``point 3 [generated]: ...``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.support import placement_api
from tests.support.generated_catalog import DEFAULT_SEED, GeneratedCatalog, GenNode, generate
from tests.support.generated_catalog import write_catalog as write_generated_catalog
from tests.support.ironic_api import inspect_many, with_own_macs
from tests.support.small_cloud import CLOUD_NAME, Cloud, Outcome, running_cloud

# The private flavor's projects (examples/hardware/flavors/m1.medium.dedicated.yaml, and the
# generated catalog's private flavor), and the small cloud's Keystone projects that stand for
# them: Keystone makes its own project ids, and Nova refuses flavor access for a project
# Keystone does not know, so the proof's copy of a catalog names the ids Keystone made
# (proof_catalog). "other" is on neither access list.
DEDICATED_PROJECT = "4b2f3e0c8d6a4f1b9c7e5a3d2b1f0e9d"
CATALOG_PROJECTS = {
    DEDICATED_PROJECT: "dedicated",
    "9d8c7b6a5f4e4d3c2b1a0f9e8d7c6b5a": "dedicated-2",
}
OTHER = "other"
# A flavor the proof adds to its copy of the catalog: m1.small without AVX-512, which every
# m1.small node of the lab has (its inspection documents' CPUs have it), so no node can take it.
NEVER = "proof.never"
NEVER_FLAVOR = """name: proof.never
resource_class: m1.small
description: m1.small without AVX-512, which every m1.small node has
traits:
  - trait: CPU_AVX512
    state: absent
"""
# Point 6: trait-rules/nics.yaml's ConnectX-5 rule then adds CUSTOM_NICX too, so the flavor
# that requires it matches more nodes.
CHANGED_FLAVOR = "m1.small.nicX"
# The example inspection document of each resource class; m1.small nodes without NVMe take
# the SMT-off document (the same box without its NVMe drives).
DOCUMENTS = {
    "m1.small": "r7615-m1-small",
    "m1.medium": "r7615-m1-medium",
    "c2.large": "dl360-c2-large",
    "c2.diskless": "dl360-c2-diskless",
    "g1.8xh100": "xe9680-g1-8xh100",
}
NO_NVME_DOCUMENT = "r7615-m1-small-smt-off"
NICX = ("0x14e4", "0x1750")  # Broadcom BCM57508: trait-rules/nics.yaml's CUSTOM_NICX
# How many nodes of each (provision state, maintenance) the lab takes per resource class.
AVAILABLE_PER_CLASS = {"m1.small": 8, "m1.medium": 8, "c2.large": 6}
AVAILABLE_OTHERWISE = 4
ACTIVE_PER_CLASS = 3
OTHER_STATES_PER_CLASS = 2
WAIT = 180.0
# How many times a predicted boot that failed to build (not NoValidHost) is tried again.
BUILD_RETRIES = 2


@dataclass(frozen=True)
class LabNode:
    """A node of examples/nodes.yaml as the lab enrols it."""

    name: str
    resource_class: str
    provision_state: str  # enroll, manageable, available or active
    maintenance: bool
    traits: tuple[str, ...]  # the operator's (no trait rule owns them)
    document: str | None  # the example inspection document; None: not inspected (enroll)
    without_avx512: bool = False  # the document with AVX-512 taken out of the CPU flags
    nicx: bool = False  # the document's ConnectX-5 cards as the BCM57508 (NICX) instead


def choose_lab(fleet: Sequence[Mapping[str, Any]]) -> list[LabNode]:
    """A representative lab of the fleet: per resource class and (provision state,
    maintenance), a few nodes, chosen round-robin over their trait sets so each kind of node
    is in it; the enroll nodes are not inspected."""
    groups: dict[tuple[str, str, bool], list[Mapping[str, Any]]] = defaultdict(list)
    for node in fleet:
        state = str(node.get("provision_state") or "available")
        groups[(str(node["resource_class"]), state, bool(node.get("maintenance")))].append(node)
    lab: list[LabNode] = []
    for (resource_class, state, maintenance), members in sorted(groups.items()):
        if state == "available" and not maintenance:
            quota = AVAILABLE_PER_CLASS.get(resource_class, AVAILABLE_OTHERWISE)
        elif state == "active" and not maintenance:
            quota = ACTIVE_PER_CLASS
        else:
            quota = OTHER_STATES_PER_CLASS
        for node in _round_robin(members)[:quota]:
            traits = frozenset(node.get("traits") or ())
            document = DOCUMENTS.get(resource_class) if state != "enroll" else None
            if resource_class == "m1.small" and "CUSTOM_NVME" not in traits:
                document = NO_NVME_DOCUMENT
            lab.append(
                LabNode(
                    name=str(node["name"]),
                    resource_class=resource_class,
                    provision_state=state,
                    maintenance=maintenance,
                    traits=tuple(sorted(t for t in traits if t.startswith("CUSTOM_BM_CONFIG_"))),
                    document=document,
                    without_avx512=resource_class == "m1.medium"
                    and "CUSTOM_CPU_AVX512" not in traits,
                    nicx="CUSTOM_NICX" in traits and "CUSTOM_NIC_MELLANOX_CX5" not in traits,
                )
            )
    return lab


def lab_of(examples: Path) -> list[LabNode]:
    """The lab of the fleet in ``examples/nodes.yaml``."""
    return choose_lab(_load_yaml(examples / "nodes.yaml")["nodes"])


def _round_robin(members: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    by_traits: dict[tuple[str, ...], list[Mapping[str, Any]]] = defaultdict(list)
    for node in members:
        by_traits[tuple(sorted(node.get("traits") or ()))].append(node)
    queues = [by_traits[key] for key in sorted(by_traits)]
    out: list[Mapping[str, Any]] = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop(0))
    return out


def inspection_document(examples: Path, node: LabNode, number: int) -> dict[str, Any]:
    """The node's inspection data: its example document, with MAC addresses of its own and,
    for a node the fleet has without AVX-512, those CPU flags taken out."""
    document = json.loads((examples / "inspection" / f"{node.document}.json").read_text())
    if node.without_avx512:
        cpu = document["inventory"]["cpu"]
        cpu["flags"] = [f for f in cpu.get("flags") or [] if not f.startswith("avx512")]
    if node.nicx:
        for interface in document["inventory"].get("interfaces") or []:
            if interface.get("vendor") == "0x15b3":
                interface.update(vendor=NICX[0], product=NICX[1])
    return with_own_macs(document, number)


# --- Flavorsmith's commands -------------------------------------------------------------------


@dataclass
class Flavorsmith:
    """Flavorsmith's command line on the cloud's clouds.yaml, a catalog and a database of its
    own."""

    repo: Path
    clouds_yaml: Path
    database: str
    seconds: dict[str, float] = field(default_factory=dict)

    def run(self, *args: str, check: bool = True) -> tuple[int, str]:
        command = [str(Path(sys.executable).parent / "flavorsmith"), *args]
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        env.update(
            OS_CLIENT_CONFIG_FILE=str(self.clouds_yaml),
            FLAVORSMITH_DATABASE_URL=self.database,
            FLAVORSMITH_REPO=str(self.repo),
            COLUMNS="200",
        )
        started = time.monotonic()
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, env=env, cwd=self.repo
        )
        self.seconds[args[0]] = self.seconds.get(args[0], 0.0) + time.monotonic() - started
        if check and result.returncode != 0:
            raise ProofError(
                f"flavorsmith {' '.join(args)} exited {result.returncode}:\n"
                f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return result.returncode, result.stdout

    def json(self, *args: str, check: bool = True) -> Any:
        _code, out = self.run(*args, "-f", "json", check=check)
        return json.loads(out)


class ProofError(RuntimeError):
    """A step of the proof could not run (as opposed to a point that does not hold)."""


# --- the proof --------------------------------------------------------------------------------


# The catalogs a report covers, as its problems and flavor results name them.
EXAMPLE_CATALOG = "examples"
GENERATED_CATALOG = "generated"
# Provision states a node rests in (not cleaning, deploying, deleting, ...).
STABLE_STATES = frozenset({"enroll", "manageable", "available", "active"})


@dataclass
class FlavorResult:
    flavor: str
    predicted: int
    booted: int
    on_predicted: bool
    reason_after: str
    servers: dict[str, str] = field(default_factory=dict)  # server -> node name
    seconds: float = 0.0
    catalog: str = EXAMPLE_CATALOG

    def line(self) -> str:
        return (
            f"{self.flavor} predicted={self.predicted} booted={self.booted}"
            f" on-predicted-nodes={'yes' if self.on_predicted else 'no'}"
            f" reason-after={self.reason_after}"
        )


@dataclass
class Report:
    flavors: list[FlavorResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    failed_points: set[int] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    generated: GeneratedCatalog | None = None  # the generated catalog proven, if one was

    @property
    def ok(self) -> bool:
        return not self.problems and bool(self.flavors)

    def of(self, catalog: str) -> list[FlavorResult]:
        """The flavor results of one catalog."""
        return [result for result in self.flavors if result.catalog == catalog]

    def problems_of(self, point: int, catalog: str) -> list[str]:
        """The problems of one point on one catalog."""
        return [p for p in self.problems if p.startswith(f"point {point} [{catalog}]:")]

    @property
    def servers(self) -> int:
        return sum(result.booted for result in self.flavors)

    def lines(self) -> list[str]:
        out = [result.line() for result in self.flavors]
        verdict = "all on predicted nodes" if self.ok else f"{len(self.problems)} problems"
        out.append(f"boot proof: {len(self.flavors)} flavors, {self.servers} servers, {verdict}")
        return out


@contextmanager
def proof_catalog(examples: Path, cloud: Cloud | None = None) -> Iterator[Path]:
    """A copy of the example catalog (the proof changes a trait rule in it) with the flavor
    no node can take; with ``cloud``, each flavor's project ids of CATALOG_PROJECTS replaced
    by the ids the cloud's Keystone made for those projects."""
    with tempfile.TemporaryDirectory(prefix="flavorsmith-proof-") as tmp:
        repo = Path(tmp) / "catalog"
        shutil.copytree(examples, repo)
        (repo / "hardware" / "flavors" / f"{NEVER}.yaml").write_text(NEVER_FLAVOR)
        if cloud is not None:
            keystone_projects(repo, cloud)
        yield repo


def keystone_projects(repo: Path, cloud: Cloud) -> None:
    """Each flavor's project ids of CATALOG_PROJECTS in ``repo`` replaced by the ids the
    cloud's Keystone made for those projects."""
    for path in (repo / "hardware" / "flavors").glob("*.yaml"):
        text = path.read_text()
        for catalog_id, name in CATALOG_PROJECTS.items():
            text = text.replace(catalog_id, cloud.projects[name])
        path.write_text(text)


def enrol_lab(cloud: Cloud, examples: Path, lab: Sequence[LabNode]) -> dict[str, str]:
    """The lab in Ironic (fake-hardware), with the operator's traits; each node but the
    enroll ones inspected in-band with its document. Returns name -> uuid. The nodes stay
    ``manageable`` (``enroll``) until :func:`settle_lab`."""
    conn = cloud.connection()
    made = {}
    for node in lab:
        made[node.name] = conn.baremetal.create_node(
            name=node.name,
            driver="fake-hardware",
            resource_class=node.resource_class if node.document is None else None,
            properties={"cpu_arch": "x86_64"},
        )
        if node.traits:
            conn.baremetal.set_node_traits(made[node.name], list(node.traits))
    inspected = [(number, node) for number, node in enumerate(lab) if node.document is not None]
    done = inspect_many(
        conn,
        [(made[n.name], inspection_document(examples, n, i)) for i, n in inspected],
        timeout=WAIT,
    )
    for (_number, node), found in zip(inspected, done, strict=True):
        if found.provision_state != "manageable":
            raise ProofError(
                f"{node.name}: inspection ended {found.provision_state}: {found.last_error}"
                f"\n{cloud.log_tail('ironic')}"
            )
    return {name: str(node.id) for name, node in made.items()}


def settle_lab(cloud: Cloud, lab: Sequence[LabNode], uuids: Mapping[str, str]) -> None:
    """Each classified node to its state in the fleet: provided and powered on (available
    and active nodes), deployed by Ironic alone (active ones: no Nova instance), put in
    maintenance; manageable and enroll nodes stay as they are."""
    conn = cloud.connection()
    baremetal = conn.baremetal
    provide: list[Any] = [
        uuids[n.name] for n in lab if n.provision_state in ("available", "active")
    ]
    for node in provide:
        baremetal.set_node_provision_state(node, "provide")
    baremetal.wait_for_nodes_provision_state(provide, "available", timeout=WAIT)
    for node in provide:
        baremetal.set_node_power_state(node, "power on")
    for node in provide:
        baremetal.wait_for_node_power_state(node, "power on", timeout=WAIT)
    active: list[Any] = [uuids[n.name] for n in lab if n.provision_state == "active"]
    for node in active:
        baremetal.patch_node(
            node, [{"op": "add", "path": "/instance_info/image_source", "value": cloud.image_id}]
        )
        baremetal.set_node_provision_state(node, "active")
    if active:
        baremetal.wait_for_nodes_provision_state(active, "active", timeout=WAIT)
    for member in lab:
        if member.maintenance:
            baremetal.set_node_maintenance(uuids[member.name], reason="the fleet's maintenance")


def ironic_nodes(cloud: Cloud) -> dict[str, dict[str, Any]]:
    """Ironic's nodes by name, with the fields Nova's ironic driver reads."""
    fields = "uuid,name,resource_class,traits,provision_state,power_state,maintenance"
    code, body = cloud.ironic("GET", f"/nodes?fields={fields},instance_uuid,instance_info")
    if code != 200:
        raise ProofError(f"GET /v1/nodes: {code} {body}")
    return {str(node["name"]): node for node in body["nodes"]}


def wait_until_settled(cloud: Cloud, *, timeout: float = WAIT) -> None:
    """Wait until no node is between provision states (a deleted server's node is torn down
    and cleaned before it is ``available`` again, and locked meanwhile)."""
    deadline = time.monotonic() + timeout
    while True:
        moving = {
            name: str(node["provision_state"])
            for name, node in ironic_nodes(cloud).items()
            if node["provision_state"] not in STABLE_STATES
        }
        if not moving:
            return
        if time.monotonic() > deadline:
            raise ProofError(
                f"{len(moving)} nodes still moving after {timeout:.0f}s: "
                f"{dict(sorted(moving.items())[:10])}\n{cloud.log_tail('ironic')}"
            )
        time.sleep(1)


def add_node_traits(
    cloud: Cloud, uuids: Mapping[str, str], traits: Mapping[str, Sequence[str]]
) -> None:
    """Add these traits to the nodes (by name), keeping those they have: the operator's."""
    for name, names in sorted(traits.items()):
        for trait in names:
            code, body = cloud.ironic("PUT", f"/nodes/{uuids[name]}/traits/{trait}")
            if code != 204:
                raise ProofError(f"PUT /v1/nodes/{name}/traits/{trait}: {code} {body}")


def wait_for_report(cloud: Cloud, *, timeout: float = WAIT) -> float:
    """Wait until nova-compute has reported every Ironic node with a resource class to
    Placement as its driver does: the node's traits on its provider (and no custom trait it
    lost), the unit reserved exactly when the node is unavailable or in use; and the host is
    mapped to the cell.
    Returns the seconds waited."""
    started = time.monotonic()
    why: dict[str, str] = {}

    def done() -> bool:
        why.clear()
        for name, node in ironic_nodes(cloud).items():
            if not node.get("resource_class"):
                continue
            problem = _report_problem(cloud, node)
            if problem:
                why[name] = problem
        if not why and not cloud._host_mapped():
            why["the compute host"] = "not mapped to the cell yet"
        return not why

    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            lines = "\n".join(f"{n}: {w}" for n, w in sorted(why.items())[:20])
            raise ProofError(
                f"nova-compute did not report {len(why)} nodes within {timeout:.0f}s:\n{lines}"
                f"\n{cloud.log_tail('nova-compute')}"
            )
        time.sleep(1)
    return time.monotonic() - started


def _report_problem(cloud: Cloud, node: Mapping[str, Any]) -> str | None:
    uuid = node["uuid"]
    rc = placement_api.normalize_rc_name(str(node["resource_class"]))
    code, inventories = cloud.placement_call(f"/resource_providers/{uuid}/inventories")
    if code != 200:
        return "no resource provider yet"
    unit = (inventories.get("inventories") or {}).get(rc)
    if unit is None:
        return f"no {rc} inventory yet"
    if bool(unit["reserved"]) != placement_api.reserved(
        dict(node, instance_uuid=node.get("instance_uuid"))
    ):
        return f"{rc} reserved={unit['reserved']}, the driver's rule says otherwise"
    code, traits = cloud.placement_call(f"/resource_providers/{uuid}/traits")
    on_provider = set((traits or {}).get("traits") or [])
    missing = set(node.get("traits") or []) - on_provider
    if missing:
        return f"traits {sorted(missing)} not on the provider yet"
    # A custom trait the node lost (a classify that removed it) leaves the provider at the
    # next report; Nova adds no custom trait of its own.
    stale = {t for t in on_provider - set(node.get("traits") or []) if t.startswith("CUSTOM_")}
    return f"traits {sorted(stale)} still on the provider" if stale else None


# --- booting ------------------------------------------------------------------------------------


def unlimited_quota(cloud: Cloud, *projects: str) -> None:
    """No instance, core or RAM quota for these projects: Nova's defaults (10 instances, 20
    cores, 50 GiB) refuse a single c2.large (64 cores) before it is scheduled."""
    body = {"quota_set": {"instances": -1, "cores": -1, "ram": -1}}
    for project in projects:
        code, answer = cloud.nova("PUT", f"/os-quota-sets/{project}", body)
        if code != 200:
            raise ProofError(f"PUT /os-quota-sets/{project}: {code} {answer}")


def nova_flavors(cloud: Cloud) -> dict[str, str]:
    """Nova's flavors (public and private): name -> id."""
    code, body = cloud.nova("GET", "/flavors?is_public=None")
    if code != 200:
        raise ProofError(f"GET /flavors: {code} {body}")
    return {str(f["name"]): str(f["id"]) for f in body["flavors"]}


def boot_all(cloud: Cloud, flavor_id: str, names: Sequence[str], token: str) -> dict[str, Outcome]:
    """Boot a server per name at once, then wait for each to be ACTIVE or ERROR."""
    servers = [cloud.boot(name, flavor_id, token=token) for name in names]
    return cloud.wait_for_servers(servers) if servers else {}


def delete_servers(cloud: Cloud, servers: Iterable[str]) -> None:
    """Delete these servers (Nova asks Neutron for their ports, then Ironic tears the node
    down and cleans it) and wait until Nova lists none of them."""
    pending = set(servers)
    for server in pending:
        code, body = cloud.nova("DELETE", f"/servers/{server}")
        if code not in (204, 404):
            raise ProofError(f"DELETE /servers/{server}: {code} {body}")
    deadline = time.monotonic() + WAIT
    while pending:
        code, body = cloud.nova("GET", "/servers?all_tenants=1&deleted=false&limit=1000")
        if code != 200:
            raise ProofError(f"GET /servers: {code} {body}")
        pending &= {str(s["id"]) for s in body["servers"]}
        if pending and time.monotonic() > deadline:
            raise ProofError(
                f"{len(pending)} servers not deleted within {WAIT:.0f}s\n"
                + cloud.log_tail("nova-compute", "ironic")
            )
        time.sleep(1)


def deploy_record(cloud: Cloud, node_uuid: str) -> list[tuple[str, str]]:
    """The deploy steps Ironic's conductor ran on the node, in order, as its log records
    them ("Executing {step} on node ...")."""
    if cloud.ironic_log is None or not cloud.ironic_log.exists():
        raise ProofError("Ironic's log was not found: the deploy record cannot be read")
    steps = []
    for line in cloud.ironic_log.read_text(errors="replace").splitlines():
        if "ironic.conductor.deployments" in line and "Executing {" in line and node_uuid in line:
            record = line.split("Executing ", 1)[1].split(" on node ", 1)[0]
            interface = record.split("'interface': '", 1)[1].split("'", 1)[0]
            step = record.split("'step': '", 1)[1].split("'", 1)[0]
            steps.append((interface, step))
    return steps


def _is_no_valid_host(outcome: Outcome) -> bool:
    return outcome.status == "ERROR" and "No valid host" in (outcome.fault or "")


@dataclass
class Proof:
    """One run of the proof on a running cloud; :meth:`run` returns the :class:`Report`."""

    cloud: Cloud
    examples: Path
    say: Any = print  # progress, one line at a time
    # The generated catalog's seed (tests/support/generated_catalog.py): points 1 to 4 on it
    # after the example catalog's; None: the example catalog alone.
    seed: int | None = None
    report: Report = field(default_factory=Report)
    point: int = 0  # the point running
    catalog: str = EXAMPLE_CATALOG  # the catalog being proven
    # Set as the proof runs: Flavorsmith on the proof's copy of the catalog, the lab's
    # uuids by name, Ironic's nodes before the boots, the predictions, the servers booted.
    fs: Flavorsmith = field(init=False)
    repo: Path = field(init=False)
    uuids: dict[str, str] = field(init=False)
    before: dict[str, dict[str, Any]] = field(init=False)
    capacity: dict[str, dict[str, Any]] = field(init=False)
    matching: dict[str, set[str]] = field(init=False)
    servers: list[str] = field(init=False)

    def run(self) -> Report:
        lab = lab_of(self.examples)
        with self.opened() as tmp:
            self.prepare(lab)
            self._point_2()
            self._points_3_to_5()
            self._point_6()
            if self.seed is not None:
                self._generated(lab, tmp / f"generated-{self.seed}", self.seed)
            seconds = self.fs.seconds
            self.report.seconds.update({f"flavorsmith {k}": v for k, v in seconds.items()})
        return self.report

    @contextmanager
    def opened(self) -> Iterator[Path]:
        """The proof's copy of the catalog (``self.repo``) and Flavorsmith on it with a
        database of its own (``self.fs``), for the block; yields a folder for its files. The
        proof, the demo and the scheduler benchmark start the same way: this, then
        :meth:`prepare` on a lab."""
        with proof_catalog(self.examples, self.cloud) as repo, tempfile.TemporaryDirectory() as tmp:
            self.fs = Flavorsmith(repo, self.cloud.clouds_yaml, f"sqlite:///{tmp}/flavorsmith.db")
            self.repo = repo
            yield Path(tmp)

    # -- the commands and the bookkeeping

    def _timed(self, what: str, started: float) -> None:
        if self.catalog != EXAMPLE_CATALOG:
            what = f"{self.catalog} catalog: {what}"
        self.report.seconds[what] = time.monotonic() - started
        self.say(f"{what}: {self.report.seconds[what]:.1f}s")

    def _problem(self, text: str, point: int | None = None) -> None:
        """A point that does not hold (``point``: its number, else the one running)."""
        number = point or self.point
        self.report.problems.append(f"point {number} [{self.catalog}]: {text}")
        self.report.failed_points.add(number)
        self.say(f"PROBLEM (point {number}, {self.catalog} catalog): {text}")

    def _cloud_args(self) -> tuple[str, str]:
        return ("--cloud", CLOUD_NAME)

    def _capacity(self) -> dict[str, dict[str, Any]]:
        document = self.fs.json("capacity", *self._cloud_args())
        return {str(f["flavor"]): f for f in document["flavors"]}

    def _all_matching(self) -> dict[str, set[str]]:
        """Each flavor's matching nodes (``match --cloud``: by resource class and traits,
        whatever their state)."""
        rows = self.fs.json("match", *self._cloud_args())
        return {str(row["flavor"]): {str(n) for n in row["nodes"]} for row in rows}

    def _explain(self, flavor: str, *more: str) -> dict[str, Any]:
        out: dict[str, Any] = self.fs.json("explain", flavor, *self._cloud_args(), *more)
        return out

    # -- the points

    def prepare(self, lab: Sequence[LabNode]) -> None:
        """Point 1 (``self.fs`` and ``self.repo`` set): the lab enrolled, inspected,
        classified, synced and reported by nova-compute."""
        self.point = 1
        started = time.monotonic()
        self.uuids = enrol_lab(self.cloud, self.examples, lab)
        self._timed(f"enrol and inspect {len(lab)} nodes", started)
        started = time.monotonic()
        self.fs.run("classify", *self._cloud_args(), "--all", "--apply", "--yes")
        self._timed("classify --cloud --all --apply", started)
        started = time.monotonic()
        settle_lab(self.cloud, lab, self.uuids)
        self._timed("provide, power on, deploy, maintenance", started)
        nodes = ironic_nodes(self.cloud)
        for node in lab:
            found = nodes[node.name]
            if node.document is not None and found["resource_class"] != node.resource_class:
                self._problem(
                    f"{node.name}: classified as {found['resource_class']},"
                    f" the fleet has {node.resource_class}"
                )
            if found["provision_state"] != node.provision_state:
                self._problem(
                    f"{node.name}: {found['provision_state']}, not {node.provision_state}"
                )
        started = time.monotonic()
        self.fs.run("sync", "apply", *self._cloud_args(), "--yes")
        self.fs.run("sync", "apply", "--only", "deploy-templates", *self._cloud_args(), "--yes")
        unlimited_quota(self.cloud, self.cloud.projects["admin"], self.cloud.projects["dedicated"])
        self._timed("sync apply (flavors, deploy templates)", started)
        started = time.monotonic()
        wait_for_report(self.cloud)
        self._timed("nova-compute reported every node", started)
        self.before = ironic_nodes(self.cloud)

    def _point_2(self) -> None:
        self.point = 2
        started = time.monotonic()
        code, out = self.fs.run("verify", *self._cloud_args(), check=False)
        if code != 0:
            self._problem(f"verify --cloud reports drift:\n{out}")
        self.capacity = self._capacity()
        self.matching = self._all_matching()
        self._timed("verify, capacity, match --cloud", started)

    def _points_3_to_5(self) -> None:
        """Points 3 and 4 on the catalog being proven; point 5 on the example catalog."""
        self.point = 3
        catalog_flavors = nova_flavors(self.cloud)
        private = {}
        for path in (self.repo / "hardware" / "flavors").glob("*.yaml"):
            document = _load_yaml(path)
            private[str(document["name"])] = document.get("is_public") is False
        order = sorted(
            self.capacity,
            key=lambda f: (self.capacity[f]["available_nodes"], len(self.matching[f]), f),
        )
        self.servers = []
        landed_public: set[str] = set()
        for flavor in order:
            if flavor not in catalog_flavors:
                self._problem(f"{flavor}: not in Nova after sync apply")
                continue
            token = (
                self.cloud.token_for("member", "dedicated")
                if private[flavor]
                else self.cloud.admin_token()
            )
            result = self._boot_until_no_valid_host(flavor, catalog_flavors[flavor], token)
            if not private[flavor]:
                landed_public |= set(result.servers.values())
            if self.catalog == EXAMPLE_CATALOG:
                self._deploy_record(flavor, result)
        for flavor, is_private in private.items():
            if is_private:
                leaked = landed_public & self.matching.get(flavor, set())
                if leaked:
                    self._problem(f"public flavors landed on {flavor}'s nodes: {sorted(leaked)}", 4)
                self._refused_to_another_project(flavor, catalog_flavors[flavor])

    def _boot_until_no_valid_host(self, flavor: str, flavor_id: str, token: str) -> FlavorResult:
        started = time.monotonic()
        predicted = int(self._capacity()[flavor]["available_nodes"])
        matching = self.matching[flavor]
        names = [f"{flavor}-{index}" for index in range(predicted)]
        outcomes = self._again_if_build_failed(
            flavor, flavor_id, token, boot_all(self.cloud, flavor_id, names, token)
        )
        extra = boot_all(self.cloud, flavor_id, [f"{flavor}-next"], token)
        outcomes.update(extra)
        self.servers += list(outcomes)
        uuid_to_name = {uuid: name for name, uuid in self.uuids.items()}
        landed = {
            server: uuid_to_name.get(o.node or "", str(o.node))
            for server, o in outcomes.items()
            if o.status == "ACTIVE"
        }
        explained = self._explain(flavor)
        reason = explained["summary"]
        result = FlavorResult(
            flavor=flavor,
            predicted=predicted,
            booted=len(landed),
            on_predicted=set(landed.values()) <= matching,
            reason_after=_reason_after(explained),
            servers=landed,
            catalog=self.catalog,
        )
        if not result.on_predicted:
            self._problem(
                f"{flavor}: landed off the predicted nodes: "
                f"{sorted(set(landed.values()) - matching)}"
            )
        first = [o for server, o in outcomes.items() if server not in extra]
        (last,) = extra.values()
        booted_first = sum(o.status == "ACTIVE" for o in first)
        if booted_first != predicted or not _is_no_valid_host(last):
            failed = {s: o.fault for s, o in outcomes.items() if o.status != "ACTIVE"}
            self._problem(
                f"{flavor}: predicted {predicted}; {booted_first} of those boots ACTIVE, the"
                f" next one {last.status} (NoValidHost expected); failed: {failed}\n"
                + self.cloud.log_tail("nova-conductor", "nova-compute", "ironic")
            )
        if explained["candidates"] != 0:
            self._problem(
                f"{flavor}: after NoValidHost, explain still counts"
                f" {explained['candidates']} candidates: {reason}"
            )
        for server, node in landed.items():
            self._check_allocation(flavor, server, node)
            was = self.before.get(node, {})
            if was.get("maintenance") or was.get("provision_state") != "available":
                self._problem(
                    f"{flavor}: server {server} landed on {node}, which was"
                    f" {was.get('provision_state')} maintenance={was.get('maintenance')}",
                    4,
                )
        result.seconds = time.monotonic() - started
        self.report.flavors.append(result)
        self.say(result.line() + f"  ({result.seconds:.0f}s)")
        return result

    def _again_if_build_failed(
        self, flavor: str, flavor_id: str, token: str, outcomes: dict[str, Outcome]
    ) -> dict[str, Outcome]:
        """A predicted boot that failed to build (ERROR, but not NoValidHost: the scheduler
        chose a node and the deploy failed there, as on a busy machine it rarely does) is
        deleted and booted again once its node is free, at most BUILD_RETRIES times, each time
        said in the report's notes with the fault. A boot that found no valid host is never
        tried again: that is a disagreement with the prediction, and the proof reports it."""
        for attempt in range(1, BUILD_RETRIES + 1):
            failed = {
                server: outcome
                for server, outcome in outcomes.items()
                if outcome.status != "ACTIVE" and not _is_no_valid_host(outcome)
            }
            if not failed:
                break
            faults = sorted({str(outcome.fault) for outcome in failed.values()})
            self.report.notes.append(
                f"{flavor}: {len(failed)} boot(s) failed to build (not NoValidHost) and were"
                f" tried again (attempt {attempt}): {'; '.join(faults)}"
            )
            self.say(self.report.notes[-1])
            delete_servers(self.cloud, failed)
            for server in failed:
                del outcomes[server]
            self._wait_until_free(flavor)
            again = [f"{flavor}-again{attempt}-{index}" for index in range(len(failed))]
            outcomes.update(boot_all(self.cloud, flavor_id, again, token))
        return outcomes

    def _wait_until_free(self, flavor: str) -> None:
        """Until each of the flavor's nodes that was available and holds no server is
        available again in Ironic (a failed deploy is torn down and cleaned first) and
        nova-compute has reported it so."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            now = ironic_nodes(self.cloud)
            busy = [
                name
                for name in self.matching[flavor]
                if self.before.get(name, {}).get("provision_state") == "available"
                and not self.before.get(name, {}).get("maintenance")
                and now.get(name, {}).get("instance_uuid") is None
                and now.get(name, {}).get("provision_state") != "available"
            ]
            if not busy:
                break
            time.sleep(1)
        wait_for_report(self.cloud)

    def _check_allocation(self, flavor: str, server: str, node: str) -> None:
        """The server's allocation in Placement: one unit of the node's resource class on the
        node's provider, nothing else (Nova's ironic flavors ask for no VCPU, RAM or disk)."""
        was = self.before[node]
        rc = placement_api.normalize_rc_name(str(was["resource_class"]))
        code, body = self.cloud.placement_call(f"/allocations/{server}")
        held = {p: a["resources"] for p, a in (body or {}).get("allocations", {}).items()}
        if code != 200 or held != {was["uuid"]: {rc: 1}}:
            self._problem(f"{flavor}: server {server} on {node} holds {code} {held} in Placement")

    def _deploy_record(self, flavor: str, result: FlavorResult) -> None:
        """Point 5: for a flavor whose required traits name deploy templates, the node's
        instance traits are the flavor's and Ironic ran the steps ``deploy plan`` ordered."""
        templates = {p.stem for p in (self.repo / "hardware" / "deploy-templates").glob("*.yaml")}
        nodes = ironic_nodes(self.cloud)
        for node in sorted(set(result.servers.values())):
            traits = sorted((nodes[node].get("instance_info") or {}).get("traits") or [])
            if not set(traits) & templates:
                return
            plan = self.fs.json("deploy", "plan", node, *self._cloud_args())
            planned = [(s["interface"], s["step"]) for s in plan["steps"]]
            ran = deploy_record(self.cloud, nodes[node]["uuid"])
            if planned != ran or plan["errors"]:
                self._problem(
                    f"{flavor} on {node}: deploy plan {planned} {plan['errors']}, Ironic ran {ran}",
                    5,
                )
            self.report.notes.append(
                f"{flavor} on {node}: instance traits {', '.join(traits)}; Ironic ran"
                f" {', '.join('.'.join(s) for s in ran)} as deploy plan ordered"
                + (
                    f"; skipped as planned: {len(plan['skipped'])} template steps"
                    if plan["skipped"]
                    else ""
                )
            )

    def _refused_to_another_project(self, flavor: str, flavor_id: str) -> None:
        body = {
            "server": {
                "name": f"{flavor}-other-project",
                "flavorRef": flavor_id,
                "imageRef": self.cloud.image_id,
                "networks": "none",
            }
        }
        other = self.cloud.projects[OTHER]
        token = self.cloud.token_for("member", OTHER)
        code, answer = self.cloud.nova("POST", "/servers", body, token=token)
        explained = self._explain(flavor, "--project", other)
        access = [r for r in explained["reasons"] if r.get("layer") == "access" and r["blocking"]]
        if code == 202 or not access:
            self._problem(
                f"{flavor} for project {other}: Nova answered {code} {answer};"
                f" explain: {explained['reasons']}"
            )
        self.report.notes.append(
            f"{flavor} for another project: Nova refuses it ({code}: "
            f"{_message(answer)}); explain: {access[0]['detail'] if access else 'no reason'}"
        )

    def _point_6(self) -> None:
        self.point = 6
        started = time.monotonic()
        delete_servers(self.cloud, self.servers)
        wait_for_report(self.cloud)
        self._timed(f"delete {len(self.servers)} servers, nodes reported free", started)
        rule = self.repo / "hardware" / "trait-rules" / "nics.yaml"
        text = rule.read_text()
        changed = text.replace(
            '      interface: {vendor: "0x15b3", product: "0x1017"}\n'
            "    add: [CUSTOM_NIC_MELLANOX_CX5]",
            '      interface: {vendor: "0x15b3", product: "0x1017"}\n'
            "    add: [CUSTOM_NIC_MELLANOX_CX5, CUSTOM_NICX]",
        )
        if changed == text:
            raise ProofError(f"{rule}: the ConnectX-5 rule is not where the proof changes it")
        rule.write_text(changed)
        before = self.matching[CHANGED_FLAVOR]
        started = time.monotonic()
        self.fs.run("classify", *self._cloud_args(), "--all", "--apply", "--yes")
        wait_for_report(self.cloud)
        self._timed("classify again after the trait rule change, reported", started)
        self.before = ironic_nodes(self.cloud)
        self.matching = self._all_matching()
        after = self.matching[CHANGED_FLAVOR]
        if not before < after:
            self._problem(
                f"{CHANGED_FLAVOR}: the changed rule did not widen its nodes"
                f" ({len(before)} -> {len(after)})"
            )
        self.servers = []
        result = self._boot_until_no_valid_host(
            CHANGED_FLAVOR, nova_flavors(self.cloud)[CHANGED_FLAVOR], self.cloud.admin_token()
        )
        result.flavor = f"{CHANGED_FLAVOR}/after-rule-change"
        new_nodes = set(result.servers.values()) - before
        if not new_nodes:
            self._problem(f"{CHANGED_FLAVOR}: after the rule change no boot used a new node")
        self.report.notes.append(
            f"trait rule change (ConnectX-5 counts as NICX): {CHANGED_FLAVOR} matched"
            f" {len(before)} nodes, then {len(after)}; {len(new_nodes)} servers on newly"
            " matching nodes"
        )

    # -- the generated catalog

    def _generated(self, lab: Sequence[LabNode], repo: Path, seed: int) -> None:
        """Points 1 to 4 on the generated catalog of ``seed``, on the same lab: the example
        run's servers deleted, the generated operator traits added to the nodes, the catalog
        switched, classified and synced with --prune, nova-compute's report awaited."""
        self.catalog = GENERATED_CATALOG
        self.point = 1
        started = time.monotonic()
        delete_servers(self.cloud, self.servers)
        self.servers = []
        wait_until_settled(self.cloud)
        self._timed("the example run's servers deleted, nodes settled", started)
        nodes = [
            GenNode(
                n.name, n.resource_class, n.provision_state == "available" and not n.maintenance
            )
            for n in lab
        ]
        generated = generate(nodes, seed)
        self.report.generated = generated
        write_generated_catalog(self.examples, generated, repo)
        keystone_projects(repo, self.cloud)
        self.fs.repo = self.repo = repo
        code, out = self.fs.run("validate", check=False)
        if code != 0:
            self._problem(f"the generated catalog (seed {seed}) does not validate:\n{out}")
        started = time.monotonic()
        add_node_traits(self.cloud, self.uuids, generated.node_traits)
        self.fs.run("classify", *self._cloud_args(), "--all", "--apply", "--yes")
        self._timed("operator traits added, classify --cloud --all --apply", started)
        nodes_now = ironic_nodes(self.cloud)
        for name, traits in sorted(generated.node_traits.items()):
            lost = set(traits) - set(nodes_now[name].get("traits") or [])
            if lost:
                self._problem(f"{name}: classify removed the operator's traits {sorted(lost)}")
        started = time.monotonic()
        # The generated flavors replace every example one: --allow-empty, as the sync
        # refuses a prune that deletes all its managed flavors (or deploy templates).
        prune = ("--prune", "--allow-empty", "--yes")
        self.fs.run("sync", "apply", *self._cloud_args(), *prune)
        self.fs.run("sync", "apply", "--only", "deploy-templates", *self._cloud_args(), *prune)
        self._timed("sync apply --prune (flavors, deploy templates)", started)
        examples = {p.stem for p in (self.examples / "hardware" / "flavors").glob("*.yaml")}
        left = sorted((examples | {NEVER}) & set(nova_flavors(self.cloud)))
        code, body = self.cloud.ironic("GET", "/deploy_templates")
        templates = sorted(str(t["name"]) for t in (body or {}).get("deploy_templates", []))
        if left or code != 200 or templates:
            self._problem(
                f"after sync apply --prune, Nova still has {left}; Ironic's deploy templates:"
                f" {code} {templates}"
            )
        started = time.monotonic()
        wait_for_report(self.cloud)
        self._timed("nova-compute reported every node", started)
        self.before = ironic_nodes(self.cloud)
        self._point_2()
        self._generated_cases(generated)
        self._points_3_to_5()
        self.report.notes.append(
            f"generated catalog, seed {seed}: {len(generated.flavors)} flavors"
            f" ({generated.several}: several nodes, {generated.never}: no node,"
            f" {generated.private}: private), operator traits on"
            f" {len(generated.node_traits)} nodes"
        )

    def _generated_cases(self, generated: GeneratedCatalog) -> None:
        """Point 2 on the generated catalog: the cases it was built to have are predicted."""
        several = int(self.capacity.get(generated.several, {}).get("available_nodes", 0))
        if several < 2:
            self._problem(f"{generated.several}: predicted {several} nodes, not several")
        if self.matching.get(generated.never, {"?"}):
            self._problem(
                f"{generated.never}: matches {sorted(self.matching.get(generated.never, []))},"
                " no node expected"
            )
        if generated.private not in self.capacity:
            self._problem(f"{generated.private}: the private flavor has no prediction")


def _reason_after(explained: Mapping[str, Any]) -> str:
    """What explain says of the flavor's own nodes once none is a candidate: its counts but
    those of another resource class."""
    texts = [
        str(c["text"]).replace(" ", "-")
        for c in explained["counts"]
        if c["reason"] != "resource-class" and c["count"]
    ]
    return ",".join(texts) or "no-node"


def _load_yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def _message(answer: Any) -> str:
    if isinstance(answer, dict):
        for value in answer.values():
            if isinstance(value, dict) and "message" in value:
                return str(value["message"])
    return str(answer)[:120]


def prove(
    cloud: Cloud, examples: Path, *, say: Any = print, seed: int | None = DEFAULT_SEED
) -> Report:
    """Points 1-6 on the running ``cloud`` with the catalog and fleet of ``examples``, then
    points 1-4 on the catalog generated with ``seed`` (None: not)."""
    return Proof(cloud, examples, say, seed).run()


# --- python3 dev.py cloud --prove ---------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Start the small cloud, run the proof on the example catalog and then on a generated
    one, print a line per flavor and the verdict, stop everything; exit 0 only when every
    point holds."""
    parser = argparse.ArgumentParser(
        prog="python3 dev.py cloud --prove",
        description="Prove on the small real cloud that every flavor of the example catalog,"
        " then of a generated one, boots on exactly the nodes Flavorsmith predicted.",
    )
    parser.add_argument("--prove", action="store_true", help="(the command's own flag)")
    parser.add_argument(
        "--examples",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "examples",
        help="the catalog and fleet (default: the repository's examples/)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"the generated catalog's seed (default: {DEFAULT_SEED})",
    )
    args = parser.parse_args(argv)
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {line}", file=sys.stderr, flush=True)

    try:
        with running_cloud(agent_inspection=True, neutron=True) as cloud:
            say("the small cloud is up")
            try:
                report = prove(cloud, args.examples, say=say, seed=args.seed)
            except ProofError as error:
                print(f"boot proof: a step failed: {error}", flush=True)
                return 1
            rss = cloud.rss_mib()
    except RuntimeError as error:
        print(f"boot proof: the small cloud did not start or stop: {error}", flush=True)
        return 1
    for note in report.notes:
        say(note)
    for what, seconds in report.seconds.items():
        say(f"{what}: {seconds:.1f}s")
    memory = ", ".join(f"{name} {mib:.0f}" for name, mib in sorted(rss.items()))
    say(f"resident memory at the end: {sum(rss.values()):.0f} MiB ({memory})")
    for problem in report.problems:
        print(f"PROBLEM: {problem}", flush=True)
    print("\n".join(report.lines()), flush=True)
    print(f"({time.monotonic() - started:.0f}s, start and stop included)", file=sys.stderr)
    return 0 if report.ok else 1


# --- python3 dev.py demo --cloud ----------------------------------------------------------------

DEMO_FLAVOR = "c2.large.vmx-mirror"


def demo(argv: Sequence[str] | None = None) -> int:
    """The README's demo on the small cloud: the example c2.large nodes enrolled, inspected,
    classified and synced with Flavorsmith's commands; Flavorsmith names the nodes
    c2.large.vmx-mirror (a flavor written in Git, with two deploy templates) may land on; one
    server boots through Nova's scheduler onto one of them, and the deploy plan of that node
    is shown. The cloud then keeps running until Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="python3 dev.py demo --cloud",
        description="Watch a flavor written in Git boot on a node Flavorsmith named.",
    )
    parser.add_argument("--cloud", action="store_true", help="(the command's own flag)")
    parser.add_argument("--demo", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--exit", action="store_true", help="stop the cloud after the boot instead of waiting"
    )
    args = parser.parse_args(argv)
    examples = Path(__file__).resolve().parents[2] / "examples"
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda _signum, _frame: stop.set())
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {line}", flush=True)

    with running_cloud(agent_inspection=True) as cloud:
        proof = Proof(cloud, examples, say)
        with proof.opened():
            return _demo_boot(proof, args.exit, stop)


def _demo_boot(proof: Proof, exit_after: bool, stop: threading.Event) -> int:
    """The demo's boot on a running cloud (``proof`` opened), then the wait for Ctrl-C."""
    cloud, examples, repo = proof.cloud, proof.examples, proof.repo
    say = proof.say
    lab = [node for node in lab_of(examples) if node.resource_class == "c2.large"]
    proof.prepare(lab)
    cloud_args = ("--cloud", CLOUD_NAME)
    for command in (
        ("match", *cloud_args, "--flavor", DEMO_FLAVOR),
        ("capacity", *cloud_args),
    ):
        _code, out = proof.fs.run(*command)
        print(f"$ flavorsmith {' '.join(command)}\n{out}", flush=True)
    named = {
        str(n)
        for row in proof.fs.json("match", *cloud_args, "--flavor", DEMO_FLAVOR)
        for n in row["nodes"]
    }
    server = cloud.boot("demo-1", nova_flavors(cloud)[DEMO_FLAVOR])
    outcome = cloud.wait_for_servers([server])[server]
    names = {uuid: name for name, uuid in proof.uuids.items()}
    landed = names.get(outcome.node or "", str(outcome.node))
    if outcome.status != "ACTIVE":
        say(f"server demo-1 did not boot: {outcome.fault}")
        return 1
    verdict = "one of the nodes Flavorsmith named" if landed in named else "NOT named"
    say(f"server demo-1 ({DEMO_FLAVOR}) is ACTIVE on {landed}: {verdict}")
    _code, out = proof.fs.run("deploy", "plan", landed, *cloud_args, check=False)
    print(f"$ flavorsmith deploy plan {landed} --cloud {CLOUD_NAME}\n{out}", flush=True)
    if not exit_after:
        print(
            f"The cloud keeps running until Ctrl-C. Try, in another terminal:\n"
            f"  export OS_CLIENT_CONFIG_FILE={cloud.clouds_yaml} OS_CLOUD={CLOUD_NAME}\n"
            f"  cd {repo} && flavorsmith capacity --cloud {CLOUD_NAME}\n"
            "  openstack baremetal node list",
            flush=True,
        )
        while not stop.wait(1):
            pass
    return 0 if landed in named else 1


if __name__ == "__main__":
    sys.exit(demo() if "--demo" in sys.argv else main())
