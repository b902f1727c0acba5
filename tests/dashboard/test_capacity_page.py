"""The capacity page in a real browser: it shows what ``flavorsmith capacity -f json`` prints
on the same data, and the drift ``flavorsmith verify -f json`` reports, without a console
error; it follows a node changed through /baremetal without a reload."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from typing import Any

from tests.dashboard.viewport import viewport
from tests.support.browser import (
    EXAMPLES,
    console_errors,
    flavorsmith,
    screenshot,
    wait_loaded,
    wait_until,
)

MEASURES = ("matching", "available", "exclusive", "shared")
# The same counts as `flavorsmith capacity` names them (the API keeps the short names).
CLI_NAMES = {m: f"{m}_nodes" for m in MEASURES}


def _shown(browser: Any) -> list[dict[str, Any]]:
    """Every flavor row of the page, as the capacity document's fields."""
    rows: list[dict[str, Any]] = browser.execute_script(
        """
        return [...document.querySelectorAll("table.capacity tbody tr[data-flavor]")].map((row) => {
          const out = {
            flavor: row.dataset.flavor,
            resource_class: row.closest("tbody").dataset.resourceClass,
            link: row.querySelector("th a").getAttribute("href"),
          };
          for (const cell of row.querySelectorAll("td[data-field]")) {
            out[cell.dataset.field] = Number(cell.querySelector(".num").textContent);
          }
          return out;
        });
        """
    )
    return rows


def test_the_capacity_page_shows_the_capacity_command_s_numbers(
    service: tuple[str, str], browser: Any
) -> None:
    url, database = service
    expected = json.loads(
        flavorsmith("capacity", "--repo", EXAMPLES, "--database", database, "-f", "json")
    )
    browser.get(f"{url}/ui/")
    assert wait_loaded(browser) == "true"
    shown = _shown(browser)
    assert sorted(shown, key=lambda r: r["flavor"]) == sorted(
        (
            {
                "flavor": f["flavor"],
                "resource_class": f["resource_class"],
                "link": f"/ui/flavor.html?name={f['flavor']}",
                **{m: f[CLI_NAMES[m]] for m in MEASURES},
            }
            for f in expected["flavors"]
        ),
        key=lambda r: r["flavor"],
    )
    # Grouped by resource class: each class once, in order, and its flavors under it; the
    # class named once, in its row group's header, and one caption for the whole table.
    classes = [r["resource_class"] for r in shown]
    assert classes == sorted(classes)
    headers = browser.execute_script(
        """return [...document.querySelectorAll("table.capacity tbody")].map(
             (b) => [b.dataset.resourceClass, b.querySelector("th[scope=rowgroup]").textContent]);"""
    )
    assert headers == [[c, f"Resource class {c}"] for c in sorted(set(classes))]
    assert len(browser.find_elements("css selector", "table.capacity caption")) == 1
    summary = browser.find_element("id", "summary").text
    assert summary == (
        f"{len(expected['flavors'])} flavors over {expected['nodes']} nodes "
        f"(node generation {expected['generation']})."
    )
    findings = browser.execute_script(
        """
        const out = {};
        for (const section of document.querySelectorAll(
            "section[data-finding]:not([data-finding=drift])")) {
          out[section.dataset.finding] = [...section.querySelectorAll("li")].map(
            (li) => li.textContent);
        }
        return out;
        """
    )
    found = expected["findings"]
    assert findings == {
        "flavors_without_nodes": found["flavors_without_nodes"],
        "nodes_without_flavor": found["nodes_without_flavor"],
        "resource_classes_without_flavor": found["resource_classes_without_flavor"],
        "traits_no_node_has": [
            f"{trait} required by {', '.join(flavors)}"
            for trait, flavors in found["traits_no_node_has"].items()
        ],
        "pool_leaks": [
            f"{leak['reached_by']} ({leak['audience']}) reaches "
            f"{leak['nodes']} of the {leak['pool_nodes']} nodes of private flavor {leak['pool']}"
            for leak in found["pool_leaks"]
        ],
    }
    assert found["nodes_without_flavor"], "the examples hold nodes no flavor uses"
    assert console_errors(browser) == []
    wait_until(
        browser,
        lambda d: d.execute_script("return document.getElementById('drift').dataset.loaded"),
    )
    screenshot(browser, "capacity")


