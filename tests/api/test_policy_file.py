"""A policy file is checked whole when the service starts: loops, misspelled names, undefined
references and absurd nesting are one line naming the rule, never a 500 (or a RecursionError)
later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flavorsmith.api.app import policy_defaults
from flavorsmith.api.auth import AuthConfigError, Identity, effective_roles
from flavorsmith.api.policy import MAX_DEPTH, Enforcer, PolicyDenied
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
