"""The capacity page in a real browser: it shows what ``flavorsmith capacity -f json`` prints
on the same data, without a console error."""

from __future__ import annotations

import json
from typing import Any

from tests.support.browser import EXAMPLES, console_errors, flavorsmith, screenshot, wait_loaded

MEASURES = ("matching", "available", "exclusive", "shared")


def _shown(browser: Any) -> list[dict[str, Any]]:
    """Every flavor row of the page, as the capacity document's fields."""
    rows: list[dict[str, Any]] = browser.execute_script(
        """
        return [...document.querySelectorAll("section.resource-class tbody tr")].map((row) => {
          const out = {
            flavor: row.dataset.flavor,
            resource_class: row.closest("section").dataset.resourceClass,
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
                **{m: f[m] for m in MEASURES},
            }
            for f in expected["flavors"]
        ),
        key=lambda r: r["flavor"],
    )
    # Grouped by resource class: each class once, in order, and its flavors under it.
    classes = [r["resource_class"] for r in shown]
    assert classes == sorted(classes)
    summary = browser.find_element("id", "summary").text
    assert summary == (
        f"{len(expected['flavors'])} flavors over {expected['nodes']} nodes "
        f"(node generation {expected['generation']})."
    )
    findings = browser.execute_script(
        """
        const out = {};
        for (const section of document.querySelectorAll("[data-finding]")) {
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
    screenshot(browser, "capacity")


def test_the_page_is_usable_from_the_keyboard(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/")
    assert wait_loaded(browser) == "true"
    # Tab order: the skip link first, then the navigation, then the token form.
    focused = []
    body = browser.find_element("tag name", "body")
    for _ in range(7):
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
