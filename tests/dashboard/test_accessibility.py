"""Every page of the dashboard, checked by axe-core in the browser (tests/support/axe/, shipped
with the tests): no violation of serious or critical impact, as loaded and after the clicks
that add content (Explain on a node, the deploy plan on a flavor)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browser import accessibility_violations, console_errors, wait_loaded, wait_until

PAGES = [
    "/ui/",
    "/ui/matrix.html",
    "/ui/matrix.html?resource_class=m1.small",
    "/ui/node.html?node=dl360-c01-u01",
    "/ui/node.html?node=unknown-z01-u01",
    "/ui/flavor.html?name=c2.large.vmx-mirror",
    "/ui/flavor.html?name=no-such-flavor",
    "/ui/sync.html",
    "/ui/sync.html?only=deploy-templates",
    "/ui/review.html",
    "/ui/review.html?base=HEAD",
]


@pytest.mark.parametrize("page", PAGES)
def test_no_serious_accessibility_violation(
    service: tuple[str, str], browser: Any, page: str
) -> None:
    url, _ = service
    browser.get(f"{url}{page}")
    wait_loaded(browser)
    assert accessibility_violations(browser) == []
    console_errors(browser)  # the unknown flavor's 404s: test_flavor_page checks them


def test_after_the_clicks_that_add_content(service: tuple[str, str], browser: Any) -> None:
    url, _ = service
    browser.get(f"{url}/ui/node.html?node=dl360-c01-u01")
    assert wait_loaded(browser) == "true"
    browser.find_element("css selector", "table.whynot tbody tr button").click()
    wait_until(browser, lambda d: d.find_elements("css selector", "ul.explain li"))
    assert accessibility_violations(browser) == []

    browser.get(f"{url}/ui/flavor.html?name=c2.large.vmx-mirror")
    assert wait_loaded(browser) == "true"
    browser.find_element("id", "plan-deploy").click()
    wait_until(browser, lambda d: d.find_elements("css selector", "table.plan"))
    assert accessibility_violations(browser) == []
    assert console_errors(browser) == []
