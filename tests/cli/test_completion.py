"""Shell completion, driven as a shell drives it: the command run again with
``_FLAVORSMITH_COMPLETE`` and the words typed so far."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, Invoke

EXAMPLE_FLAVORS = [
    "c2.diskless",
    "c2.large",
    "c2.large.novmx-stripe",
    "c2.large.vmx-mirror",
    "g1.8xh100",
    "m1.medium",
    "m1.medium.dedicated",
    "m1.small",
    "m1.small.mellanox-cx5",
    "m1.small.nicX",
    "m1.small.no-gpu",
    "m1.small.nvme-cx5-no-gpu",
]


def complete(
    words: str, *, instruction: str = "bash_complete", **env: str
) -> subprocess.CompletedProcess[str]:
    """What bash gets back for ``words`` (the last word is the one being completed)."""
    typed = words.split(" ")
    result = subprocess.run(
        [sys.executable, "-m", "flavorsmith"],
        env={
            **os.environ,
            "_FLAVORSMITH_COMPLETE": instruction,
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(typed) - 1),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stderr == ""
    return result


def suggestions(words: str, **env: str) -> list[str]:
    """The whole answer, one suggestion a line (an empty line: none)."""
    answer = complete(words, **env).stdout
    assert answer.endswith("\n")
    return answer[:-1].split("\n") if answer != "\n" else []


def test_flavor_names_from_the_catalog_of_repo() -> None:
    assert suggestions(f"flavorsmith match --repo {EXAMPLES} --flavor ") == EXAMPLE_FLAVORS
    assert suggestions(f"flavorsmith flavor show --repo {EXAMPLES} c2.l") == [
        "c2.large",
        "c2.large.novmx-stripe",
        "c2.large.vmx-mirror",
    ]


def test_flavor_names_from_the_repository_in_the_environment() -> None:
    assert suggestions("flavorsmith explain g", FLAVORSMITH_REPO=str(EXAMPLES)) == ["g1.8xh100"]


def test_a_broken_catalog_gives_no_suggestions_and_no_error(tmp_path: Path) -> None:
    flavors = tmp_path / "hardware" / "flavors"
    flavors.mkdir(parents=True)
    (flavors / "bad.yaml").write_bytes(b"\x00\xff{[: &a *a\n")
    assert suggestions(f"flavorsmith match --repo {tmp_path} --flavor ") == []
    assert suggestions(f"flavorsmith match --repo {tmp_path / 'absent'} --flavor ") == []


def test_node_names_from_the_database(cli: Invoke, tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    assert (
        cli("node", "import", str(EXAMPLES / "nodes.yaml"), "--database", database).exit_code == 0
    )
    assert suggestions(f"flavorsmith match --database {database} --node xe9680-g01-u0") == [
        "xe9680-g01-u06"
    ]
    assert suggestions(f"flavorsmith node trait list --database {database} unknown") == [
        "unknown-z01-u01",
        "unknown-z01-u02",
        "unknown-z01-u03",
        "unknown-z01-u04",
    ]


def test_node_names_never_create_a_database(tmp_path: Path) -> None:
    database = tmp_path / "absent.db"
    assert suggestions(f"flavorsmith match --database sqlite:///{database} --node ") == []
    assert list(tmp_path.iterdir()) == []


def test_cloud_names_from_clouds_yaml(tmp_path: Path) -> None:
    clouds = tmp_path / "clouds.yaml"
    clouds.write_text("clouds:\n  production: {}\n  lab: {}\n  lab2: {}\n")
    env = {"OS_CLIENT_CONFIG_FILE": str(clouds)}
    assert suggestions("flavorsmith sync plan --cloud ", **env) == ["lab", "lab2", "production"]
    assert suggestions("flavorsmith serve --ironic-cloud p", **env) == ["production"]
    clouds.write_text("clouds: [\n")
    assert suggestions("flavorsmith sync plan --cloud ", **env) == []


def test_typer_spelling_of_the_instruction_and_commands() -> None:
    result = complete("flavorsmith sy", instruction="complete_bash")
    assert result.stdout.splitlines() == ["sync"]


def test_the_service_flavor_file_groups_and_their_verbs() -> None:
    assert suggestions("flavorsmith load") == ["load-balancer-flavor"]
    assert suggestions("flavorsmith netw") == ["network-flavor"]
    for group in ("load-balancer-flavor", "network-flavor"):
        assert suggestions(f"flavorsmith {group} ") == ["validate", "add", "list", "show", "delete"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_script_of_each_shell(cli: Invoke, shell: str) -> None:
    result = cli("completion", shell)
    assert result.exit_code == 0
    assert "_FLAVORSMITH_COMPLETE=complete_" + shell in result.stdout


def test_completion_refuses_an_unknown_shell(cli: Invoke) -> None:
    result = cli("completion", "tcsh")
    assert result.exit_code == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.output
