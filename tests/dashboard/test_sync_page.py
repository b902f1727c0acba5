"""The sync plan page in a real browser: each kind's plan is the diff ``flavorsmith sync plan``
prints, for every kind or the one chosen in its form; under ``--auth token-file``, a reader has
no Apply button, and an admin's Apply changes the service's flavors, deploy templates and runbooks, the
outcome shown per object, after which one line says everything is up to date."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from selenium.webdriver.common.keys import Keys

from tests.support.browser import (
    EXAMPLES,
    accessibility_violations,
    console_errors,
    example_service,
    flavorsmith,
    follow,
    screenshot,
    wait_loaded,
    wait_until,
)


def _api(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


# Each kind the page plans unless one is chosen (those the service keeps in sync), and where ``flavorsmith sync plan --only KIND`` finds it on the
# service (its Nova and Ironic APIs).
ENDPOINTS = {"flavors": "/compute/v2.1", "deploy-templates": "/baremetal", "runbooks": "/baremetal"}


def _diffs(browser: Any) -> dict[str, str]:
    """Each kind's plan as the page shows it: the diff's text."""
    shown: dict[str, str] = browser.execute_script(
        """
        return Object.fromEntries([...document.querySelectorAll("pre.diff")].map(
          (pre) => [pre.dataset.kind, pre.textContent]));
        """
    )
    return shown


def _cli_plan(url: str, kind: str) -> str:
    return flavorsmith(
        "sync", "plan", "--only", kind, "--endpoint", f"{url}{ENDPOINTS[kind]}", "--repo", EXAMPLES
    )


def _writes(plan: dict[str, Any]) -> list[str]:
    return [a["subject"] for a in plan["actions"] if a["action"] != "noop"]


def test_the_plan_of_each_kind_is_sync_plan_s_diff(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/sync.html")
    assert wait_loaded(browser) == "true"
    plans = {kind: _api(f"{url}/v1/sync/plan?only={kind}") for kind in ENDPOINTS}
    assert all(_writes(plan) for plan in plans.values())  # the example Nova and Ironic are empty
    # The diff an operator reviews on the command line, line for line.
    assert _diffs(browser) == {kind: _cli_plan(url, kind) for kind in ENDPOINTS}
    changes = sum(len(_writes(plan)) for plan in plans.values())
    summary = browser.find_element("id", "summary").text
    assert re.fullmatch(
        rf"To review: {changes} changes \(flavors, deploy templates, runbooks\), checked at .+\.",
        summary,
    )
    # Every kind the service syncs into its own database may be chosen, in the registry's order.
    offered = [
        o.get_attribute("value") for o in browser.find_elements("css selector", "#only option")
    ]
    assert offered == ["", "flavors", "deploy-templates", "runbooks", "load-balancer-flavors"]
    assert console_errors(browser) == []
    screenshot(browser, "sync")

    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "only")).select_by_value("deploy-templates")
    button = browser.find_element("css selector", "#kind-form button")
    assert follow(browser, button.click) == "true"
    assert "only=deploy-templates" in browser.current_url
    assert _diffs(browser) == {"deploy-templates": _cli_plan(url, "deploy-templates")}
    assert console_errors(browser) == []


TOKENS = (
    "admin-token: {user: alice, project: ops, roles: [admin]}\n"
    "reader-token: {user: carol, project: p1, roles: [reader]}\n"
)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A service of its own under ``--auth token-file`` (an admin's Apply changes its flavors)."""
    folder = tmp_path_factory.mktemp("guarded")
    tokens = folder / "tokens.yaml"
    tokens.write_text(TOKENS)
    auth = ("--auth", "token-file", "--token-file", str(tokens))
    with example_service(folder, *auth, nodes=False) as found:  # syncing flavors needs no node
        yield found[0]


def _use_token(browser: Any, url: str, value: str) -> str:
    """Open the sync page, type ``value`` into the header's token form and send it."""
    browser.get(f"{url}/ui/sync.html")
    wait_loaded(browser)
    console_errors(browser)  # the page as the previous token saw it: not this test's business
    field = browser.find_element("id", "token")
    field.send_keys(value)
    return follow(browser, lambda: field.send_keys(Keys.ENTER))


def _nova_flavors(url: str) -> list[str]:
    """Every Nova flavor of the service, public or private (an admin asks with is_public=none)."""
    request = urllib.request.Request(
        f"{url}/compute/v2.1/flavors?is_public=none", headers={"X-Auth-Token": "admin-token"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return sorted(f["name"] for f in json.loads(response.read())["flavors"])


def test_a_reader_has_no_apply_button(guarded: str, browser: Any) -> None:
    assert _use_token(browser, guarded, "reader-token") == "error"
    assert browser.find_elements("id", "apply") == []
    status = browser.find_element("id", "status")
    assert status.get_attribute("role") == "alert"
    assert status.text.startswith("Your token may not read this")
    assert accessibility_violations(browser) == []
    console_errors(browser)  # the refused call is logged by the browser: expected here


def test_an_admin_s_apply_changes_the_service_s_flavors(guarded: str, browser: Any) -> None:
    assert _use_token(browser, guarded, "admin-token") == "true"
    plans = {k: _api_as(f"{guarded}/v1/sync/plan?only={k}", "admin-token") for k in ENDPOINTS}
    created = {
        kind: [a["subject"] for a in plan["actions"] if a["action"] == "create"]
        for kind, plan in plans.items()
    }
    assert all(created.values()) and _nova_flavors(guarded) == []
    button = browser.find_element("id", "apply")
    assert button.text == f"Apply {sum(map(len, created.values()))} change(s)"
    button.click()
    browser.switch_to.alert.accept()
    wait_until(browser, lambda d: d.execute_script("return document.body.dataset.applied"))
    outcome = browser.execute_script(
        """return [...document.querySelectorAll("table.outcome tbody tr")].map(
             (tr) => [tr.dataset.subject, tr.dataset.outcome]);"""
    )
    # Each kind with changes, in the page's order: flavors, deploy templates, runbooks.
    every = created["flavors"] + created["deploy-templates"] + created["runbooks"]
    assert outcome == [[name, "done"] for name in every]
    assert browser.find_element("id", "outcome-summary").text == (
        f"Applied: {len(every)} object(s) changed, 0 failed."
    )
    assert _nova_flavors(guarded) == sorted(created["flavors"])
    # The plan asked again afterwards has nothing to change: one line says so, and when.
    summary = browser.find_element("id", "summary")
    assert summary.text == (
        f"Up to date: {len(created['flavors'])} flavors, "
        f"{len(created['deploy-templates'])} deploy templates, "
        f"{len(created['runbooks'])} runbooks, checked at "
        f"{summary.find_element('tag name', 'time').text}."
    )
    checked = summary.find_element("tag name", "time").get_attribute("datetime")
    assert abs((datetime.now(UTC) - datetime.fromisoformat(checked)).total_seconds()) < 120
    assert browser.find_elements("css selector", "#actions > *") == []
    assert not browser.find_element("id", "apply").is_displayed()
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
    screenshot(browser, "sync-applied")

    # Loaded again: the one line alone, no diff and no Apply.
    browser.refresh()
    assert wait_loaded(browser) == "true"
    assert browser.find_element("id", "summary").text.startswith(
        f"Up to date: {len(created['flavors'])} flavors, "
    )
    assert browser.find_elements("css selector", "#actions > *") == []
    assert not browser.find_element("id", "apply").is_displayed()
    assert console_errors(browser) == []


def _api_as(url: str, token: str) -> Any:
    request = urllib.request.Request(url, headers={"X-Auth-Token": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
