"""Our Placement request against Nova 34's own: ResourceRequest.from_request_spec and the
scheduler's request filters (request_filter.process_reqspec), run in the Nova venv the test
support installs, on the example catalog's derived flavors and seeded generated ones.

Nova's objects (Flavor, ImageMeta, RequestSpec) are built without a database; the one thing
replaced is owner_nova_filter's lookup of the minimum nova-compute version (a database
query), answered "every compute is upgraded", which is what our request assumes."""

from __future__ import annotations

import json
import random
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qsl

from flavorsmith.catalog.repo import Repository
from flavorsmith.nova.derive import DerivedFlavor, derive
from flavorsmith.nova.placement_request import request_for
from tests.conftest import EXAMPLES
from tests.support import nova_api
from tests.support.catalogs import RULES

SCRIPT = r"""
import json, sys
sys.argv[1:] = []
from nova import context, objects
objects.register_all()
import nova.conf
nova.conf.CONF([], project="nova")
from nova.scheduler import request_filter, utils
request_filter._should_filter_by_owner = lambda ctxt: True
ctxt = context.get_admin_context()
out = []
for item in json.load(sys.stdin):
    try:
        flavor = objects.Flavor(
            name=item["name"], flavorid=item["name"], vcpus=item["vcpus"],
            memory_mb=item["ram"], root_gb=item["disk"], ephemeral_gb=item["ephemeral"],
            swap=item["swap"], extra_specs=item["extra_specs"],
        )
        image = objects.ImageMeta(properties=objects.ImageMetaProps(**item["image"]))
        spec = objects.RequestSpec(
            flavor=flavor, image=image, is_bfv=False, requested_resources=[],
            availability_zone=None, project_id="p",
            requested_networks=objects.NetworkRequestList(objects=[]),
        )
        request_filter.process_reqspec(ctxt, spec)
        out.append({"query": utils.ResourceRequest.from_request_spec(spec).to_querystring()})
    except Exception as exc:
        out.append({"error": f"{type(exc).__name__}: {exc}"})
print(json.dumps(out))
"""

POOL = [
    {"trait:HW_CPU_X86_SGX": "required"},
    {"trait:CUSTOM_GPU": "forbidden"},
    {"trait1:CUSTOM_FAST": "required", "resources1:CUSTOM_X": "1"},
    {"resources2:CUSTOM_Y": "1", "trait2:HW_CPU_X86_AVX2": "forbidden"},
    {"group_policy": "isolate"},
    {"group_policy": "none"},
    {"group_policy": "bogus"},
    {"hw:cpu_policy": "dedicated"},
    {"hw:cpu_policy": "mixed", "hw:cpu_dedicated_mask": "^0"},
    {"hw:cpu_thread_policy": "require"},
    {"hw:cpu_thread_policy": "isolate"},
    {"hw:emulator_threads_policy": "isolate"},
    {"os:secure_boot": "required"},
    {"os:secure_boot": "disabled"},
    {"hw:maxphysaddr_mode": "passthrough"},
    {"hw:tpm_version": "2.0"},
    {"hw:tpm_version": "1.2", "hw:tpm_secret_security": "host"},
    {"hw:pmem": "4GB,SMALL,4GB"},
    {"hw:pci_numa_affinity_policy": "socket"},
    {"hw:virtio_packed_ring": "yes"},
    {"hw:ephemeral_encryption": "true", "hw:ephemeral_encryption_format": "plain"},
    {"hw:sound_model": "virtio"},
    {"accel:device_profile": "gpu-profile"},
    {"resources:VCPU": "4"},
    {"resources:MEMORY_MB": "-1"},
    {"resources:NOT_A_CLASS": "1"},
    {"trait:CUSTOM_X": "maybe"},
    {"resources3:CUSTOM_Z": "0", "trait3:CUSTOM_Z": "required"},
]
MEM_ENCRYPTION = [
    ({"hw:mem_encryption": "true"}, {"hw_firmware_type": "uefi"}),
    # Without the image properties memory encryption needs, Nova refuses.
    ({"hw:mem_encryption": "true"}, {}),
    ({"hw:cpu_policy": "bogus"}, {}),
    ({"hw:tpm_version": "3.0"}, {}),
    ({"hw:tpm_version": "2.0", "hw:tpm_secret_security": "nobody"}, {}),
    (
        {"hw:mem_encryption": "1", "hw:mem_encryption_model": "amd-sev-snp"},
        {"hw_firmware_type": "uefi", "hw_firmware_stateless": True},
    ),
]


def flavors() -> list[tuple[DerivedFlavor, dict[str, object]]]:
    derived, _ = derive(Repository(EXAMPLES, RULES).load().catalog)
    out: list[tuple[DerivedFlavor, dict[str, object]]] = [(d, {}) for d in derived]
    rng = random.Random(17)
    for i in range(40):
        base = rng.choice(derived)
        specs = dict(base.extra_specs)
        for extra in rng.sample(POOL, rng.randint(1, 3)):
            specs.update(extra)
        out.append((replace(base, name=f"gen-{i}", extra_specs=specs), {}))
    for i, (extra, image) in enumerate(MEM_ENCRYPTION):
        base = derived[i % len(derived)]
        specs = {**base.extra_specs, **extra}
        out.append((replace(base, name=f"mem-{i}", extra_specs=specs), image))
    return out


def nova_answers(items: list[dict[str, object]]) -> list[dict[str, str]]:
    python = Path(nova_api.venv()) / "bin" / "python"
    done = subprocess.run(
        [str(python), "-c", SCRIPT],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    answers: list[dict[str, str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return answers


def params(query: str) -> Counter[tuple[str, str]]:
    return Counter(parse_qsl(query, keep_blank_values=True))


def test_our_request_is_novas_request() -> None:
    cases = flavors()
    assert len(cases) >= 40
    items = [
        {
            "name": d.name,
            "vcpus": d.vcpus,
            "ram": d.ram,
            "disk": d.disk,
            "swap": d.swap,
            "ephemeral": d.ephemeral,
            "extra_specs": d.extra_specs,
            "image": image,
        }
        for d, image in cases
    ]
    compared = refused = 0
    for (derived, image), answer in zip(cases, nova_answers(items), strict=True):
        ours = request_for(derived)
        if "error" in answer:
            # Nova raised before asking Placement: ours must say it refuses.
            assert ours.refused, (derived.name, answer["error"])
            refused += 1
            continue
        if not image:
            assert not ours.refused, (derived.name, ours.refused)
        assert params(ours.querystring()) == params(answer["query"]), derived.name
        compared += 1
    assert compared >= 40
    assert refused == 4
