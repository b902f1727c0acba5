"""The review page in a real browser, on a service reading a catalog in Git: its choosers
list the repository's branches and recent commits, and once two are chosen it shows what
``flavorsmith review`` reports for them on the service's nodes — the headline, each changed
flavor's nodes before → after, the flavors that become unschedulable, the nodes no flavor can
use any more, the runbooks, the load-balancer and network flavors and the new catalog
warnings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.support.ui import Select

from flavorsmith.matching.review import signed
from tests.review.conftest import edit, git
from tests.support.browser import (
    EXAMPLES,
    accessibility_violations,
    console_errors,
    flavorsmith,
    follow,
    screenshot,
    wait_loaded,
)
from tests.support.serve import serve_process

CHANGE = (
    "Retire the H100 flavor; m1.small needs NVMe; m1.small.nicX's trait renamed; "
    "firmware-update on the GPU nodes too; lb.standalone disabled; router.ha disabled, "
    "router.standard distributed"
)


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example catalog on ``main``, and a branch ``catalog-change`` with one commit: the
    GPU flavor removed, a trait required by m1.small, a typo in m1.small.nicX's trait, and the
    firmware-update runbook given the GPU nodes too, the lb.standalone load-balancer flavor
    disabled, the router.ha network flavor disabled and router.standard's profile on the
    distributed driver."""
    repo = tmp_path_factory.mktemp("review-page") / "catalog"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, "The example catalog")
    git(repo, "checkout", "-q", "-b", "catalog-change")
    hardware = repo / "hardware"
    flavors = hardware / "flavors"
    (flavors / "g1.8xh100.yaml").unlink()
    edit(
        hardware / "base" / "kustomization.yaml",
        "  - g1.8xh100.yaml=../flavors/g1.8xh100.yaml\n",
        "",
    )
    with (flavors / "m1.small.yaml").open("a") as file:
        file.write("traits:\n  - trait: NVME\n    state: required\n")
    edit(flavors / "m1.small.nicX.yaml", "trait: NICX", "trait: NCIX")
    edit(
        hardware / "runbooks" / "firmware-update.yaml",
        "traits: [CUSTOM_NVME]",
        "traits: [CUSTOM_GPU, CUSTOM_NVME]",
    )
    with (hardware / "load-balancer-flavors" / "amphora-single.yaml").open("a") as file:
        file.write("    enabled: false\n")
    networks = hardware / "network-flavors"
    edit(networks / "router.ha.yaml", "service_type:", "enabled: false\nservice_type:")
    edit(networks / "router.standard.yaml", "single_node.SingleNodeDriver", "dvr.DvrDriver")
    _commit(repo, CHANGE)
    git(repo, "checkout", "-q", "main")
    return repo


