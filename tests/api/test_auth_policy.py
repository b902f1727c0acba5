"""Authentication (noauth, token file) and policy (defaults, oslo.policy file overrides)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flavorsmith.api.auth import AuthConfigError, Identity, TokenFile, effective_roles
from flavorsmith.api.policy import Enforcer, RuleDefault, parse_check
from tests.api.conftest import PROBE_ROOTS, ClientFactory

TOKENS = {
    "admin": "admin-token",
    "member": "member-token",
    "reader": "reader-token",
    "observer": "observer-token",
}


def test_noauth_makes_everyone_admin(make_client: ClientFactory) -> None:
    client = make_client()
    assert client.post("/v1/catalog/reload").status_code == 200


@pytest.mark.parametrize(
    ("role", "read", "reload"),
    [
        ("admin", 200, 200),
        ("member", 200, 403),
        ("reader", 200, 403),
        ("observer", 200, 403),
        (None, 401, 401),
        ("bogus", 401, 401),
    ],
)
def test_default_policy_by_role(
    make_client: ClientFactory, token_file: Path, role: str | None, read: int, reload: int
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    headers = {"X-Auth-Token": TOKENS.get(role or "", "nope")} if role else {}
    assert client.get("/v1/catalog", headers=headers).status_code == read
    response = client.post("/v1/catalog/reload", headers=headers)
    assert response.status_code == reload
    if reload == 403:
        assert response.json()["detail"] == "Policy does not allow flavorsmith:catalog:reload"
    if reload == 401:
        assert response.json()["detail"] in (
            "Authentication required: send a token in X-Auth-Token",
            "The X-Auth-Token is not valid",
        )


def test_version_documents_and_probes_need_no_token(
    make_client: ClientFactory, token_file: Path
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    for path in (
        "/",
        "/healthz",
        "/baremetal/",
        "/baremetal/v1",
        "/compute/",
        "/compute/v2.1",
        "/load-balancer/",
    ):
        assert client.get(path).status_code == 200, path


def test_policy_file_overrides_defaults(
    make_client: ClientFactory, token_file: Path, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        '"flavorsmith:catalog:get": "role:admin"\n'
        '"flavorsmith:catalog:reload": "rule:catalog_operators"\n'
        '"catalog_operators": "role:admin or (role:member and project_id:p1)"\n'
    )
    client = make_client(auth="token-file", token_file=token_file, policy_file=policy)
    reader = {"X-Auth-Token": "reader-token"}
    member = {"X-Auth-Token": "member-token"}
    assert client.get("/v1/catalog", headers=reader).status_code == 403
    assert client.post("/v1/catalog/reload", headers=member).status_code == 200
    assert client.post("/v1/catalog/reload", headers=reader).status_code == 403


@pytest.mark.parametrize(
    ("family", "check"),
    [
        (
            "baremetal",
            lambda b: (
                json.loads(b["error_message"])["faultstring"]
                == "probe:write is disallowed by policy"
            ),
        ),
        (
            "compute",
            lambda b: (
                b
                == {
                    "forbidden": {
                        "code": 403,
                        "message": "Policy doesn't allow probe:write to be performed.",
                    }
                }
            ),
        ),
        (
            "load-balancer",
            lambda b: b["faultstring"] == "Policy does not allow this request to be performed.",
        ),
        ("native", lambda b: b["detail"] == "Policy does not allow probe:write"),
    ],
)
def test_denied_call_uses_each_api_error_shape(
    make_client: ClientFactory, token_file: Path, family: str, check: object
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    path = f"{PROBE_ROOTS[family]}/probe/write"
    response = client.post(path, headers={"X-Auth-Token": "reader-token"})
    assert response.status_code == 403
    assert check(response.json())  # type: ignore[operator]
    assert client.post(path, headers={"X-Auth-Token": "admin-token"}).status_code == 200


def test_role_implications() -> None:
    assert effective_roles({"admin"}) >= {"admin", "member", "reader", "observer"}
    assert effective_roles({"observer"}) == {"reader", "observer"}
    assert "admin" not in effective_roles({"member"})


@pytest.mark.parametrize(
    ("text", "roles", "project", "expected"),
    [
        ("", set(), None, True),
        ("@", set(), None, True),
        ("!", {"admin"}, None, False),
        ("role:admin", {"admin"}, None, True),
        ("role:admin", {"reader"}, None, False),
        ("role:reader or role:admin", {"reader"}, None, True),
        ("role:member and not role:admin", {"member"}, None, True),
        ("(role:member or role:reader) and project_id:%(project_id)s", {"member"}, "p1", True),
        ("(role:member or role:reader) and project_id:%(project_id)s", {"member"}, "p2", False),
        ("is_admin:True", {"admin"}, None, True),
        ("is_admin:False", {"admin"}, None, False),
    ],
)
def test_check_strings(text: str, roles: set[str], project: str | None, expected: bool) -> None:
    identity = Identity("u", project, effective_roles(roles))
    enforcer = Enforcer([RuleDefault("r", text, "")])
    assert enforcer.check("r", identity.credentials(), {"project_id": "p1"}) is expected


@pytest.mark.parametrize("text", ["role:admin or", "(role:admin", "role", "role:a role:b"])
def test_bad_check_strings_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_check(text)


def test_bad_policy_file_names_the_rule(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text('"flavorsmith:catalog:get": "role:admin or"\n')
    with pytest.raises(AuthConfigError) as caught:
        Enforcer.from_file([RuleDefault("flavorsmith:catalog:get", "role:reader", "")], policy)
    assert str(caught.value) == (
        f"policy file {policy}: rule 'flavorsmith:catalog:get': 'role:admin or': "
        "expected a check, found the end"
    )


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (
            "t1: {user: a, roles: [wizard]}\n",
            "unknown role 'wizard'; allowed: admin, member, reader, observer",
        ),
        ("t1: {user: a, role: [admin]}\n", "unknown key 'role'"),
        ("t1: admin\n", "expected a mapping with user, project and roles"),
        ("- a\n", "the token file must be a mapping"),
    ],
)
def test_bad_token_files(tmp_path: Path, content: str, error: str) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text(content)
    with pytest.raises(AuthConfigError, match=error.replace("[", r"\[").replace("(", r"\(")):
        TokenFile.load(path)


def test_every_rule_has_a_keystone_default() -> None:
    """A route added with a role-only default must get its real service's default under
    Keystone too, or `serve --auth keystone` would enforce a rule nobody defined."""
    from flavorsmith.api.app import policy_defaults

    simple = {rule.name for rule in policy_defaults()}
    keystone = {rule.name for rule in policy_defaults(keystone=True)}
    assert simple <= keystone
