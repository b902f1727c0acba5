"""The catalog loader reads only what is safe to read, and quotes only short escaped excerpts:
links out of the repository are refused unread (links that stay inside, as Kubernetes'
ConfigMap volumes are made, are followed), a file's size is checked before it is read, and no
diagnostic carries a control character or a long value, whether printed by `flavorsmith
validate` or served by `GET /v1/catalog`."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from flavorsmith.catalog.document import MAX_FILE_BYTES
from flavorsmith.catalog.kinds import FLAVOR
from flavorsmith.catalog.load import load_file
from flavorsmith.diagnostics import MAX_MESSAGE, Diagnostic
from tests.api.conftest import ClientFactory
from tests.conftest import Invoke
from tests.support.catalogs import RULES

SECRET = "s3cr3t-first-line-of-a-private-file"
READER = {"X-Auth-Token": "reader-token"}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A private file that is not part of the repository."""
    path = tmp_path / "elsewhere" / "private.yaml"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\nsecond line\n")
    return path


def catalog_body(make_client: ClientFactory, token_file: Path, repo: Path) -> str:
    client = make_client(auth="token-file", token_file=token_file, repo=repo)
    response = client.get("/v1/catalog", headers=READER)
    assert response.status_code == 200
    return response.text


@pytest.mark.parametrize("target", ["outside", "/etc/passwd"])
def test_a_link_out_of_the_repository_is_an_error_that_shows_no_content(
    cli: Invoke,
    example_repo: Path,
    outside: Path,
    target: str,
    make_client: ClientFactory,
    token_file: Path,
) -> None:
    link = example_repo / "hardware" / "flavors" / "leak.yaml"
    target_path = outside if target == "outside" else Path(target)
    link.symlink_to(target_path)
    result = cli("validate")
    assert result.exit_code == 1
    assert result.stdout.startswith(
        "hardware/flavors/leak.yaml:1:1: file: a symbolic link that leads outside the "
        "repository; refused"
    )
    for secret in (SECRET, "root:", str(target_path)):
        assert secret not in result.stdout + result.stderr

    body = catalog_body(make_client, token_file, example_repo)
    assert "leak.yaml" in body and '"code":"outside-repository"' in body
    for secret in (SECRET, "root:", str(target_path)):
        assert secret not in body


def test_a_link_to_a_folder_out_of_the_repository_is_refused(
    example_repo: Path, outside: Path
) -> None:
    (example_repo / "hardware" / "flavors" / "shared").symlink_to(outside.parent)
    loaded = load_file(
        example_repo / "hardware" / "flavors" / "shared" / "private.yaml",
        FLAVOR,
        roots=(example_repo,),
        rules=RULES,
    )
    assert [d.code for d in loaded.diagnostics] == ["outside-repository"]


def test_configmap_volume_layout_validates_clean(cli: Invoke, example_repo: Path) -> None:
    """Kubernetes mounts a ConfigMap as ``x.yaml -> ..data/x.yaml``, ``..data -> ..<stamp>``."""
    flavors = example_repo / "hardware" / "flavors"
    stamp = flavors / "..2026_11_23_10_00_00.123456789"
    stamp.mkdir()
    names = sorted(p.name for p in flavors.glob("*.yaml"))
    for name in names:
        (flavors / name).rename(stamp / name)
    (flavors / "..data").symlink_to(stamp.name)
    for name in names:
        (flavors / name).symlink_to(Path("..data") / name)
    assert (flavors / names[0]).resolve().parent == stamp.resolve()
    result = cli("validate")
    assert result.exit_code == 0, result.stdout
    assert result.stdout == "35 files: 0 errors, 0 warnings\n"


def test_a_linked_hardware_folder_is_the_catalog(
    cli: Invoke, example_repo: Path, tmp_path: Path
) -> None:
    """``hardware`` itself may be a link (to a mounted volume): its files are the catalog."""
    mounted = tmp_path / "mounted"
    (example_repo / "hardware").rename(mounted)
    (example_repo / "hardware").symlink_to(mounted)
    assert cli("validate").stdout == "35 files: 0 errors, 0 warnings\n"


def test_a_huge_file_is_refused_without_being_read(
    cli: Invoke, example_repo: Path, make_client: ClientFactory, token_file: Path
) -> None:
    huge = example_repo / "hardware" / "flavors" / "huge.yaml"
    with huge.open("wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GiB that take no disk
    tracemalloc.start()
    loaded = load_file(huge, FLAVOR, roots=(example_repo,), rules=RULES)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < MAX_FILE_BYTES  # reading the file, or even its first 1 MiB + 1, would exceed it
    assert [d.render() for d in loaded.diagnostics] == [
        f"{loaded.diagnostics[0].path}:1:1: file: file is {2 * 1024**3} bytes; "
        f"at most {MAX_FILE_BYTES} allowed"
    ]
    result = cli("validate")
    assert result.exit_code == 1
    assert f"huge.yaml:1:1: file: file is {2 * 1024**3} bytes" in result.stdout
    assert '"code":"too-big"' in catalog_body(make_client, token_file, example_repo)


def test_a_file_that_is_not_a_regular_file_is_not_opened_for_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # reading it would wait for a writer for ever
    loaded = load_file(fifo, FLAVOR, rules=RULES)
    assert [d.message for d in loaded.diagnostics] == ["cannot read: not a regular file"]


HOSTILE = "\x1b]0;owned\x07\x1b[2J\u202e\r\n" + "A" * 10_000


@pytest.mark.parametrize(
    ("text", "field"),
    [
        # A pattern mismatch quotes the value.
        (
            "name: m1.x\nresource_class: m1.small\ntraits:\n  - trait: {value}\n"
            "    state: required\n",
            "traits[0].trait",
        ),
        # A file that is one long string (what a link to a text file used to show whole).
        ("{value}\n", "(root)"),
    ],
    ids=["pattern", "whole-file"],
)
def test_a_bad_value_is_quoted_escaped_and_short(
    cli: Invoke,
    example_repo: Path,
    make_client: ClientFactory,
    token_file: Path,
    text: str,
    field: str,
) -> None:
    quoted = '"' + HOSTILE.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    path = example_repo / "hardware" / "flavors" / "m1.x.yaml"
    path.write_text(text.format(value=quoted))
    result = cli("validate")
    assert result.exit_code == 1
    (line,) = [x for x in result.stdout.splitlines() if "m1.x.yaml" in x and field in x]
    assert line.isprintable() and len(line) < 300, line
    assert "\\x1b]0;owned\\x07\\x1b[2J\\u202e\\r\\n" + "A" * 20 in line
    assert f"({len(HOSTILE)} characters)" in line
    assert "A" * 100 not in result.stdout

    body = catalog_body(make_client, token_file, example_repo)
    assert "\x1b" not in body and "\\u001b" not in body and "A" * 100 not in body
    assert "\\\\x1b]0;owned" in body  # the escape, as text, JSON-encoded


def test_every_diagnostic_escapes_and_caps_itself() -> None:
    """Whoever builds a diagnostic, no control character or huge text gets through."""
    made = Diagnostic("bad\nname\x1b[31m.yaml", 1, 1, "x\ty", "\x1b[2J" + "B" * 50_000)
    rendered = made.render()
    assert rendered.isprintable() and len(rendered) < MAX_MESSAGE + 100
    assert rendered.startswith("bad\\nname\\x1b[31m.yaml:1:1: x\\ty: \\x1b[2JBBB")
    assert rendered.endswith("…")