@pytest.fixture(scope="module")
def served(catalog: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A service of its own reading ``catalog``, on the example nodes: (URL, database URL)."""
    folder = tmp_path_factory.mktemp("review-service")
    database = f"sqlite:///{folder / 'flavorsmith.db'}"
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "home")}
    flavorsmith("node", "import", EXAMPLES / "nodes.yaml", "--database", database, env=env)
    with serve_process(folder, "--database", database, repo=catalog) as service:
        yield service.url, database


def _cli_review(catalog: Path, database: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "flavorsmith", "review", "--repo", str(catalog), "--base", "main",
         "--head", "catalog-change", "--database", database, "-f", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _span(before: int | None, after: int | None) -> str:
    if before is None:
        return f"new: {after}"
    if after is None:
        return f"{before} → gone"
    return f"{before} → {after}" if before != after else str(after)


def _texts(browser: Any, selector: str) -> list[str]:
    return [e.text for e in browser.find_elements("css selector", selector)]


def test_choose_two_revisions_and_read_the_review(
    served: tuple[str, str], catalog: Path, browser: Any
) -> None:
    url, database = served
    browser.get(f"{url}/ui/review.html")
    assert wait_loaded(browser) == "true"
    base = Select(browser.find_element("id", "base"))
    head = Select(browser.find_element("id", "head"))
    labels = [o.text for o in head.options]
    assert labels[0] == "Working tree"
    assert f"catalog-change — {CHANGE}" in labels
    assert "main — The example catalog" in [o.text for o in base.options]
    assert browser.find_elements("css selector", "table.review") == []

    base.select_by_value("main")
    head.select_by_value("catalog-change")
    button = browser.find_element("css selector", "#review-form button")
    assert follow(browser, button.click) == "true"
    assert browser.current_url.endswith("/ui/review.html?base=main&head=catalog-change")

    expected = _cli_review(catalog, database)
    assert browser.find_element("id", "headline").text == expected["headline"]
    rows = browser.find_elements("css selector", "table.review tbody tr")
    shown = {
        r.get_attribute("data-flavor"): [c.text for c in r.find_elements("css selector", "td")]
        for r in rows
    }
    assert list(shown) == [f["flavor"] for f in expected["flavors"]]
    for flavor in expected["flavors"]:
        matching, available, change = shown[flavor["flavor"]][:3]
        assert matching == _span(flavor["matching"]["before"], flavor["matching"]["after"])
        assert available == _span(flavor["available"]["before"], flavor["available"]["after"])
        assert change == signed(flavor["available"]["change"])
    assert {"g1.8xh100", "m1.small", "m1.small.nicX"} <= set(shown)
    assert "removed" in shown["g1.8xh100"][3]
    assert _texts(browser, "#unschedulable li") == expected["unschedulable"] == ["m1.small.nicX"]
    assert _texts(browser, "#unusable li") == expected["nodes"]["unusable"] != []
    warnings = expected["diagnostics"]["warnings"]
    assert len(_texts(browser, "#warnings li")) == len(warnings) > 0
    assert _texts(browser, "#nova li")[0].startswith(expected["nova"][0]["action"])
    (runbook,) = expected["runbooks"]
    nodes = runbook["nodes"]
    assert _texts(browser, "#runbooks li") == [
        f"firmware-update changed (traits): {nodes['before']} → {nodes['after']} nodes may run "
        f"it; {len(nodes['gaining'])} gain the right"
    ]
    assert nodes["after"] > nodes["before"] and nodes["losing"] == []
    lbs = expected["load_balancer_flavors"]
    assert lbs["profiles"] == []
    assert (
        _texts(browser, "#load-balancers li")
        == [
            f"flavor {f['flavor']} (profile {f['profile']['after']}) {f['status']}: "
            + "; ".join(
                f"{c['field']}: {json.dumps(c['before'])} → {json.dumps(c['after'])}"
                for c in f["changes"]
            )
            for f in lbs["flavors"]
        ]
        == ["flavor lb.standalone (profile amphora-single) changed: enabled: true → false"]
    )
    nets = expected["network_flavors"]
    assert [(f["flavor"], f["replaced"]) for f in nets] == [
        ("router.ha", False),
        ("router.standard", False),
    ]
    driver = nets[1]["changes"][0]
    assert _texts(browser, "#network-flavors li") == [
        "flavor router.ha changed: enabled: true → false",
        f"flavor router.standard changed: service_profiles[0].driver: "
        f"{json.dumps(driver['before'])} → {json.dumps(driver['after'])}; service profiles: "
        "1 made and associated, 1 removed",
    ]
    assert driver["after"].endswith(".dvr.DvrDriver")
    assert "null" not in browser.find_element("id", "report").text
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
    screenshot(browser, "review")


def test_an_unknown_ref_is_named(served: tuple[str, str], browser: Any) -> None:
    url, _ = served
    browser.get(f"{url}/ui/review.html?base=no-such-branch")
    assert wait_loaded(browser) == "error"
    status = browser.find_element("id", "status")
    assert status.get_attribute("role") == "alert"
    assert "'no-such-branch'" in status.text
    assert accessibility_violations(browser) == []
    console_errors(browser)  # the 404 is logged by the browser: expected here
