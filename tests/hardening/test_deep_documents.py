"""No document kills a process: every reader of YAML or JSON (catalog files, kustomizations,
node dumps, inspection data, saved plans) bounds nesting before any parser recurses into it,
and answers a deep, wide or malformed document with a diagnostic or a value, never a crash.

The property test feeds generated documents to each reader in process; the subprocess tests
run the commands themselves on 25,000- and 100,000-level files, also on a 4 MiB stack, where
PyYAML before 6.0.4 died with SIGSEGV (exit 139) and no line of output."""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flavorsmith import jsonsafe
from flavorsmith.catalog import nesting, plain_yaml
from flavorsmith.catalog.document import parse
from flavorsmith.classify.inspection import parse as parse_inspection
from flavorsmith.errors import Invalid
from flavorsmith.sync.saved_plan import BadPlan
from flavorsmith.sync.saved_plan import parse as parse_plan
from tests.conftest import EXAMPLES
from tests.support.serve import serve_process

TOO_DEEP = f"nested more than {jsonsafe.MAX_DEPTH} levels deep"


def _nested(depth: int, flow: str) -> str:
    """A value nested ``depth`` levels in one of YAML's (or JSON's) ways."""
    if flow == "[":
        return "[" * depth + "]" * depth
    if flow == "{":
        return '{"a": ' * depth + "1" + "}" * depth
    if flow == "-":  # compact block sequences
        return "\n" + "- " * depth + "x"
    # block mappings, one more indent each
    return "\n" + "".join(" " * (i + 1) + "k:\n" for i in range(depth)) + " " * (depth + 1) + "v"


documents = st.one_of(
    st.builds(
        lambda depth, flow, key: f"{key}: {_nested(depth, flow)}\n",
        st.integers(min_value=0, max_value=3000),
        st.sampled_from(["[", "{", "-", "k"]),
        st.sampled_from(["description", "extra", "nodes"]),
    ),
    st.builds(  # wide: many siblings
        lambda width: "items: [" + ", ".join(["{a: [1, 2]}"] * width) + "]\n",
        st.integers(min_value=0, max_value=2000),
    ),
    st.text(alphabet="[]{}:-,\"' \nab#&*!|>", max_size=300),  # malformed
)


def _yaml_readers(tmp: Path) -> dict[str, Callable[[bytes], Any]]:
    def stream(kind: type[Any], suffix: str) -> Callable[[bytes], Any]:
        def read(raw: bytes) -> Any:
            path = tmp / f"doc{suffix}"
            path.write_bytes(raw)
            try:
                return list(kind(path))
            except plain_yaml.Unsure:
                return parse(raw, str(path), max_bytes=None)  # as node import falls back

        return read

    return {
        "catalog file": lambda raw: parse(raw, "f.yaml"),
        "node dump (positioned)": lambda raw: parse(raw, "nodes.yaml", max_bytes=None),
        "node dump (streamed YAML)": stream(plain_yaml.Stream, ".yaml"),
        "node dump (JSON)": lambda raw: jsonsafe.loads(raw, what="nodes.json"),
        "nesting scan": nesting.too_deep,
    }


