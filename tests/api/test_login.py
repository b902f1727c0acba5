"""GET /v1/auth and POST /v1/login without a real Keystone: the auth mode each service says,
the 404 of a service that does not run Keystone auth, and under Keystone (its auth_url on a
closed loopback port) every refusal the login makes before and while asking Keystone: 415,
400 naming the field, 503 when Keystone cannot be reached. No answer sets a cookie, and no
answer or log line holds the password."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from flavorsmith.api.app import create_app
from flavorsmith.api.keystone import KeystoneAuth
from flavorsmith.config import Settings
from tests.api.conftest import ClientFactory
from tests.conftest import EXAMPLES

PASSWORD = "pw-never-shown-7c1e"
GOOD = {"username": "alice", "password": PASSWORD, "project_name": "project-a"}
JSON = {"Content-Type": "application/json"}


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def keystone_client(migrated_engine: Engine, tmp_path: Path) -> Iterator[TestClient]:
    """A service under Keystone auth whose Keystone cannot be reached."""
    url = f"http://127.0.0.1:{_closed_port()}/v3"
    conf = tmp_path / "flavorsmith.conf"
    conf.write_text(
        "[keystone_authtoken]\n"
        f"www_authenticate_uri = {url}\n"
        f"auth_url = {url}\n"
        "auth_type = password\n"
        "username = flavorsmith\n"
        "password = service-secret\n"
        "user_domain_id = default\n"
        "project_name = service\n"
        "project_domain_id = default\n"
        "http_connect_timeout = 2\n"
    )
    settings = Settings(
        database_url=str(migrated_engine.url), auth="keystone", keystone_config=conf, repo=EXAMPLES
    )
    app = create_app(settings, engine=migrated_engine, authenticator=KeystoneAuth.load(conf))
    with TestClient(app) as client:
        yield client


def _login(client: TestClient, body: Any, **headers: str) -> Any:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/v1/login", content=content, headers={**JSON, **headers})


def _detail(response: Any) -> str:
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == response.status_code
    assert "set-cookie" not in response.headers
    assert PASSWORD not in response.text
    return str(body["detail"])


def test_auth_says_noauth_and_offers_no_login(client: TestClient) -> None:
    answer = client.get("/v1/auth")
    assert answer.status_code == 200
    assert answer.json() == {"auth": "noauth", "login": False}
    refused = _login(client, GOOD)
    assert refused.status_code == 404
    assert _detail(refused) == (
        "No login here: this service does not run Keystone auth (it runs noauth); "
        "send a token in X-Auth-Token instead"
    )


def test_static_tokens_need_no_token_to_say_so(
    make_client: ClientFactory, token_file: Path
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    answer = client.get("/v1/auth")  # no X-Auth-Token: the page asks before it has one
    assert answer.status_code == 200
    assert answer.json() == {"auth": "static token", "login": False}
    refused = _login(client, GOOD)
    assert refused.status_code == 404
    assert "(it runs static token)" in _detail(refused)
    assert client.get("/v1/catalog").status_code == 401  # everything else still needs one


def test_keystone_offers_a_login(keystone_client: TestClient) -> None:
    answer = keystone_client.get("/v1/auth")
    assert answer.status_code == 200
    assert answer.json() == {"auth": "keystone", "login": True}
    assert keystone_client.get("/v1/auth?x=1").status_code == 400


def test_a_body_that_is_not_json_is_415(keystone_client: TestClient) -> None:
    for content_type in ("application/xml", "application/octet-stream", ""):
        refused = keystone_client.post(
            "/v1/login", content=json.dumps(GOOD).encode(), headers={"Content-Type": content_type}
        )
        assert refused.status_code == 415, content_type
        assert "send application/json" in _detail(refused)


def test_a_form_post_is_refused_as_cross_site(keystone_client: TestClient) -> None:
    refused = keystone_client.post(
        "/v1/login", content=b"username=a", headers={"Content-Type": "text/plain"}
    )
    assert refused.status_code == 403
    assert "send application/json" in _detail(refused)
    foreign = _login(keystone_client, GOOD, Origin="https://evil.example")
    assert foreign.status_code == 403
    assert "Cross-site request refused" in _detail(foreign)


BAD_BODIES: list[tuple[Any, str]] = [
    (b"{", "Malformed JSON in the request body"),
    (b"", "The request body is empty"),
    ([], "The login must be a JSON object with username, password"),
    ({"password": PASSWORD, "project_name": "p"}, "The login needs 'username'"),
    ({"username": "alice", "project_name": "p"}, "The login needs 'password'"),
    ({**GOOD, "username": 7}, "The login's 'username' must be a string, not a number"),
    ({**GOOD, "password": None}, "The login's 'password' must be a string, not null"),
    ({**GOOD, "password": [PASSWORD]}, "The login's 'password' must be a string, not a list"),
    ({**GOOD, "project_name": ""}, "The login's 'project_name' is empty"),
    ({**GOOD, "username": "   "}, "The login's 'username' is empty"),
    ({**GOOD, "user_domain_name": True}, "'user_domain_name' must be a string, not a boolean"),
    ({**GOOD, "username": "a" * 256}, "'username' is longer than 255 characters"),
    ({**GOOD, "username": "al\nice"}, "'username' holds a control character"),
    (
        {"username": "alice", "password": PASSWORD},
        "exactly one of 'project_name' and 'project_id'",
    ),
    ({**GOOD, "project_id": "abc"}, "exactly one of 'project_name' and 'project_id'"),
    (
        {"username": "a", "password": PASSWORD, "project_id": "x", "project_domain_name": "D"},
        "with 'project_id' leave it out",
    ),
    ({**GOOD, "domain": "Default"}, "Unknown field 'domain' in the login; allowed: username"),
]


@pytest.mark.parametrize(("body", "expected"), BAD_BODIES)
def test_a_bad_field_is_400_naming_it(
    keystone_client: TestClient, body: Any, expected: str
) -> None:
    refused = _login(keystone_client, body)
    assert refused.status_code == 400, refused.text
    assert expected in _detail(refused)


def test_an_unreachable_keystone_is_503_and_the_password_is_never_logged(
    keystone_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        for body in (GOOD, {"username": "a", "password": PASSWORD, "project_id": "p1"}):
            answer = _login(keystone_client, body)
            assert answer.status_code == 503, answer.text
            assert answer.headers["retry-after"] == "5"
            detail = _detail(answer)
            assert detail.startswith("Keystone at http://127.0.0.1:")
            assert "cannot be reached for the login" in detail
    logged = "\n".join(f"{record.getMessage()} {record.__dict__}" for record in caplog.records)
    assert "/v1/login" in logged  # the access lines were captured
    assert PASSWORD not in logged
