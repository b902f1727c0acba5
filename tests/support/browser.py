"""A real browser for the dashboard's tests: Debian's ``chromium`` driven through its
``chromium-driver`` by Selenium, headless, against a live ``flavorsmith serve``.

Both packages are installed with apt-get when ``/usr/bin/chromium`` or ``/usr/bin/chromedriver``
is missing (about 130 MB to download, 440 MB on disk, once per machine); the tests are skipped,
with the reason, when that cannot be done. Selenium is given both paths explicitly and runs
offline: Selenium Manager never downloads a browser or a driver."""

from __future__ import annotations

import atexit
import base64
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.serve import serve_process

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PACKAGES = ("chromium", "chromium-driver")
INSTALL_TIMEOUT = 900  # seconds for apt-get: a slow mirror, not a hung one
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
# Where the tests write each page's screenshot: FLAVORSMITH_SCREENSHOTS=DIR (docs/screenshots to
# refresh the committed ones), else a temporary folder, so a test run leaves the tree clean.
SCREENSHOTS_ENV = "FLAVORSMITH_SCREENSHOTS"


def _apt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["apt-get", *args],
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )


def ensure_chromium() -> None:
    """Install Debian's chromium and chromium-driver when either is missing; skip the test
    (saying why) when that is not possible here."""
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    if shutil.which("apt-get") is None:
        pytest.skip(f"{CHROMIUM} or {CHROMEDRIVER} is missing and there is no apt-get")
    if os.geteuid() != 0:
        pytest.skip(f"{CHROMIUM} or {CHROMEDRIVER} is missing; installing them needs root")
    install = ("install", "-y", "--no-install-recommends", *PACKAGES)
    try:
        done = _apt(*install)
        if done.returncode != 0:  # stale package lists: refresh them once
            _apt("update")
            done = _apt(*install)
    except subprocess.TimeoutExpired:
        pytest.skip(f"apt-get install {' '.join(PACKAGES)} took over {INSTALL_TIMEOUT} s")
    if done.returncode != 0 or not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        pytest.skip(f"apt-get install {' '.join(PACKAGES)} failed: {' / '.join(tail)}")


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A headless chromium session (Selenium's WebDriver), its browser log recorded."""
    ensure_chromium()
    pytest.importorskip("selenium", reason="the browser tests need selenium (test extras)")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager: never download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",  # the tests may run as root, where chromium's sandbox refuses to start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # get() and refresh() return once the document is parsed and its scripts have run, not at
    # the load event: every test then waits explicitly on what it checks (``wait_loaded``,
    # ``wait_until``), and a slow load on a busy machine is a wait, not a renderer timeout.
    options.page_load_strategy = "eager"
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)  # axe-core runs as an asynchronous script
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The browser log's errors since the last call (each read empties the log)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


AXE = Path(__file__).resolve().parent / "axe" / "axe.min.js"
# What fails a page: axe-core's violations of these impacts (minor and moderate are reported by
# axe-core as advice and left to review).
AXE_IMPACTS = ("serious", "critical")


def accessibility_violations(driver: Any, impacts: tuple[str, ...] = AXE_IMPACTS) -> list[str]:
    """axe-core's violations of the page as it is now (its WCAG 2.x A and AA rules and best
    practices) of the given impacts, one line each: the rule, its impact, the elements, its
    help. axe-core is injected through WebDriver (tests/support/axe/, shipped with the tests:
    nothing is fetched, and the pages' Content-Security-Policy does not apply to it)."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        window.axe
          .run(document, { resultTypes: ["violations"] })
          .then((r) => done(r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            targets: v.nodes.map((n) => n.target.join(" ")),
          }))))
          .catch((e) => done({ error: String(e) }));
        """
    )
    assert not isinstance(result, dict), f"axe-core failed: {result}"
    return [
        f"{v['id']} ({v['impact']}): {', '.join(v['targets'][:5])}: {v['help']}"
        for v in result
        if v["impact"] in impacts
    ]


def wait_loaded(driver: Any, timeout: float = 15) -> str:
    """Wait until the page's script marks it loaded (``body[data-loaded]``); its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    found: str = WebDriverWait(driver, timeout).until(
        lambda d: d.execute_script("return document.body.dataset.loaded || null")
    )
    return found


def wait_until(driver: Any, condition: Any, timeout: float = 15) -> Any:
    """Wait until ``condition(driver)`` is true; its value. A condition that reads an element
    the page has just drawn again (a live redraw between finding it and reading it) is asked
    again at the next poll, as one that finds nothing yet is."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(
        driver, timeout, ignored_exceptions=(StaleElementReferenceException,)
    ).until(condition)


def follow(driver: Any, action: Any, timeout: float = 15) -> str:
    """Do ``action`` (a click, a key press) that loads another page; wait until the old page is
    gone and the new one is loaded; its ``body[data-loaded]``."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    old = driver.find_element("tag name", "html")
    action()
    WebDriverWait(driver, timeout).until(expected_conditions.staleness_of(old))
    return wait_loaded(driver, timeout)


_temporary_screenshots: Path | None = None


def screenshots_folder() -> Path:
    """``$FLAVORSMITH_SCREENSHOTS`` when set (made if missing), else one temporary folder
    for the run (removed when it ends)."""
    global _temporary_screenshots
    chosen = os.environ.get(SCREENSHOTS_ENV)
    if chosen:
        folder = Path(chosen).resolve()
    else:
        if _temporary_screenshots is None:
            _temporary_screenshots = Path(tempfile.mkdtemp(prefix="flavorsmith-screenshots-"))
            atexit.register(shutil.rmtree, _temporary_screenshots, ignore_errors=True)
        folder = _temporary_screenshots
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def screenshot(driver: Any, name: str, max_height: int = 2000) -> Path:
    """The page (its first ``max_height`` pixels) as NAME.png in :func:`screenshots_folder`.
    With FLAVORSMITH_SCREENSHOTS=docs/screenshots these are the images the docs show."""
    width, height = driver.execute_script(
        "const e = document.documentElement; return [e.scrollWidth, e.scrollHeight];"
    )
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": min(height, max_height), "scale": 1},
        },
    )
    path = screenshots_folder() / f"{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def flavorsmith(*args: str | Path, env: dict[str, str] | None = None) -> str:
    """Run the CLI (as an operator would) and return its output; fail the test on an error."""
    done = subprocess.run(
        [sys.executable, "-m", "flavorsmith", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextmanager
def example_service(
    folder: Path, *serve_args: str, nodes: bool = True
) -> Iterator[tuple[str, str]]:
    """A live ``flavorsmith serve`` on a free loopback port, on its own SQLite database holding
    the example nodes (none without ``nodes``), with the example catalog: (its URL, the
    database URL)."""
    database = f"sqlite:///{folder / 'flavorsmith.db'}"
    home = folder / "home"
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    if nodes:
        flavorsmith("node", "import", EXAMPLES / "nodes.yaml", "--database", database, env=env)
    with serve_process(folder, "--database", database, *serve_args, home=home) as served:
        yield served.url, database
