"""POST /v1/login against the session's real Keystone (tests/support/keystone_api.py): a reader
and an admin log in with their passwords, and the tokens they get back work as X-Auth-Token
with each one's roles; a wrong password is Keystone's refusal (401) that no log line repeats
the password of. Then the dashboard's "Log in" form, in Debian's chromium, on a live
``flavorsmith serve --auth keystone``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from flavorsmith.api.app import create_app
from flavorsmith.api.keystone import KeystoneAuth
from flavorsmith.config import Settings
from flavorsmith.db import migrate
from flavorsmith.db.engine import Engine, make_engine
from tests.conftest import EXAMPLES
from tests.live import serving
from tests.support.browser import (
    accessibility_violations,
    chromium,
    console_errors,
    example_service,
    wait_loaded,
    wait_until,
)
from tests.support.keystone_api import PASSWORD, Keystone

WRONG = "not-the-password-4d9a"


@pytest.fixture(scope="module")
def keystone_conf(keystone: Keystone, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keystone-login-conf") / "flavorsmith.conf"
    path.write_text(keystone.authtoken_section(cache_seconds=5))
    return path


@pytest.fixture(scope="module")
def server(keystone_conf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("keystone-login")
    engine: Engine = make_engine(f"sqlite:///{folder / 'flavorsmith.db'}")
    migrate.upgrade(engine)
    settings = Settings(
        database_url=str(engine.url), auth="keystone", keystone_config=keystone_conf, repo=EXAMPLES
    )
    app = create_app(settings, engine=engine, authenticator=KeystoneAuth.load(keystone_conf))
    with serving(app) as url:
        yield url
    engine.dispose()


def _login(server: str, body: dict[str, Any]) -> requests.Response:
    return requests.post(
        f"{server}/v1/login",
        data=json.dumps(body),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        timeout=30,
    )


def _call(server: str, method: str, path: str, token: str) -> requests.Response:
    return requests.request(
        method, server + path, headers={"X-Auth-Token": token, "Accept": "application/json"}
    )


def test_the_service_says_it_offers_a_login(server: str) -> None:
    answer = requests.get(f"{server}/v1/auth", timeout=30)
    assert answer.status_code == 200
    assert answer.json() == {"auth": "keystone", "login": True}


def test_a_reader_and_an_admin_log_in_and_their_tokens_carry_their_roles(
    server: str, keystone: Keystone
) -> None:
    tokens = {}
    for user, role in (("a-reader", "reader"), ("a-admin", "admin")):
        answer = _login(
            server, {"username": user, "password": PASSWORD, "project_name": "project-a"}
        )
        assert answer.status_code == 200, answer.text
        assert "set-cookie" not in answer.headers
        body = answer.json()
        assert set(body) == {"token", "expires_at", "user", "project", "roles"}
        assert body["user"] == {"id": keystone.users[user], "name": user, "domain": "Default"}
        assert body["project"] == {
            "id": keystone.projects["project-a"],
            "name": "project-a",
            "domain": "Default",
        }
        assert role in body["roles"]
        assert body["expires_at"]
        tokens[user] = body["token"]
    by_id = _login(
        server,
        {
            "username": "a-reader",
            "password": PASSWORD,
            "project_id": keystone.projects["project-a"],
        },
    )
    assert by_id.status_code == 200, by_id.text
    assert by_id.json()["project"]["name"] == "project-a"

    for token in tokens.values():
        assert _call(server, "GET", "/v1/catalog", token).status_code == 200
    refused = _call(server, "POST", "/v1/sync/apply?only=flavors", tokens["a-reader"])
    assert refused.status_code == 403, refused.text
    assert refused.json()["detail"] == "Policy does not allow flavorsmith:sync:apply"
    applied = _call(server, "POST", "/v1/sync/apply?only=flavors", tokens["a-admin"])
    # Applied: the example catalog's private flavor names made-up projects, which Keystone
    # does not know, so that one fails (409) and the others are applied.
    assert applied.status_code == 409, applied.text
    outcomes = {r["outcome"] for r in applied.json()["results"]}
    assert "failed" in outcomes and outcomes - {"failed"}


def test_a_wrong_password_is_keystones_refusal_and_never_logged(
    server: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        answer = _login(
            server, {"username": "a-reader", "password": WRONG, "project_name": "project-a"}
        )
        unknown = _login(
            server, {"username": "a-reader", "password": PASSWORD, "project_name": "no-such"}
        )
    assert answer.status_code == 401, answer.text
    detail = answer.json()["detail"]
    assert detail.startswith(
        "Keystone refused the login (user 'a-reader' of domain 'Default', project 'project-a' "
        "in domain 'Default'): "
    )
    assert "requires authentication" in detail
    assert WRONG not in answer.text and "set-cookie" not in answer.headers
    assert unknown.status_code == 401, unknown.text
    assert unknown.json()["detail"].startswith("Keystone refused the login (user 'a-reader'")
    assert PASSWORD not in unknown.text
    lines = [f"{r.getMessage()} {r.__dict__}" for r in caplog.records]
    assert any("/v1/login" in line for line in lines)  # the access lines were captured
    assert not [line for line in lines if WRONG in line or PASSWORD in line]


# The dashboard's form, on a live `serve --auth keystone` of the example data.


@pytest.fixture(scope="module")
def dashboard(
    keystone_conf: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """(the service's URL, its log file)."""
    folder = tmp_path_factory.mktemp("keystone-dashboard")
    with example_service(folder, "--auth", "keystone", "--keystone-config", str(keystone_conf)) as (
        url,
        _,
    ):
        yield url, folder / "serve.log"


def _fill(browser: Any, password: str) -> None:
    for ident, value in (
        ("login-username", "a-reader"),
        ("login-password", password),
        ("login-project", "project-a"),
    ):
        field = browser.find_element("id", ident)
        field.clear()
        field.send_keys(value)
    field.send_keys("\ue007")  # Enter: the form is submitted from the keyboard


# Who the header says is logged in, its <time>'s datetime, and the line's role.
_WHO = (
    "const w = document.getElementById('who'); const t = w && w.querySelector('time');"
    "return w && [w.textContent, t ? t.getAttribute('datetime') : null, w.getAttribute('role'),"
    " w.closest('header') !== null];"
)
# Whatever this page keeps outside this tab's sessionStorage: cookies and localStorage.
_KEPT = "return [document.cookie, Object.keys(localStorage)];"


def _who(browser: Any) -> Any:
    return browser.execute_script(_WHO)


def _logged_in_line(browser: Any) -> str:
    """The who-line's text once a login's token is held and the page has loaded with it."""
    wait_until(
        browser,
        lambda d: d.execute_script(
            "return sessionStorage.getItem('flavorsmith.token')"
            " && document.body.dataset.loaded === 'true'"
            " && document.getElementById('who').textContent.startsWith('Logged in')"
        ),
        timeout=30,
    )
    held = json.loads(browser.execute_script("return sessionStorage.getItem('flavorsmith.who')"))
    text, when, role, in_header = _who(browser)
    assert (role, in_header) == ("status", True)
    assert held["expires_at"] and when == held["expires_at"]
    assert held == {
        "user": "a-reader",
        "project": "project-a",
        "roles": ["reader"],
        "expires_at": when,
    }
    assert text.startswith("Logged in as a-reader (project project-a; roles: reader), until ")
    assert browser.execute_script(_KEPT) == ["", []]
    return str(text)


def test_the_dashboard_logs_in_through_keystone(
    dashboard: tuple[str, Path], keystone: Keystone
) -> None:
    url, log = dashboard
    with chromium() as browser:
        browser.get(f"{url}/ui/")
        assert wait_loaded(browser) == "error"  # no token yet: 401
        wait_until(browser, lambda d: d.find_elements("id", "login-form"))
        wait_until(
            browser,
            lambda d: (
                d.execute_script("return document.getElementById('status').textContent")
                == "The service needs a token: log in or enter one above (it stays in this tab only)."
            ),
        )
        labels = browser.execute_script(
            "return [...document.querySelectorAll('#login-form input')]"
            ".map((e) => [e.id, e.labels.length ? e.labels[0].textContent : null]);"
        )
        assert labels == [
            ["login-username", "User"],
            ["login-password", "Password"],
            ["login-project", "Project"],
        ]
        assert accessibility_violations(browser) == []

        _fill(browser, WRONG)
        shown = wait_until(
            browser,
            lambda d: d.execute_script(
                "const s = document.getElementById('login-status');"
                "return s.classList.contains('error') ? s.textContent : null;"
            ),
        )
        assert shown.startswith("Keystone refused the login (user 'a-reader'")
        assert browser.find_element("id", "login-status").get_attribute("role") == "alert"
        assert browser.execute_script("return sessionStorage.length") == 0
        assert _who(browser)[0] == ""  # nobody is logged in
        assert accessibility_violations(browser) == []

        _fill(browser, PASSWORD)
        shown = _logged_in_line(browser)
        assert browser.find_element("id", "summary").text  # the capacity data is shown
        wait_until(browser, lambda d: d.find_elements("id", "login-form"))
        assert accessibility_violations(browser) == []
        console_errors(browser)  # the first load's 401 and the refused login are logged

        browser.refresh()  # the same tab: the login and who it is for are kept
        assert _logged_in_line(browser) == shown
        wait_until(browser, lambda d: d.find_elements("id", "login-form"))
        assert accessibility_violations(browser) == []

        browser.find_element("id", "token-forget").click()  # log out
        wait_until(
            browser,
            lambda d: d.execute_script(
                "return sessionStorage.length === 0 && document.body.dataset.loaded === 'error'"
            ),
        )
        assert _who(browser)[0] == ""
        assert browser.execute_script(_KEPT) == ["", []]

        # A token typed in by hand: set, but whose it is is not known here.
        typed = keystone.token("a-reader", project="project-a")
        browser.find_element("id", "token").send_keys(typed, "\ue007")
        wait_until(
            browser,
            lambda d: d.execute_script(
                "return sessionStorage.getItem('flavorsmith.token')"
                " && document.body.dataset.loaded === 'true'"
            ),
        )
        assert _who(browser)[0] == "A token entered by hand is set"
        assert browser.execute_script("return sessionStorage.getItem('flavorsmith.who')") is None
        browser.find_element("id", "token-forget").click()
        wait_until(browser, lambda d: d.execute_script("return sessionStorage.length === 0"))

        # Logged in again, then the token is revoked: once the service refuses it (401), the
        # header no longer says who is logged in; the page says a token is needed.
        _fill(browser, PASSWORD)
        _logged_in_line(browser)
        keystone.revoke(
            browser.execute_script("return sessionStorage.getItem('flavorsmith.token')")
        )
        wait_until(
            browser,
            lambda d: d.execute_script(
                "return document.body.dataset.loaded === 'error'"
                " && document.getElementById('who').textContent === ''"
                " && sessionStorage.getItem('flavorsmith.who') === null"
            ),
            timeout=40,
        )
        assert browser.execute_script(
            "return document.getElementById('status').textContent"
        ).startswith("The service needs a token: log in")
        assert accessibility_violations(browser) == []
        console_errors(browser)  # the revoked token's 401s
    served = log.read_text(encoding="utf-8")
    assert '"path": "/v1/login"' in served  # the access lines of the two logins
    assert PASSWORD not in served and WRONG not in served
