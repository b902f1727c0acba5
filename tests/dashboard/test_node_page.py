"""A node's page in a real browser: the flavors it serves, the matcher's reasons why not for
every other flavor, the reasons by layer on a click, and a trait set through /baremetal shown
without a reload."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import (
    EXAMPLES,
    accessibility_violations,
    console_errors,
    screenshot,
    wait_loaded,
    wait_until,
)

NODE = "dl360-c01-u01"


def _api(
    url: str, method: str = "GET", headers: dict[str, str] | None = None, data: Any = None
) -> Any:
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
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


def _owners(browser: Any) -> list[list[str]]:
    shown: list[list[str]] = browser.execute_script(
        """return [...document.querySelectorAll("table.traits tbody tr")].map((tr) =>
             [...tr.querySelectorAll("th, td")].map((c) => c.textContent));"""
    )
    return shown


def test_each_trait_s_owner_and_the_last_classification(
    service: tuple[str, str], browser: Any
) -> None:
    """A node made through /baremetal, a trait set on it by hand, then classified from the
    example inspection data: the page shows each trait's owner and the rule behind it, and
    every candidate device type's checks field by field. The node is deleted afterwards."""
    url, _ = service
    ironic = {"X-OpenStack-Ironic-API-Version": "1.37", "Content-Type": "application/json"}
    made = _api(
        f"{url}/baremetal/v1/nodes",
        method="POST",
        headers=ironic,
        data={"name": "dashboard-classified", "driver": "fake-hardware"},
    )
    try:
        browser.get(f"{url}/ui/node.html?node=dashboard-classified")
        assert wait_loaded(browser) == "true"
        assert browser.find_element("id", "classified").text.startswith("Never classified")
        hand = "CUSTOM_DASHBOARD_BY_HAND"
        _api(f"{url}/baremetal/v1/nodes/{made['uuid']}/traits/{hand}", "PUT", ironic)
        data = json.loads((EXAMPLES / "inspection" / "dl360-c2-large.json").read_text())
        _api(f"{url}/v1/nodes/{made['uuid']}/inspection", "POST", ironic, data)
        wait_until(browser, lambda d: d.find_elements("css selector", "table.candidates"))
        matches = _api(f"{url}/v1/nodes/{made['uuid']}/matches")
        last = _api(f"{url}/v1/nodes/{made['uuid']}/inspection")["classification"]
        because = {r["trait"]: f"{r['rule']}: {r['because']}" for r in last["trait_reasons"]}
        assert _owners(browser) == [
            [o["trait"], o["owner"], ", ".join(o["rules"]) or "—", because.get(o["trait"], "—")]
            for o in matches["trait_owners"]
        ]
        assert [hand, "by hand", "—", "—"] in _owners(browser)
        assert ["HW_CPU_X86_AVX2", "trait-rules/cpu-standard.yaml", "AVX2"] in [
            row[:3] for row in _owners(browser)
        ]
        checks = browser.execute_script(
            """return [...document.querySelectorAll("table.candidates tbody tr")].map((tr) =>
                 [tr.dataset.deviceType, tr.dataset.match,
                  [...tr.querySelectorAll("li")].map((li) => li.textContent)]);"""
        )
        assert checks == [
            [
                c["device_type"],
                "true" if c["match"] else "false",
                [f"{'✓' if k['ok'] else '✗'} {k['field']}: {k['detail']}" for k in c["checks"]],
            ]
            for c in last["candidates"]
        ]
        assert any(c["match"] for c in last["candidates"])
        assert accessibility_violations(browser) == []
        assert console_errors(browser) == []
        screenshot(browser, "node-classified")
    finally:
        _api(f"{url}/baremetal/v1/nodes/{made['uuid']}", "DELETE", ironic)


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


