"""The "Flavors by nodes" page in a real browser: it shows /v1/matrix's cells, a filter typed
into its form or a resource class's link narrows the matrix, the groups' traits are whole names
with the differences between neighbours marked, and the headers stay in view."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.dashboard.viewport import viewport
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


def _headings(browser: Any) -> list[dict[str, Any]]:
    """Each group's heading as the page shows it: its chips (the trait each stands for, the
    prefix shown before its run, the name shown, whether it is marked new), the traits its
    class's heading shows once, and whether each chip and prefix sits on one line inside it."""
    shown: list[dict[str, Any]] = browser.execute_script(
        """
        const oneLine = (e, cell) => {
          const rects = e.getClientRects();
          const box = cell.getBoundingClientRect();
          const r = e.getBoundingClientRect();
          return rects.length === 1 && r.left >= box.left - 1 && r.right <= box.right + 1
            && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
        };
        const heads = [...document.querySelectorAll("table.matrix th.class-head")];
        const spans = [];
        for (const head of heads) {
          for (let i = 0; i < Number(head.getAttribute("colspan")); i++) spans.push(head);
        }
        return [...document.querySelectorAll("table.matrix thead th[data-group]")].map(
          (th, i) => ({
            group: th.dataset.group,
            resource_class: spans[i].dataset.resourceClass,
            shared: [...spans[i].querySelectorAll(".chip")].map((c) => c.dataset.trait),
            chips: [...th.querySelectorAll(".chip")].map((c) => {
              const prefix = c.closest(".run").querySelector(".prefix");
              return {
                trait: c.dataset.trait,
                prefix: prefix ? prefix.dataset.prefix : "",
                name: c.querySelector(".name").textContent,
                added: c.classList.contains("added"),
              };
            }),
            whole: [...th.querySelectorAll(".chip .name, .prefix")].every((e) => oneLine(e, th))
              && [...spans[i].querySelectorAll(".chip .name")].every((e) => oneLine(e, spans[i])),
          }));
        """
    )
    return shown


def _check_headings(browser: Any, body: dict[str, Any]) -> None:
    """The group headings say exactly each group's traits, as whole names, and mark the
    traits a group has that the group to its left (in its class) lacks."""
    shown = _headings(browser)
    groups = body["groups"]
    assert [h["group"] for h in shown] == [g["id"] for g in groups]
    for i, (heading, group) in enumerate(zip(shown, groups, strict=True)):
        assert heading["whole"], f"a trait name of group {group['id']} is broken or clipped"
        assert heading["resource_class"] == group["resource_class"]
        for chip in heading["chips"]:
            # A chip is its trait's whole name, less the prefix shown once before its run.
            assert chip["prefix"] + chip["name"] == chip["trait"]
        own = [c["trait"] for c in heading["chips"]]
        assert sorted(own + heading["shared"]) == sorted(group["traits"])
        assert not set(own) & set(heading["shared"])
        left = (
            groups[i - 1]
            if i and shown[i - 1]["resource_class"] == heading["resource_class"]
            else None
        )
        added = {c["trait"] for c in heading["chips"] if c["added"]}
        assert added == (set(own) - set(left["traits"]) if left else set())
    # Every group of a class has the traits its class's heading shows once.
    for heading, group in zip(shown, groups, strict=True):
        assert set(heading["shared"]) <= set(group["traits"])


def test_trait_names_are_whole_and_neighbours_differences_marked(
    service: tuple[str, str], browser: Any
) -> None:
    url, _ = service
    browser.get(f"{url}/ui/matrix.html")
    assert wait_loaded(browser) == "true"
    every = _api(f"{url}/v1/matrix?limit=25")
    _check_headings(browser, every)
    # Some run of traits shares a prefix shown once, and some group adds a trait to its left.
    chips = [c for h in _headings(browser) for c in h["chips"]]
    assert any(c["prefix"] for c in chips) and any(c["added"] for c in chips)

    # One resource class's link: its groups only, and they fit the window's width.
    link = browser.find_element("css selector", "#class-links a[href$='resource_class=m1.small']")
    assert follow(browser, link.click) == "true"
    current = browser.find_element("css selector", "#class-links a[aria-current=page]")
    assert current.text == "m1.small"
    narrowed = _api(f"{url}/v1/matrix?limit=25&resource_class=m1.small")
    assert len(narrowed["groups"]) > 10
    _check_headings(browser, narrowed)
    assert browser.execute_script(
        "const m = document.getElementById('matrix'); return m.scrollWidth <= m.clientWidth;"
    )
    assert console_errors(browser) == []


def test_the_header_row_and_the_flavor_column_stay_in_view(
    service: tuple[str, str], browser: Any
) -> None:
    url, _ = service
    with viewport(browser, 1400, 600):  # a short window: the matrix scrolls down too
        _scrolled_in_view(browser, url)


def _scrolled_in_view(browser: Any, url: str) -> None:
    browser.get(f"{url}/ui/matrix.html")
    assert wait_loaded(browser) == "true"
    # Scrolled right and down inside the matrix: the flavor names and both header rows stay.
    moved = browser.execute_script(
        """
        const box = document.getElementById("matrix");
        box.scrollLeft = box.scrollWidth;
        box.scrollTop = box.scrollHeight;
        return [box.scrollLeft, box.scrollTop];
        """
    )
    assert moved[0] > 0 and moved[1] > 0
    placed = wait_until(
        browser,
        lambda d: d.execute_script(
            """
            const box = document.getElementById("matrix").getBoundingClientRect();
            const name = document.querySelector("table.matrix tbody tr:last-child th")
              .getBoundingClientRect();
            const top = document.querySelector("table.matrix th.class-head:last-of-type")
              .getBoundingClientRect();
            const group = document.querySelector("table.matrix thead th[data-group]:last-child")
              .getBoundingClientRect();
            const near = (a, b) => Math.abs(a - b) <= 2;
            return near(name.left, box.left) && near(top.top, box.top)
              && near(group.top, top.bottom) ? true : null;
            """
        ),
    )
    assert placed
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