# A laptop's screen: the summary must be read there without scrolling.
FOLD = (1366, 768)


def test_the_summary_counts_every_finding_above_the_fold(
    service: tuple[str, str], browser: Any
) -> None:
    url, database = service
    expected = json.loads(
        flavorsmith("capacity", "--repo", EXAMPLES, "--database", database, "-f", "json")
    )
    drift = _api(f"{url}/v1/verify")["findings"]
    with viewport(browser, *FOLD):
        browser.get(f"{url}/ui/")
        assert wait_loaded(browser) == "true"
        assert browser.execute_script("return [innerWidth, innerHeight]") == list(FOLD)
        # The drift count is the last to arrive (verify answers after capacity).
        wait_until(
            browser,
            lambda d: d.execute_script(
                "return document.querySelector('[data-count=drift]').dataset.value"
            ),
        )
        counts = browser.execute_script(
            """
            return Object.fromEntries([...document.querySelectorAll("#counts li")].map((li) => {
              const link = li.querySelector("a");
              const target = document.querySelector(link.getAttribute("href"));
              return [li.dataset.count, {
                count: Number(li.querySelector(".n").textContent),
                listed: target.querySelector(".count").textContent,
              }];
            }));
            """
        )
        found = expected["findings"]
        numbers = {key: len(found[key]) for key in found} | {"drift": len(drift)}
        assert (
            set(numbers)
            == set(counts)
            == {
                "nodes_without_flavor",
                "flavors_without_nodes",
                "pool_leaks",
                "drift",
                "resource_classes_without_flavor",
                "traits_no_node_has",
            }
        )
        # Each count is its finding's, and links to that finding's list (which says the same).
        assert counts == {k: {"count": n, "listed": f"({n})"} for k, n in numbers.items()}
        assert numbers["nodes_without_flavor"] > 0 and numbers["drift"] > 0
        sellable = browser.execute_script(
            """
            return [...document.querySelectorAll("#sellable li")].map((li) => {
              const link = li.querySelector("a");
              const row = document.getElementById(link.getAttribute("href").slice(1));
              return [li.dataset.flavor, Number(li.querySelector(".n").textContent),
                      li.querySelector(".of").textContent, row && row.dataset.flavor];
            });
            """
        )
        assert sellable == [
            [f["flavor"], f["available_nodes"], f" of {f['matching_nodes']}", f["flavor"]]
            for f in expected["flavors"]
        ]
        # Everything the summary holds is in the first screen: no scrolling to see it.
        outside = browser.execute_script(
            """
            return [...document.querySelectorAll("#glance a, #glance h2, #glance p")]
              .filter((e) => {
                const r = e.getBoundingClientRect();
                return r.height === 0 || r.top < 0 || r.bottom > innerHeight || r.right > innerWidth;
              })
              .map((e) => e.textContent);
            """
        )
        assert outside == []
        assert browser.execute_script("return scrollY") == 0
        # A count's link takes the reader to its list.
        browser.find_element("css selector", "[data-count=nodes_without_flavor] a").click()
        wait_until(browser, lambda d: d.execute_script("return location.hash"))
        assert browser.execute_script(
            """const r = document.getElementById("finding-nodes_without_flavor")
                 .getBoundingClientRect();
               return location.hash === "#finding-nodes_without_flavor"
                 && r.top >= 0 && r.top < innerHeight;"""
        )
        assert console_errors(browser) == []


def _api(
    url: str, method: str = "GET", headers: dict[str, str] | None = None, data: Any = None
) -> Any:
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


def _drift(browser: Any) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = browser.execute_script(
        """
        return [...document.querySelectorAll("[data-finding=drift] li")].map((li) => ({
          text: li.textContent,
          link: li.querySelector("a") ? li.querySelector("a").getAttribute("href") : null,
        }));
        """
    )
    return shown


