"""A flavor's page in a real browser: its catalog definition, the Nova flavor derived from it
with every extra spec, its nodes counted by reason, and its nodes, as the APIs answer."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import console_errors, screenshot, wait_loaded

FLAVOR = "c2.large.vmx-mirror"


def _api(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_the_flavor_page_shows_the_apis_answers(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/flavor.html?name={FLAVOR}")
    assert wait_loaded(browser) == "true"
    flavor = _api(f"{url}/v1/catalog/flavors/{FLAVOR}")
    nova = next(
        f for f in _api(f"{url}/v1/catalog/nova-flavors")["nova_flavors"] if f["name"] == FLAVOR
    )
    explained = _api(f"{url}/v1/flavors/{FLAVOR}/explain")
    nodes = _api(f"{url}/v1/flavors/{FLAVOR}/nodes?limit=200")
    shown = browser.execute_script(
        """
        const texts = (selector) => [...document.querySelectorAll(selector)].map((e) => e.textContent);
        return {
          traits: texts("#traits li code"),
          specs: Object.fromEntries([...document.querySelectorAll("table.specs tbody tr")].map(
            (tr) => [tr.dataset.key, tr.querySelector("td").textContent])),
          counts: [...document.querySelectorAll("table.explain-counts tbody tr")].map(
            (tr) => [tr.dataset.reason, Number(tr.querySelector("td").textContent)]),
          nodes: texts("#nodes li a"),
          description: document.getElementById("description").textContent,
        };
        """
    )
    assert shown == {
        "traits": [t["full_name"] for t in flavor["traits"]],
        "specs": nova["extra_specs"],
        "counts": [[c["reason"], c["count"]] for c in explained["counts"]],
        "nodes": [n["name"] or n["uuid"] for n in nodes["nodes"]],
        "description": flavor["description"],
    }
    assert shown["traits"] and shown["specs"] and shown["nodes"]
    assert console_errors(browser) == []
    screenshot(browser, "flavor")


def test_an_unknown_flavor_says_so(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/flavor.html?name=no-such-flavor")
    assert wait_loaded(browser) == "error"
    status = browser.find_element("id", "status")
    assert status.text == "Could not load: 404: No flavor named 'no-such-flavor' in the catalog"
    assert status.get_attribute("role") == "alert"
    # The API's 404s (the page asks for the flavor's parts at once) are all the browser logs.
    errors = console_errors(browser)
    assert errors and all(
        e.startswith(f"{url}/v1/") and "no-such-flavor" in e and "(Not Found)" in e for e in errors
    ), errors
