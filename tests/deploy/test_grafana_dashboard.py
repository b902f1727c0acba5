"""deploy/grafana/flavorsmith.json against what the service exports: every metric each panel
and variable queries is in a scrape of the service's metrics, with every label its matchers,
groupings and legends name. The scrape follows known work (requests, a sync, an Ironic
mirror's refreshes, a node), so each metric has samples carrying its labels."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from flavorsmith import metrics
from flavorsmith.clients import cloud
from flavorsmith.clients.ironic import IronicNodes
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.serving.metrics import collectors
from flavorsmith.sync.mirror import Mirror
from tests.api.conftest import build_app
from tests.api.test_metrics import ADMIN, node
from tests.conftest import ROOT
from tests.live import serving

DASHBOARD = ROOT / "deploy" / "grafana" / "flavorsmith.json"

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SELECTOR = re.compile(rf"\b({NAME})\s*(\{{[^}}]*\}})?")
MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"')
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
LABEL_VALUES = re.compile(rf"label_values\(\s*({NAME})\s*(?:\{{[^}}]*\}})?\s*,\s*(\w+)\s*\)")
LEGEND = re.compile(r"\{\{\s*(\w+)\s*\}\}")
OUR_PREFIX = metrics.PREFIX

Exported = dict[str, set[str]]  # sample name -> the label names its samples carry


def queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(what asks, the PromQL) of every panel target and query variable, with the legends."""
    found: list[tuple[str, str]] = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            found.append((f"panel {panel['title']!r}", target["expr"]))
            found.append((f"legend of {panel['title']!r}", target.get("legendFormat", "")))
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]
            text = query["query"] if isinstance(query, dict) else query
            found.append((f"variable {variable['name']!r}", text))
    return found


def problems(dashboard: dict[str, Any], exported: Exported) -> list[str]:
    """What the dashboard queries that the scrape does not have, one line each."""
    wrong: list[str] = []
    labels_here: set[str] = set()
    for where, text in queries(dashboard):
        if where.startswith("legend"):  # the labels of the panel's expression just before
            wrong += [
                f"{where}: no label {label!r} in its query"
                for label in LEGEND.findall(text)
                if label not in labels_here
            ]
            continue
        labels_here = set()
        names = [(m.group(1), m.group(2) or "") for m in SELECTOR.finditer(text)]
        ours = [(name, braces) for name, braces in names if name.startswith(OUR_PREFIX)]
        if not ours:
            wrong.append(f"{where}: queries no metric of ours: {text}")
        for name, braces in ours:
            if name not in exported:
                wrong.append(f"{where}: no metric {name} in the scrape")
                continue
            labels_here |= exported[name]
            for label in MATCHER.findall(braces):
                if label not in exported[name]:
                    wrong.append(f"{where}: {name} has no label {label!r}")
        for group in GROUPING.findall(text):
            for label in filter(None, (g.strip() for g in group.split(","))):
                if label not in labels_here:
                    wrong.append(f"{where}: groups by {label!r}, which none of its metrics has")
        for name, label in LABEL_VALUES.findall(text):
            if label not in exported.get(name, set()):
                wrong.append(f"{where}: {name} has no label {label!r}")
    return wrong


def exported_by(text: str) -> Exported:
    found: Exported = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, set()).update(sample.labels)
    return found


@pytest.fixture(scope="module")
def scrape(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exported]:
    """The service's metrics after a node, a request, a sync and a mirror refresh, as a scrape
    of its metrics port reads them."""
    tmp_path = tmp_path_factory.mktemp("grafana")
    token_file = tmp_path / "tokens.yaml"
    token_file.write_text("admin-token: {user: alice, project: ops, roles: [admin]}\n")
    engine = make_engine(f"sqlite:///{tmp_path / 'grafana.db'}")
    migrate.upgrade(engine)
    with TestClient(build_app(engine, auth="token-file", token_file=token_file)) as client:
        node(client, "counted", "c2.diskless")
        assert client.get("/v1/capacity", headers=ADMIN).status_code == 200
        assert client.post("/v1/sync/apply", headers=ADMIN).status_code == 200
        origin, copy = (make_engine(f"sqlite:///{tmp_path / n}") for n in ("o.db", "c.db"))
        migrate.upgrade(origin)
        migrate.upgrade(copy)
        ironic = build_app(origin)
        node(TestClient(ironic), "mirrored", "c2.diskless")
        with serving(ironic) as url:
            source = IronicNodes(cloud.connect(None, "baremetal", f"{url}/baremetal", timeout=10))
            assert Mirror(source, copy, label=url).refresh().error is None
        text = metrics.exposition(collectors(client.app.state.services)).decode()  # type: ignore[attr-defined]
        origin.dispose()
        copy.dispose()
    engine.dispose()
    yield exported_by(text)


def test_every_metric_and_label_the_dashboard_queries_is_exported(scrape: Exported) -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert problems(dashboard, scrape) == []
    # It shows capacity per flavor and per resource class, and when a flavor runs out.
    expressions = " ".join(text for _, text in queries(dashboard))
    for name in ("flavorsmith_flavor_nodes_available", "flavorsmith_nodes_available", "deriv("):
        assert name in expressions


def test_a_misspelt_metric_or_label_is_found(scrape: Exported) -> None:
    dashboard = {
        "panels": [
            {
                "title": "wrong",
                "targets": [
                    {
                        "expr": 'sum by (flavour) (flavorsmith_flavor_nodes_sellable{flavor="a"})'
                        ' + flavorsmith_nodes{class="x"}',
                        "legendFormat": "{{rc}}",
                    },
                    {"expr": "up", "legendFormat": ""},
                ],
            }
        ],
        "templating": {
            "list": [{"name": "f", "type": "query", "query": "label_values(flavorsmith_nodes, f)"}]
        },
    }
    assert problems(dashboard, scrape) == [
        "panel 'wrong': no metric flavorsmith_flavor_nodes_sellable in the scrape",
        "panel 'wrong': flavorsmith_nodes has no label 'class'",
        "panel 'wrong': groups by 'flavour', which none of its metrics has",
        "legend of 'wrong': no label 'rc' in its query",
        "panel 'wrong': queries no metric of ours: up",
        "variable 'f': flavorsmith_nodes has no label 'f'",
    ]