def test_the_drift_verify_reports_is_among_the_findings(
    service: tuple[str, str], browser: Any
) -> None:
    url, database = service
    # The example service's Nova has none of the catalog's flavors yet: every one is drift.
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "flavorsmith",
            "verify",
            "--repo",
            str(EXAMPLES),
            "--database",
            database,
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 1, run.stderr  # drift found
    expected = json.loads(run.stdout)["findings"]
    assert expected and {f["kind"] for f in expected} == {"flavor-missing"}
    assert _api(f"{url}/v1/verify")["findings"] == expected
    browser.get(f"{url}/ui/")
    assert wait_loaded(browser) == "true"
    wait_until(
        browser,
        lambda d: d.execute_script("return document.getElementById('drift').dataset.loaded"),
    )
    assert _drift(browser) == [
        {
            "text": f"{f['kind']} {f['subject']}: {f['detail']} \u2014 fix: {f['fix']}",
            "link": f"/ui/flavor.html?name={f['subject']}",
        }
        for f in expected
    ]
    count = browser.find_element("css selector", "[data-finding=drift] .count").text
    assert count == f"({len(expected)})"
    assert console_errors(browser) == []


IRONIC = {"X-OpenStack-Ironic-API-Version": "1.37", "Content-Type": "application/json"}


def test_the_page_follows_a_node_changed_through_baremetal(
    service: tuple[str, str], browser: Any
) -> None:
    url, _ = service
    browser.get(f"{url}/ui/")
    assert wait_loaded(browser) == "true"
    before = _api(f"{url}/v1/capacity")
    assert _shown_numbers(browser) == _numbers(before)
    # A node of a flavor that asks for traits loses them all: that flavor counts one node less.
    flavor = "m1.small.nvme-cx5-no-gpu"
    node = _api(f"{url}/v1/flavors/{flavor}/nodes?limit=1")["nodes"][0]["uuid"]
    traits = _api(f"{url}/baremetal/v1/nodes/{node}/traits", headers=IRONIC)["traits"]
    assert traits
    _api(f"{url}/baremetal/v1/nodes/{node}/traits", "DELETE", IRONIC)
    try:
        after = _api(f"{url}/v1/capacity")
        assert after["generation"] > before["generation"]
        assert _numbers(after)[flavor]["matching"] == _numbers(before)[flavor]["matching"] - 1
        # Shown without a reload, within the page's 5 s poll (and a margin for a busy machine).
        wait_until(browser, lambda d: _shown_numbers(d) == _numbers(after), timeout=10)
        summary = browser.find_element("id", "summary").text
        assert summary.endswith(f"(node generation {after['generation']}).")
    finally:
        _api(f"{url}/baremetal/v1/nodes/{node}/traits", "PUT", IRONIC, {"traits": traits})
    wait_until(browser, lambda d: _shown_numbers(d) == _numbers(before), timeout=10)
    assert console_errors(browser) == []


def _numbers(capacity: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {f["flavor"]: {m: f[m] for m in MEASURES} for f in capacity["flavors"]}


def _shown_numbers(browser: Any) -> dict[str, dict[str, int]]:
    return {r["flavor"]: {m: r[m] for m in MEASURES} for r in _shown(browser)}


def test_the_page_is_usable_from_the_keyboard(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/")
    assert wait_loaded(browser) == "true"
    # Tab order: the skip link first, then the navigation, then the token form.
    focused = []
    body = browser.find_element("tag name", "body")
    for _ in range(8):
        body.send_keys("\ue004")  # Tab
        focused.append(
            browser.execute_script(
                "const e = document.activeElement;"
                "return e.tagName + ':' + (e.textContent || e.getAttribute('aria-label') || e.id);"
            )
        )
        body = browser.switch_to.active_element
    assert focused == [
        "A:Skip to the content",
        "A:Capacity",
        "A:Flavors \u00d7 nodes",
        "A:Sync plan",
        "A:Review",
        "INPUT:token",
        "BUTTON:Use token",
        "BUTTON:Forget token",
    ]
    # Every form control has a label, every table a caption and column headers.
    unlabelled = browser.execute_script(
        "return [...document.querySelectorAll('input, select, textarea')]"
        ".filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))"
        ".map((e) => e.id);"
    )
    assert unlabelled == []
    tables = browser.execute_script(
        "return [...document.querySelectorAll('table')]"
        ".map((t) => [!!t.caption, t.querySelectorAll('thead th[scope=col]').length]);"
    )
    assert tables and all(t == [True, 5] for t in tables)
    assert console_errors(browser) == []
