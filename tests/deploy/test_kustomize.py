"""deploy/ as Kubernetes gets it: ``kubectl kustomize deploy/`` (no cluster needed), checked
object by object; the catalog ConfigMaps it renders, mounted as the kubelet mounts them, are the
example catalog and load clean."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
from ruamel.yaml import YAML

from flavorsmith.catalog.kinds import KINDS
from flavorsmith.catalog.repo import Repository
from tests.conftest import EXAMPLES, ROOT
from tests.support.catalogs import RULES
from tests.support.configmap_volume import ConfigMapVolume

CATALOG = PurePosixPath("/etc/flavorsmith/catalog")
# The kinds the example catalog has files of (it declares no traits: their volume is optional).
EXAMPLE_KINDS = [kind for kind in KINDS if (EXAMPLES / "hardware" / kind.folder).is_dir()]
Object = dict[str, Any]


@pytest.fixture(scope="module")
def rendered() -> dict[tuple[str, str], Object]:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render deploy/ (kubectl kustomize)"
    done = subprocess.run(
        [kubectl, "kustomize", str(ROOT / "deploy")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    objects = list(YAML(typ="safe").load_all(done.stdout))
    by_key = {(o["kind"], o["metadata"]["name"]): o for o in objects}
    assert len(by_key) == len(objects)  # no two objects of a kind share a name
    return by_key


def pod_spec(obj: Object) -> Object:
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]  # type: ignore[no-any-return]
    return obj["spec"]["template"]["spec"]  # type: ignore[no-any-return]


def catalog_mounts(spec: Object) -> dict[str, str]:
    """mount path -> ConfigMap name, for every ConfigMap volume of the pod's one container."""
    (container,) = spec["containers"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    out = {}
    for mount in container["volumeMounts"]:
        assert "subPath" not in mount  # a subPath mount is never updated by the kubelet
        volume = volumes[mount["name"]]
        if "configMap" in volume:
            assert mount.get("readOnly") is True
            out[mount["mountPath"]] = volume["configMap"]["name"]
    return out


def test_the_objects(rendered: dict[tuple[str, str], Object]) -> None:
    assert sorted(rendered) == sorted(
        [
            *(("ConfigMap", kind.configmap) for kind in EXAMPLE_KINDS),
            ("Deployment", "flavorsmith"),
            ("Service", "flavorsmith"),
            ("PodDisruptionBudget", "flavorsmith"),
            ("Job", "flavorsmith-sync"),
            ("CronJob", "flavorsmith-sync"),
        ]
    )


def test_the_configmaps_are_the_example_catalog(rendered: dict[tuple[str, str], Object]) -> None:
    for kind in EXAMPLE_KINDS:
        data = rendered["ConfigMap", kind.configmap]["data"]
        files = sorted((EXAMPLES / "hardware" / kind.folder).glob("*.yaml"))
        assert sorted(data) == [p.name for p in files], kind.folder
        for path in files:
            assert data[path.name] == path.read_text(encoding="utf-8"), path


def test_the_rendered_catalog_mounted_as_the_kubelet_does_loads_clean(
    rendered: dict[tuple[str, str], Object], tmp_path: Path
) -> None:
    spec = pod_spec(rendered["Deployment", "flavorsmith"])
    for path, name in catalog_mounts(spec).items():
        folder = tmp_path / PurePosixPath(path).relative_to(CATALOG)
        # An optional volume of a missing ConfigMap is an empty folder.
        configmap = rendered.get(("ConfigMap", name))
        ConfigMapVolume(folder).write(configmap["data"] if configmap else {})
    view = Repository(tmp_path, RULES).load()
    assert view.diagnostics == []
    assert len(view.catalog.flavors) == 12 and len(view.catalog.device_types) == 5


def test_the_deployment(rendered: dict[tuple[str, str], Object]) -> None:
    deployment = rendered["Deployment", "flavorsmith"]
    assert deployment["spec"]["replicas"] >= 2
    spec = pod_spec(deployment)
    (container,) = spec["containers"]
    assert container["image"] == "localhost/flavorsmith:0.1.0"
    args = container["args"]
    assert args[0] == "serve" and "--host=0.0.0.0" in args and "--port=8780" in args
    assert "--allowed-host=flavorsmith" in args  # the Service's name, as a Host
    assert f"--repo={CATALOG}" in args and "--sync" in args
    assert "--metrics-host=0.0.0.0" in args and "--metrics-port=9180" in args
    assert container["ports"] == [
        {"name": "http", "containerPort": 8780},
        {"name": "metrics", "containerPort": 9180},
    ]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    env = {e["name"]: e for e in container["env"]}
    assert env["FLAVORSMITH_DATABASE_URL"]["valueFrom"]["secretKeyRef"] == {
        "name": "flavorsmith-database",
        "key": "url",
    }
    expected = {str(CATALOG / kind.folder): kind.configmap for kind in KINDS}
    assert catalog_mounts(spec) == expected
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/path"] == "/metrics"
    assert annotations["prometheus.io/port"] == "9180"
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()


def test_the_service_and_the_disruption_budget(rendered: dict[tuple[str, str], Object]) -> None:
    labels = rendered["Deployment", "flavorsmith"]["spec"]["template"]["metadata"]["labels"]
    service = rendered["Service", "flavorsmith"]["spec"]
    assert service["selector"].items() <= labels.items()
    ports = {p["name"]: p for p in service["ports"]}
    assert ports["http"]["port"] == 8780 and ports["http"]["targetPort"] == "http"
    assert ports["metrics"] == {"name": "metrics", "port": 9180, "targetPort": "metrics"}
    budget = rendered["PodDisruptionBudget", "flavorsmith"]["spec"]
    assert budget["minAvailable"] == 1
    assert budget["selector"]["matchLabels"].items() <= labels.items()


@pytest.mark.parametrize("kind", ["Job", "CronJob"])
def test_the_sync_jobs(rendered: dict[tuple[str, str], Object], kind: str) -> None:
    obj = rendered[kind, "flavorsmith-sync"]
    spec = pod_spec(obj)
    (container,) = spec["containers"]
    assert container["args"] == [
        "sync",
        "apply",
        "--yes",
        f"--repo={CATALOG}",
        "--cloud=$(OS_CLOUD)",
    ]
    env = {e["name"]: e for e in container["env"]}
    assert env["OS_CLOUD"]["value"]
    assert "secretKeyRef" in env["FLAVORSMITH_DATABASE_URL"]["valueFrom"]
    assert spec["restartPolicy"] in ("Never", "OnFailure")
    expected = {str(CATALOG / k.folder): k.configmap for k in KINDS}
    assert catalog_mounts(spec) == expected
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    assert mounts["clouds"]["mountPath"] == "/etc/openstack"
    assert volumes["clouds"]["secret"] == {
        "secretName": "flavorsmith-clouds",
        "items": [{"key": "clouds.yaml", "path": "clouds.yaml"}],
    }
    if kind == "Job":
        annotations = obj["metadata"]["annotations"]
        assert annotations["argocd.argoproj.io/hook"] == "PostSync"
    else:
        assert obj["spec"]["concurrencyPolicy"] == "Forbid"
        assert obj["spec"]["schedule"]