@settings(max_examples=60)
@given(text=documents)
def test_every_yaml_reader_answers_deep_wide_and_malformed_documents(
    text: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    tmp = tmp_path_factory.mktemp("doc")
    raw = text.encode()
    for name, read in _yaml_readers(tmp).items():
        try:
            read(raw)
        except Invalid:
            pass  # a diagnostic: the strict JSON reader's refusal
        except Exception as exc:  # pragma: no cover - the failure this test looks for
            pytest.fail(f"{name}: {type(exc).__name__}: {exc} on {text[:80]!r}")


@settings(max_examples=60)
@given(
    depth=st.integers(min_value=0, max_value=5000),
    flow=st.sampled_from(["[", "{"]),
    junk=st.text(alphabet='[]{},:"0a', max_size=40),
)
def test_every_json_reader_answers_deep_wide_and_malformed_documents(
    depth: int, flow: str, junk: str
) -> None:
    for text in (_nested(depth, flow), _nested(depth, flow) + junk):
        document = '{"format_version": 1, "deep": ' + text + "}"
        for read in (
            lambda t: jsonsafe.loads(t, what="doc"),
            lambda t: parse_plan(t, "plan.json"),
            lambda t: parse_inspection(jsonsafe.loads(t, what="inspection")),
        ):
            try:
                read(document)
            except (Invalid, BadPlan) as exc:
                if depth > jsonsafe.MAX_DEPTH and not junk:
                    assert TOO_DEEP in str(exc)


def test_a_deep_dict_from_ironic_is_refused_before_classification() -> None:
    """The inspection hook gets Ironic's parsed inventory, not text: the same bound holds."""
    inventory: dict[str, Any] = {}
    inner = inventory
    for _ in range(100_000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(Invalid, match=TOO_DEEP):
        parse_inspection({"inventory": inventory})


DEPTHS = [25_000, 100_000]


def _flavorsmith(*args: str, stack: int | None = None, cwd: Path | None = None) -> Any:
    def limit() -> None:
        if stack is not None:
            resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))

    return subprocess.run(
        [sys.executable, "-m", "flavorsmith", *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        cwd=cwd,
    )


def _deep_catalog(tmp: Path, depth: int, where: str) -> Path:
    repo = tmp / "repo"
    shutil.copytree(EXAMPLES / "hardware", repo / "hardware")
    deep = "[" * depth + "]" * depth
    if where == "flavor":
        path = repo / "hardware/flavors/m1.small.yaml"
        path.write_text(path.read_text() + f"description: {deep}\n")
    elif where == "device type":
        path = repo / "hardware/device-types/dell-poweredge-r7615.yaml"
        path.write_text(path.read_text() + f"comments: {deep}\n")
    else:
        path = repo / "hardware/base/kustomization.yaml"
        path.write_text(path.read_text() + f"commonLabels: {deep}\n")
    return repo


@pytest.mark.parametrize("stack", [None, 4 * 1024 * 1024], ids=["8MiB", "4MiB"])
@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("where", ["flavor", "device type", "kustomization"])
def test_validate_answers_a_deep_file_with_one_diagnostic(
    tmp_path: Path, depth: int, stack: int | None, where: str
) -> None:
    repo = _deep_catalog(tmp_path, depth, where)
    done = _flavorsmith("validate", "--repo", str(repo), stack=stack)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert TOO_DEEP in done.stdout, done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("stack", [None, 4 * 1024 * 1024], ids=["8MiB", "4MiB"])
@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_node_import_answers_a_deep_dump_with_exit_1(
    tmp_path: Path, depth: int, stack: int | None, suffix: str
) -> None:
    deep = "[" * depth + "]" * depth
    dump = tmp_path / f"nodes{suffix}"
    if suffix == ".yaml":
        dump.write_text(f"- name: n1\n  driver: fake-hardware\n  extra: {deep}\n")
    else:
        dump.write_text(f'[{{"name": "n1", "driver": "fake-hardware", "extra": {deep}}}]')
    database = f"sqlite:///{tmp_path / 'nodes.db'}"
    done = _flavorsmith("node", "import", "--database", database, str(dump), stack=stack)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert TOO_DEEP in done.stdout + done.stderr
    assert "nothing was imported" in done.stderr


def test_sync_apply_refuses_a_deep_saved_plan(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"format_version": 1, "actions": ' + "[" * 100_000 + "]" * 100_000 + "}")
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    done = _flavorsmith(
        "sync", "apply", "--repo", str(EXAMPLES), "--database", database, "--yes", str(plan)
    )
    assert done.returncode != 0 and "internal error" not in done.stderr, done.stderr
    assert f"{plan}: not a plan (" in done.stderr and TOO_DEEP in done.stderr


def test_serve_keeps_serving_on_a_deep_catalog_at_start_and_in_a_watcher(
    tmp_path: Path,
) -> None:
    """Started on a deep catalog, ``serve`` serves and says what is wrong (as for any catalog
    with errors); dropped into the catalog of a running ``serve --sync``, a deep file blocks
    that round (logged), and the service serves on."""
    repo = _deep_catalog(tmp_path, 100_000, "flavor")
    (tmp_path / "first").mkdir()
    with serve_process(tmp_path / "first", repo=repo, ready="/healthz") as served:
        with urllib.request.urlopen(served.url + "/v1/catalog", timeout=10) as answer:
            assert TOO_DEEP in answer.read().decode()
        assert served.process.poll() is None

    live = tmp_path / "live"
    shutil.copytree(EXAMPLES / "hardware", live / "hardware")
    (tmp_path / "second").mkdir()
    with serve_process(tmp_path / "second", "--sync", "--sync-interval", "1", repo=live) as served:
        flavor = live / "hardware/flavors/m1.small.yaml"
        flavor.write_text(flavor.read_text() + "description: " + "[" * 100_000 + "]" * 100_000)
        deadline = time.monotonic() + 30
        while TOO_DEEP not in served.log():
            assert time.monotonic() < deadline, served.log()[-3000:]
            time.sleep(0.2)
        assert served.process.poll() is None
        with urllib.request.urlopen(served.url + "/healthz", timeout=10) as answer:
            assert answer.status == 200
