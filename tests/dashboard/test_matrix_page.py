"""The "Flavors by nodes" page in a real browser: it shows /v1/matrix's cells, and a filter typed
into its form narrows the matrix."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.browser import console_errors, follow, screenshot, wait_loaded, wait_until


def _api(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: dict[str, Any] = json.loads(response.read())
        return body


def _table(browser: Any) -> dict[str, Any]:
    """The matrix as the page shows it: the group columns, and each flavor's cells."""
    shown: dict[str, Any] = browser.execute_script(
        """
        const groups = [...document.querySelectorAll("table.matrix thead th[data-group]")]
          .map((th) => th.dataset.group);
        const rows = {};
        for (const row of document.querySelectorAll("table.matrix tbody tr")) {
          rows[row.dataset.flavor] = [...row.querySelectorAll("td.cell")].map((td) =>
            td.textContent === "\u2013" ? 0 : Number(td.textContent.replace("\u2713 ", "")));
        }
        return {groups, rows};
        """
    )
    return shown


def _expected(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "groups": [g["id"] for g in body["groups"]],
        "rows": {f["flavor"]: f["cells"] for f in body["flavors"]},
    }


def test_a_filter_narrows_the_matrix(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/matrix.html")
    assert wait_loaded(browser) == "true"
    every = _api(f"{url}/v1/matrix?limit=25")
    assert _table(browser) == _expected(every)
    assert len(every["groups"]) > 1
    assert console_errors(browser) == []

    # Type a resource class and press Enter: the page reloads with the filter in its address.
    field = browser.find_element("id", "resource_class")
    assert follow(browser, lambda: field.send_keys("m1.small\n")) == "true"
    assert "resource_class=m1.small" in browser.current_url
    narrowed = _api(f"{url}/v1/matrix?limit=25&resource_class=m1.small")
    shown = _table(browser)
    assert shown == _expected(narrowed)
    assert 0 < len(shown["groups"]) < every["group_count"]
    assert {g["resource_class"] for g in narrowed["groups"]} == {"m1.small"}
    assert browser.find_element("id", "resource_class").get_attribute("value") == "m1.small"
    summary = browser.find_element("id", "summary").text
    assert summary.startswith(f"{narrowed['nodes']} nodes in {narrowed['group_count']} groups")
    assert narrowed["nodes"] < every["nodes"]
    assert console_errors(browser) == []
    screenshot(browser, "matrix")


def test_the_groups_page_with_links(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    every = _api(f"{url}/v1/matrix")
    browser.get(f"{url}/ui/matrix.html")
    assert wait_loaded(browser) == "true"
    seen: list[str] = []
    while True:
        seen += _table(browser)["groups"]
        following = browser.find_elements("css selector", "#pager a[rel=next]")
        if not following:
            break
        assert follow(browser, following[0].click) == "true"
    assert seen == [g["id"] for g in every["groups"]]
    assert console_errors(browser) == []


IRONIC = {"X-OpenStack-Ironic-API-Version": "1.37", "Content-Type": "application/json"}


def _call(url: str, method: str, data: Any = None) -> Any:
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, method=method, headers=IRONIC, data=body)
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


def test_the_matrix_follows_a_node_changed_through_baremetal(
    service: tuple[str, str], browser: Any
) -> None:
    url, _ = service
    browser.get(f"{url}/ui/matrix.html?resource_class=m1.small")
    assert wait_loaded(browser) == "true"
    query = f"{url}/v1/matrix?limit=25&resource_class=m1.small"
    before = _api(query)
    assert _table(browser) == _expected(before)
    # Someone is typing a filter: the live redraw leaves the field, its text and focus alone.
    typing = browser.find_element("id", "trait")
    typing.send_keys("CUSTOM_")
    # A node of a flavor that asks for traits loses them all: it joins another group, and that
    # flavor's cells count one node less.
    flavor = "m1.small.nvme-cx5-no-gpu"
    node = _api(f"{url}/v1/flavors/{flavor}/nodes?limit=1")["nodes"][0]["uuid"]
    traits = _call(f"{url}/baremetal/v1/nodes/{node}/traits", "GET")["traits"]
    _call(f"{url}/baremetal/v1/nodes/{node}/traits", "DELETE")
    try:
        after = _api(query)
        assert _expected(after) != _expected(before)
        total = {f["flavor"]: f["nodes"] for f in after["flavors"]}
        assert total[flavor] == {f["flavor"]: f["nodes"] for f in before["flavors"]}[flavor] - 1
        # Shown without a reload, within the page's 5 s poll (and a margin for a busy machine).
        wait_until(browser, lambda d: _table(d) == _expected(after), timeout=10)
        assert typing.get_attribute("value") == "CUSTOM_"  # the same element: not drawn again
        assert browser.execute_script("return document.activeElement.id") == "trait"
    finally:
        _call(f"{url}/baremetal/v1/nodes/{node}/traits", "PUT", {"traits": traits})
    wait_until(browser, lambda d: _table(d) == _expected(_api(query)), timeout=10)
    assert console_errors(browser) == []
