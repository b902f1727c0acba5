"""A flavor's page in a real browser: its catalog definition, the Nova flavor derived from it
with every extra spec and the validator's verdict, its deploy templates, its nodes counted by
reason, and its nodes, as the APIs answer; on a node, the deploy-step plan and Explain as a
click."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import console_errors, screenshot, wait_loaded, wait_until

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
    verdicts = browser.execute_script(
        """return [...document.querySelectorAll("table.specs tbody tr")].map((tr) =>
             [tr.dataset.key, tr.dataset.status, tr.querySelector("td.verdict").textContent,
              tr.querySelector("td:last-child").textContent]);"""
    )
    assert verdicts == [
        [v["key"], v["status"], "✓ valid", v["validator"]] for v in flavor["extra_specs"]
    ]
    templates = browser.execute_script(
        """return [...document.querySelectorAll("section.template")].map((t) =>
             [t.dataset.template, [...t.querySelectorAll("tbody th")].map((th) => th.textContent)]);"""
    )
    assert templates == [
        [t["name"], [step["step"] for step in t["steps"]]] for t in flavor["deploy_templates"]
    ]
    assert len(templates) == 2
    assert console_errors(browser) == []
    screenshot(browser, "flavor")


# How many answers the page has shown on a node (``body[data-on-node]``, unset before the first).
ON_NODE_SHOWN = "return Number(document.body.dataset.onNode || 0)"


def _on_node(browser: Any, button_id: str) -> None:
    """Click the button and wait until the page shows its answer. The count is read the same
    way before and after: unset before the first answer is 0 both times, so the wait cannot be
    satisfied before the answer is shown."""
    before: int = browser.execute_script(ON_NODE_SHOWN)
    browser.find_element("id", button_id).click()
    wait_until(browser, lambda d: d.execute_script(ON_NODE_SHOWN) > before)


def test_the_deploy_plan_and_explain_on_a_node(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/flavor.html?name={FLAVOR}")
    assert wait_loaded(browser) == "true"
    node = browser.find_element("id", "on-node").get_attribute("value")
    first = _api(f"{url}/v1/flavors/{FLAVOR}/nodes?limit=1")["nodes"][0]
    assert node == (first["name"] or first["uuid"])

    _on_node(browser, "plan-deploy")  # the catalog's deploy templates: the page's default
    plan = _api(f"{url}/v1/flavors/{FLAVOR}/nodes/{node}/deploy-plan?templates=catalog")
    shown = browser.execute_script(
        """return {
             steps: [...document.querySelectorAll("table.plan tbody tr")].map((tr) =>
               [tr.querySelector("th").textContent, tr.dataset.source]),
             applied: [...document.querySelectorAll("ul.decisions li")].map((li) =>
               [li.dataset.template, li.dataset.applied === "true"]),
             errors: [...document.querySelectorAll(".plan-error")].map((p) => p.textContent),
           };"""
    )
    assert shown == {
        "steps": [[s["step"], s["source"]] for s in plan["steps"]],
        "applied": [[t["template"], t["applied"]] for t in plan["templates"]],
        "errors": [f"Refused: {e}" for e in plan["errors"]],
    }
    sources = {s["source"] for s in plan["steps"]}
    assert sources == {
        "default",
        "CUSTOM_BM_CONFIG_BIOS_VMX_ON",
        "CUSTOM_BM_CONFIG_RAID_DISK_MIRROR",
    }

    # Explain, on a node the flavor cannot use: the reasons by layer.
    field = browser.find_element("id", "on-node")
    field.clear()
    field.send_keys("unknown-z01-u01")
    _on_node(browser, "explain-node")
    explained = _api(f"{url}/v1/flavors/{FLAVOR}/nodes/unknown-z01-u01/explain")
    layers = browser.execute_script(
        """return [...document.querySelectorAll("#on-node-result ul.explain li")].map(
             (li) => li.dataset.layer);"""
    )
    assert layers == [r["layer"] for r in explained["reasons"]] and layers
    assert console_errors(browser) == []


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
