#!/usr/bin/env python3
"""Nova's scheduler against Flavorsmith's prediction, per flavor, on the small real cloud.

    PYTHONPATH=src .venv/bin/python benchmarks/scheduler.py

One run, public tools only: the small cloud of the test support (tests/support/small_cloud.py:
Placement 16, Glance 33, Ironic 39 on fake-hardware, Nova 34's api, conductor, scheduler and
compute with the ironic driver) and the boot proof's lab (tests/support/boot_proof.py: 60
example nodes, inspected, classified with ``flavorsmith classify --cloud``, flavors and deploy
templates synced with ``flavorsmith sync apply --cloud``). Then, for each example flavor, the
narrowest first:

- Flavorsmith's prediction: the wall time of ``flavorsmith match --cloud NAME --flavor F`` (a
  process start, reading Ironic's nodes, matching), what an operator waits for;
- the scheduler's answer: one server of the flavor, from ``POST /servers`` to the node
  chosen (its allocation appears in Placement: nova-scheduler claimed it), and on to ACTIVE
  (nova-compute and Ironic deployed it); the landing node must be one Flavorsmith named.

Prints one table with the ratio of the two; exits 1 when a server lands elsewhere. Takes
about 8 minutes on two cores (4 to start the cloud and build the lab). Not part of the test
suite.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.boot_proof import (  # noqa: E402
    Proof,
    lab_of,
    nova_flavors,
)
from tests.support.small_cloud import CLOUD_NAME, Cloud, running_cloud  # noqa: E402

EXAMPLES = ROOT / "examples"
POLL = 0.02


def node_chosen(cloud: Cloud, server: str, timeout: float = 120.0) -> float:
    """Poll Placement until the server holds an allocation; the monotonic time it appeared."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, body = cloud.placement_call(f"/allocations/{server}")
        if code == 200 and body.get("allocations"):
            return time.monotonic()
        time.sleep(POLL)
    raise RuntimeError(f"server {server}: no allocation within {timeout:.0f}s")


Row = tuple[str, int, float, float | None, float | None, str]


def main() -> int:
    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    with running_cloud(agent_inspection=True) as cloud:
        proof = Proof(cloud, EXAMPLES, say)
        with proof.opened():
            proof.prepare(lab_of(EXAMPLES))
            rows = [timed(cloud, proof, flavor) for flavor in narrowest_first(proof)]
    print(
        "| flavor | nodes predicted | Flavorsmith match --cloud (s) | scheduler: request to node"
        " chosen (s) | request to ACTIVE (s) | chosen / predicted | landed on |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    wrong = 0
    for flavor, count, predicted_s, chosen_s, active_s, landed in rows:
        if chosen_s is None or active_s is None:
            print(f"| {flavor} | {count} | {predicted_s:.2f} | (none free) | | | |")
            continue
        wrong += landed.endswith("(not predicted)")
        print(
            f"| {flavor} | {count} | {predicted_s:.2f} | {chosen_s:.2f} | {active_s:.2f} |"
            f" {chosen_s / predicted_s:.1f} | {landed} |"
        )
    print(f"{wrong} servers landed off the predicted nodes")
    return 1 if wrong else 0


def narrowest_first(proof: Proof) -> list[str]:
    """The example flavors, fewest available nodes first (as the boot proof boots them)."""
    capacity = proof.fs.json("capacity", "--cloud", CLOUD_NAME)["flavors"]
    return [
        str(f["flavor"])
        for f in sorted(capacity, key=lambda f: (f["available_nodes"], f["flavor"]))
    ]


def timed(cloud: Cloud, proof: Proof, flavor: str) -> Row:
    """The prediction's wall time for ``flavor``, then one server's (to the node chosen, to
    ACTIVE) and where it landed ("(not predicted)" appended when off the predicted nodes)."""
    started = time.monotonic()
    matched = proof.fs.json("match", "--cloud", CLOUD_NAME, "--flavor", flavor)
    predicted_s = time.monotonic() - started
    predicted = {str(n) for row in matched for n in row["nodes"]}
    fresh = proof.fs.json("capacity", "--cloud", CLOUD_NAME)["flavors"]
    if {f["flavor"]: f["available_nodes"] for f in fresh}[flavor] == 0:
        return (flavor, len(predicted), predicted_s, None, None, "-")
    private = flavor == "m1.medium.dedicated"
    token = cloud.token_for("member", "dedicated") if private else cloud.admin_token()
    started = time.monotonic()
    server = cloud.boot(f"bench-{flavor}", nova_flavors(cloud)[flavor], token=token)
    chosen = node_chosen(cloud, server) - started
    outcome = cloud.wait_for_servers([server])[server]
    active = time.monotonic() - started
    names = {uuid: name for name, uuid in proof.uuids.items()}
    landed = names.get(outcome.node or "", "?")
    proof.say(f"{flavor}: predicted in {predicted_s:.2f}s, node chosen in {chosen:.2f}s")
    if landed not in predicted:
        landed += " (not predicted)"
    return (flavor, len(predicted), predicted_s, chosen, active, landed)


if __name__ == "__main__":
    sys.exit(main())
