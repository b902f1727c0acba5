"""A policy file is checked whole when the service starts: loops, misspelled names, undefined
references and absurd nesting are one line naming the rule, never a 500 (or a RecursionError)
later."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flavorsmith.api.app import policy_defaults
from flavorsmith.api.auth import AuthConfigError, Identity, effective_roles
from flavorsmith.api.policy import MAX_DEPTH, Enforcer, PolicyDenied
from tests.api.conftest import ClientFactory
from tests.conftest import EXAMPLES

GET = "flavorsmith:catalog:get"
RELOAD = "flavorsmith:catalog:reload"
DEEP = "(" * 5000 + "role:admin" + ")" * 5000


def _chain(length: int) -> str:
    lines = [f'"{GET}": "rule:step0"']
    lines += [f'"step{i}": "rule:step{i + 1}"' for i in range(length)]
    lines.append(f'"step{length}": "role:reader"')
    return "\n".join(lines) + "\n"


BAD_FILES = [
    (f'"{GET}": "rule:{GET}"\n', f"rule '{GET}': refers to itself (rule:{GET})"),
    (
        f'"{GET}": "rule:a"\n"a": "rule:b"\n"b": "rule:a"\n',
        "rule 'a': rules refer to each other in a loop: a -> b -> a",
    ),
    (
        f'"{GET}": "rule:{RELOAD}"\n"{RELOAD}": "role:admin or rule:{GET}"\n',
        f"rule '{GET}': rules refer to each other in a loop: {GET} -> {RELOAD} -> {GET}",
    ),
    (
        '"flavorsmith:catalog:relaod": "role:admin"\n',
        "rule 'flavorsmith:catalog:relaod': no such rule is registered and no rule refers "
        f"to it; did you mean '{RELOAD}'?",
    ),
    ('"nobody_uses_me": "role:admin"\n', "rule 'nobody_uses_me': no such rule is registered"),
    (
        f'"{GET}": "role:reader or rule:catalog_reader"\n"catalog_readers": "role:reader"\n',
        f"rule '{GET}': refers to rule:catalog_reader, which is not defined; "
        "did you mean 'catalog_readers'?",
    ),
    (
        f'"{GET}": "{DEEP}"\n',
        f"rule '{GET}': '{'(' * 80}…': nested more than {MAX_DEPTH} levels deep (parentheses "
        "and 'not'); simplify it or split it into rules that refer to each other",
    ),
    (
        f'"{GET}": "{"not " * 5000}role:admin"\n',
        f"rule '{GET}': '{('not ' * 20)}…': nested more than {MAX_DEPTH} levels deep",
    ),
    (
        _chain(MAX_DEPTH + 5),  # step55 down to step4 is 51 references deep
        f"rule 'step4': nested more than {MAX_DEPTH} levels deep (parentheses, 'not' and "
        "rule: references together); simplify it",
    ),
]

IDS = [
    "self",
    "loop-of-aliases",
    "loop-through-defaults",
    "misspelled",
    "unreferenced",
    "undefined-reference",
    "deep-parentheses",
    "deep-not",
    "deep-references",
]


@pytest.mark.parametrize(("content", "message"), BAD_FILES, ids=IDS)
def test_a_bad_policy_file_is_refused_naming_the_rule(
    tmp_path: Path, content: str, message: str
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(content)
    with pytest.raises(AuthConfigError) as caught:
        Enforcer.from_file(policy_defaults(), policy)
    assert str(caught.value).startswith(f"policy file {policy}: {message}")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [BAD_FILES[0], BAD_FILES[3], BAD_FILES[6]],
    ids=[IDS[0], IDS[3], IDS[6]],
)
def test_serve_refuses_to_start_with_one_line(tmp_path: Path, content: str, message: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(content)
    command = [sys.executable, "-m", "flavorsmith", "serve", "--port", "0", "--repo", str(EXAMPLES)]
    command += ["--database", f"sqlite:///{tmp_path / 'serve.db'}", "--policy-file", str(policy)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired as exc:  # it started serving instead of refusing
        pytest.fail(f"serve did not refuse the policy file: {exc.stderr!r}")
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(f"error: policy file {policy}: {message}")
    assert "Traceback" not in result.stderr
    assert "serving on" not in result.stderr


def _identity(role: str, project: str | None = "p1") -> Identity:
    return Identity("u", project, effective_roles({role}))


def test_aliases_that_are_referred_to_are_accepted(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(_chain(MAX_DEPTH - 5))
    enforcer = Enforcer.from_file(policy_defaults(), policy)
    enforcer.authorize(GET, _identity("reader"))


def test_wide_rules_are_accepted_and_evaluated(tmp_path: Path) -> None:
    """Breadth is not depth: 20,000 alternatives evaluate without touching the stack limit."""
    policy = tmp_path / "policy.yaml"
    alternatives = " or ".join(f"role:r{i}" for i in range(20_000))
    policy.write_text(f'"{GET}": "{alternatives} or role:member"\n')
    enforcer = Enforcer.from_file(policy_defaults(), policy)
    enforcer.authorize(GET, _identity("member"))
    with pytest.raises(PolicyDenied):
        enforcer.authorize(GET, _identity("reader"))


def test_nesting_up_to_the_limit_is_accepted(tmp_path: Path) -> None:
    depth = MAX_DEPTH - 1
    policy = tmp_path / "policy.yaml"
    policy.write_text(f'"{GET}": "{"(" * depth}role:member{")" * depth}"\n')
    Enforcer.from_file(policy_defaults(), policy).authorize(GET, _identity("admin"))


# The example rule of docs/how-to/policy.md, and its variant for one named project.
README_RULE = "role:admin or (role:member and project_id:%(project_id)s)"
OPS_ONLY = "role:admin or (role:member and project_id:ops)"
WRITE_RULES = (
    "baremetal:node:create",
    "os_compute_api:os-flavor-manage:create",
    "os_load-balancer_api:flavor-profile:post",
    RELOAD,
)
TOKENS = (
    "ops-member: {user: bob, project: ops, roles: [member]}\n"
    "p1-member: {user: erin, project: p1, roles: [member]}\n"
    "p1-reader: {user: carol, project: p1, roles: [reader]}\n"
    "no-project-member: {user: frank, roles: [member]}\n"
)


def _write_in_every_family(client: TestClient, token: str) -> list[int]:
    name = f"policy-{uuid.uuid4().hex[:8]}"
    headers = {"X-Auth-Token": token}
    ironic = {**headers, "X-OpenStack-Ironic-API-Version": "1.81"}
    flavor = {"flavor": {"name": name, "ram": 512, "vcpus": 1, "disk": 1}}
    profile = {"flavorprofile": {"name": name, "provider_name": "noop", "flavor_data": "{}"}}
    responses = [
        client.post("/baremetal/v1/nodes", json={"driver": "fake-hardware"}, headers=ironic),
        client.post("/compute/v2.1/flavors", json=flavor, headers=headers),
        client.post("/load-balancer/v2/lbaas/flavorprofiles", json=profile, headers=headers),
        client.post("/v1/catalog/reload", headers=headers),
    ]
    return [r.status_code for r in responses]


@pytest.mark.parametrize(
    ("rule", "token", "allowed"),
    [
        (README_RULE, "ops-member", True),
        (README_RULE, "p1-member", True),
        (README_RULE, "p1-reader", False),
        (README_RULE, "no-project-member", False),
        (OPS_ONLY, "ops-member", True),
        (OPS_ONLY, "p1-member", False),
    ],
)
def test_the_readme_policy_example(
    make_client: ClientFactory, tmp_path: Path, rule: str, token: str, allowed: bool
) -> None:
    """``project_id:%(project_id)s`` compares the caller's project with the target's; objects
    here belong to no project, so the target carries the caller's own (as in Nova, Ironic and
    Octavia) and the rule reads "a member acting within a project"."""
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(TOKENS)
    policy = tmp_path / "policy.yaml"
    policy.write_text("".join(f'"{name}": "{rule}"\n' for name in WRITE_RULES))
    Enforcer.from_file(policy_defaults(), policy)  # the file is valid as it stands
    client = make_client(auth="token-file", token_file=tokens, policy_file=policy)
    statuses = _write_in_every_family(client, token)
    if allowed:
        assert statuses == [201, 200, 201, 200]
    else:
        assert statuses == [403, 403, 403, 403]
