"""The sync plan page in a real browser: every action of /v1/sync/plan with its changes, for
the kind chosen in its form; under ``--auth token-file``, a reader has no Apply button and an
admin's Apply changes the service's flavors, the outcome shown per object."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.keys import Keys

from tests.support.browser import (
    accessibility_violations,
    console_errors,
    example_service,
    follow,
    screenshot,
    wait_loaded,
    wait_until,
)


def _api(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def _shown(browser: Any) -> list[list[Any]]:
    shown: list[list[Any]] = browser.execute_script(
        """
        return [...document.querySelectorAll("section.action")].map((s) => [
          s.dataset.action, s.dataset.subject,
          [...s.querySelectorAll("table.changes tbody tr")].map((tr) => [
            tr.dataset.op, tr.querySelector("th").textContent])]);
        """
    )
    return shown


def _expected(plan: dict[str, Any]) -> list[list[Any]]:
    return [
        [a["action"], a["subject"], [[c["op"], c["field"]] for c in a.get("changes", [])]]
        for a in plan["actions"]
    ]


def test_the_plan_of_each_kind(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/sync.html")
    assert wait_loaded(browser) == "true"
    flavors = _api(f"{url}/v1/sync/plan?only=flavors")
    assert _shown(browser) == _expected(flavors) and flavors["actions"]
    assert browser.find_element("id", "summary").text == (
        f"flavors: {len(flavors['actions'])} to create."
    )
    assert console_errors(browser) == []
    screenshot(browser, "sync")

    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "only")).select_by_value("deploy-templates")
    button = browser.find_element("css selector", "#kind-form button")
    assert follow(browser, button.click) == "true"
    templates = _api(f"{url}/v1/sync/plan?only=deploy-templates")
    assert _shown(browser) == _expected(templates) and templates["actions"]
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
    plan = _api_as(f"{guarded}/v1/sync/plan?only=flavors", "admin-token")
    created = sorted(a["subject"] for a in plan["actions"] if a["action"] == "create")
    assert created and _nova_flavors(guarded) == []
    button = browser.find_element("id", "apply")
    assert button.text == f"Apply {len(created)} change(s)"
    button.click()
    browser.switch_to.alert.accept()
    wait_until(browser, lambda d: d.execute_script("return document.body.dataset.applied"))
    outcome = browser.execute_script(
        """return [...document.querySelectorAll("table.outcome tbody tr")].map(
             (tr) => [tr.dataset.subject, tr.dataset.outcome]);"""
    )
    assert outcome == [[name, "done"] for name in created]
    assert browser.find_element("id", "outcome-summary").text == (
        f"Applied: {len(created)} object(s) changed, 0 failed."
    )
    assert _nova_flavors(guarded) == created
    # The plan shown afterwards is the service's new one: nothing left to do.
    assert browser.find_element("id", "apply").get_attribute("disabled") is not None
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
    screenshot(browser, "sync-applied")


def _api_as(url: str, token: str) -> Any:
    request = urllib.request.Request(url, headers={"X-Auth-Token": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())
