"""A node's page in a real browser: the flavors it serves, the matcher's reasons why not for
every other flavor, the reasons by layer on a click, and a trait set through /baremetal shown
without a reload."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import console_errors, screenshot, wait_loaded, wait_until

NODE = "dl360-c01-u01"


def _api(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> Any:
    request = urllib.request.Request(url, method=method, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


def _why_not(browser: Any) -> dict[str, list[str]]:
    shown: dict[str, list[str]] = browser.execute_script(
        """
        const out = {};
        for (const row of document.querySelectorAll("table.whynot tbody tr")) {
          out[row.dataset.flavor] = [...row.querySelectorAll("ul.reasons li")].map(
            (li) => li.textContent);
        }
        return out;
        """
    )
    return shown


def test_the_node_page_shows_the_matcher_s_answers(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/node.html?node={NODE}")
    assert wait_loaded(browser) == "true"
    served = _api(f"{url}/v1/nodes/{NODE}/flavors")["flavors"]
    serves = [e.text for e in browser.find_elements("css selector", "#serves li[data-flavor]")]
    assert serves == served and served
    capacity = [f["flavor"] for f in _api(f"{url}/v1/capacity")["flavors"]]
    expected = {}
    for flavor in capacity:
        if flavor in served:
            continue
        pair = _api(f"{url}/v1/flavors/{flavor}/nodes/{NODE}")
        assert not pair["match"]
        expected[flavor] = [r["detail"] for r in pair["reasons"]]
    assert _why_not(browser) == expected

    # "Explain" on the first flavor that cannot land here: the reasons by layer.
    first = next(iter(expected))
    explained = _api(f"{url}/v1/flavors/{first}/nodes/{NODE}/explain")
    row = browser.find_element("css selector", f'tr[data-flavor="{first}"]')
    button = row.find_element("css selector", "button")
    assert button.accessible_name == f"Explain {first} on this node"
    button.click()
    wait_until(browser, lambda d: row.find_elements("css selector", "ul.explain li"))
    layers = [
        li.get_attribute("data-layer") for li in row.find_elements("css selector", "ul.explain li")
    ]
    assert layers == [r["layer"] for r in explained["reasons"]]
    assert console_errors(browser) == []
    screenshot(browser, "node")


def test_a_trait_set_through_baremetal_appears_without_a_reload(
    service: tuple[str, str], browser: Any
) -> None:
    url, _ = service
    browser.get(f"{url}/ui/node.html?node={NODE}")
    assert wait_loaded(browser) == "true"
    trait = "CUSTOM_DASHBOARD_LIVE"
    traits = [e.text for e in browser.find_elements("css selector", "#traits code")]
    assert trait not in traits
    _api(
        f"{url}/baremetal/v1/nodes/{NODE}/traits/{trait}",
        method="PUT",
        headers={"X-OpenStack-Ironic-API-Version": "1.37"},
    )
    wait_until(
        browser,
        lambda d: trait in [e.text for e in d.find_elements("css selector", "#traits code")],
    )
    assert console_errors(browser) == []