def test_a_live_redraw_keeps_what_the_reader_opened(service: tuple[str, str], browser: Any) -> None:
    """A change to another node moves only the node generation shown: the page is not drawn
    again (an Explain answer open, the focus on its button, stay as they are). A change to
    this node draws it again, with the Explain answer still open and the focus on the same
    flavor's button."""
    url, _ = service
    ironic = {"X-OpenStack-Ironic-API-Version": "1.37"}
    browser.get(f"{url}/ui/node.html?node={NODE}")
    assert wait_loaded(browser) == "true"
    first = next(iter(_why_not(browser)))
    row = browser.find_element("css selector", f'tr[data-flavor="{first}"]')
    row.find_element("css selector", "button").click()
    wait_until(browser, lambda d: row.find_elements("css selector", "ul.explain li"))
    renders = browser.execute_script("return document.body.dataset.renders")
    generation = int(browser.find_element("id", "generation").text)

    def focused_flavor(d: Any) -> str | None:
        found: str | None = d.execute_script(
            """const row = document.activeElement.closest("tr[data-flavor]");
               return row && document.activeElement.tagName === "BUTTON" ? row.dataset.flavor : null;"""
        )
        return found

    assert focused_flavor(browser) == first
    other = next(
        n["name"]
        for n in _api(f"{url}/baremetal/v1/nodes?limit=5", headers=ironic)["nodes"]
        if n["name"] != NODE
    )
    trait = "CUSTOM_DASHBOARD_KEEP"
    try:
        _api(f"{url}/baremetal/v1/nodes/{other}/traits/{trait}", "PUT", ironic)
        wait_until(browser, lambda d: int(d.find_element("id", "generation").text) > generation)
        assert browser.execute_script("return document.body.dataset.renders") == renders
        assert row.find_elements("css selector", "ul.explain li")  # the same row, still open
        assert focused_flavor(browser) == first

        _api(f"{url}/baremetal/v1/nodes/{NODE}/traits/{trait}", "PUT", ironic)
        wait_until(
            browser,
            lambda d: trait in [e.text for e in d.find_elements("css selector", "#traits code")],
        )
        assert browser.execute_script("return document.body.dataset.renders") != renders
        explained = _api(f"{url}/v1/flavors/{first}/nodes/{NODE}/explain")
        wait_until(
            browser,
            lambda d: (
                [
                    li.get_attribute("data-layer")
                    for li in d.find_elements(
                        "css selector", f'tr[data-flavor="{first}"] ul.explain li'
                    )
                ]
                == [r["layer"] for r in explained["reasons"]]
            ),
        )
        assert focused_flavor(browser) == first
        assert console_errors(browser) == []
    finally:
        for node in (other, NODE):
            _api(f"{url}/baremetal/v1/nodes/{node}/traits/{trait}", "DELETE", ironic)


def test_the_runbooks_the_node_may_run_and_their_steps(
    service: tuple[str, str], browser: Any
) -> None:
    """The Runbooks section shows /v1/nodes/{ident}/runbooks (runbook plan's report): each of
    the catalog's runbooks, whether the node may run it and why, and the steps of those it may
    run, in order."""
    url, _ = service
    node = "xe9680-g01-u06"  # a GPU node with NVMe: two of the example runbooks by NVMe, one by GPU
    plan = _api(f"{url}/v1/nodes/{node}/runbooks")
    browser.get(f"{url}/ui/node.html?node={node}")
    assert wait_loaded(browser) == "true"
    shown = browser.execute_script(
        """return [...document.querySelectorAll("table.runbooks tbody tr")].map((tr) =>
             [tr.dataset.runbook, tr.dataset.allowed, tr.querySelector(".why").textContent,
              [...tr.querySelectorAll("ol.steps li")].map((li) => li.textContent)]);"""
    )

    def step(s: dict[str, Any]) -> str:
        args = f" {json.dumps(s['args'], separators=(',', ':'))}" if s["args"] else ""
        return f"{s['order']} {s['interface']}.{s['step']}{args}"

    assert shown == [
        [
            r["runbook"],
            "true" if r["allowed"] else "false",
            r["reason"],
            [step(s) for s in r["steps"]],
        ]
        for r in plan["runbooks"]
    ]
    assert [row[0] for row in shown if row[1] == "true"] == [
        "bios-gpu-servicing",
        "firmware-update",
        "raid-rebuild",
    ]
    assert shown[1][3] == [
        '10 firmware.update {"settings":[{"component":"bmc","url":"http://fw.example.com/bmc.bin"}]}',
        "20 bios.factory_reset",
    ]
    assert browser.find_elements("css selector", "ul.problems") == []
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
    screenshot(browser, "node-runbooks")


def test_a_runbook_step_the_driver_lacks_is_named(service: tuple[str, str], browser: Any) -> None:
    """An IPMI node given NVMe by hand may run firmware-update, whose steps IPMI does not
    offer: the page names them, as runbook plan does. The trait is taken off afterwards."""
    url, _ = service
    node = "unknown-z01-u01"
    ironic = {"X-OpenStack-Ironic-API-Version": "1.37"}
    _api(f"{url}/baremetal/v1/nodes/{node}/traits/CUSTOM_NVME", "PUT", ironic)
    try:
        browser.get(f"{url}/ui/node.html?node={node}")
        assert wait_loaded(browser) == "true"
        plan = _api(f"{url}/v1/nodes/{node}/runbooks")
        assert plan["driver"] == "ipmi" and len(plan["problems"]) == 2
        wait_until(browser, lambda d: d.find_elements("css selector", "ul.problems li"))
        problems = [e.text for e in browser.find_elements("css selector", "ul.problems li")]
        assert problems == plan["problems"]
        assert accessibility_violations(browser) == []
    finally:
        _api(f"{url}/baremetal/v1/nodes/{node}/traits/CUSTOM_NVME", "DELETE", ironic)
