"""The sync plan page in a real browser: every action of /v1/sync/plan with its changes, for
the kind chosen in its form."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import console_errors, follow, screenshot, wait_loaded


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
