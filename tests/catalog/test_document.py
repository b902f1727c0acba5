"""Parsing YAML with positions: every failure is a diagnostic, never an exception."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedBase

from flavorsmith.catalog.document import MAX_FILE_BYTES, parse, render_field
from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR
from flavorsmith.catalog.load import load_bytes
from tests.support.catalogs import RULES


def rendered(raw: bytes) -> list[str]:
    _, diagnostics = parse(raw, "f.yaml")
    return [d.render() for d in diagnostics]


def test_positions_point_at_values_and_keys() -> None:
    doc, diagnostics = parse(b"name: m1\ntraits:\n  - trait: NICX\n    state: required\n", "f")
    assert diagnostics == []
    assert doc is not None
    assert doc.position(["name"]) == (1, 7)
    assert doc.position(["traits", 0, "state"]) == (4, 12)
    assert doc.position(["traits", 0, "state"], at_key=True) == (4, 5)
    # A missing key points at the closest enclosing node.
    assert doc.position(["traits", 0, "nope"]) == (3, 5)
    assert doc.position(["traits", 7]) == (3, 3)


def test_render_field() -> None:
    assert render_field(["traits", 0, "trait"]) == "traits[0].trait"
    assert render_field([]) == "(root)"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"", "f.yaml:1:1: yaml: file is empty; expected a mapping of keys"),
        (b"# only a comment\n", "f.yaml:1:1: yaml: file is empty; expected a mapping of keys"),
        (b"a: 1\n---\nb: 2\n", "f.yaml:1:1: yaml: expected one YAML document, found 2"),
        (
            b"name: x\nname: y\n",
            'f.yaml:2:1: yaml: invalid YAML: found duplicate key "name" with value "y" (original value: "x")',
        ),
        (b"a: 1\n\xff\n", "f.yaml:2:1: yaml: not UTF-8 text (byte 0xff)"),
        (
            b"a: [1, 2\n",
            "f.yaml:2:1: yaml: invalid YAML: expected ',' or ']', but got '<stream end>'",
        ),
        (
            b"[" * 5000,
            "f.yaml:1:1001: yaml: nested more than 32 levels deep; at most 32 are allowed",
        ),
    ],
)
def test_parse_errors(raw: bytes, expected: str) -> None:
    assert rendered(raw) == [expected]


def test_oversized_file() -> None:
    assert rendered(b"#" * (MAX_FILE_BYTES + 1)) == [
        f"f.yaml:1:1: yaml: file is {MAX_FILE_BYTES + 1} bytes; at most {MAX_FILE_BYTES} allowed"
    ]


def test_alias_bomb_is_bounded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    assert rendered("\n".join(lines).encode()) == [
        "f.yaml:1:1: yaml: document expands to more than 100000 values (aliases?)"
    ]


def test_yaml_12_keeps_yes_as_a_string() -> None:
    doc, _ = parse(b"a: yes\nb: 2024-01-01\nc: !custom x\n", "f")
    assert doc is not None
    assert doc.data == {"a": "yes", "b": "2024-01-01", "c": "x"}


yaml_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_the_loader(raw: bytes) -> None:
    for kind in (FLAVOR, DEVICE_TYPE):
        loaded = load_bytes(raw, kind, __import__("pathlib").Path("x.yaml"), "x.yaml", rules=RULES)
        assert loaded.model is not None or loaded.diagnostics
        for d in loaded.diagnostics:
            assert d.line >= 1 and d.column >= 1 and "\n" not in d.render()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1:- \n\t[]{}&*!|>'\"#%@`,?")), max_size=80))
def test_yaml_like_text_never_crashes_the_loader(text: str) -> None:
    loaded = load_bytes(
        text.encode(), FLAVOR, __import__("pathlib").Path("x.yaml"), "x.yaml", rules=RULES
    )
    assert loaded.model is not None or loaded.diagnostics


@settings(max_examples=300, deadline=None)
@given(yaml_values)
def test_arbitrary_documents_never_crash_the_loader(value: object) -> None:
    import io

    from ruamel.yaml import YAML

    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(value, out)
    for kind in (FLAVOR, DEVICE_TYPE):
        loaded = load_bytes(
            out.getvalue().encode(),
            kind,
            __import__("pathlib").Path("x.yaml"),
            "x.yaml",
            rules=RULES,
        )
        assert loaded.model is not None or loaded.diagnostics


# libyaml reads a file when it gives what ruamel gives: the same diagnostics, data and the
# position of every key and value (and of a key or item that is not there).
EXAMPLE_FILES = sorted((Path(__file__).resolve().parents[2] / "examples").rglob("*.yaml"))


def _paths(data: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
        yield (*prefix, "missing")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*prefix, index))
        yield (*prefix, len(data))


def assert_read_alike(raw: bytes) -> None:
    fast, fast_diagnostics = parse(raw, "f.yaml")
    slow, slow_diagnostics = parse(raw, "f.yaml", fast=False)
    assert fast_diagnostics == slow_diagnostics
    if slow is None:
        assert fast is None
        return
    assert fast is not None
    assert fast.data == slow.data
    assert json.dumps(fast.data, default=repr) == json.dumps(slow.data, default=repr)
    for path in _paths(slow.data):
        for at_key in (False, True):
            assert fast.position(path, at_key=at_key) == slow.position(path, at_key=at_key), path


def test_every_example_file_takes_the_fast_reader_and_reads_alike() -> None:
    assert len(EXAMPLE_FILES) > 50
    for path in EXAMPLE_FILES:
        raw = path.read_bytes()
        assert_read_alike(raw)
        fast, _ = parse(raw, "f.yaml")
        assert fast is None or not isinstance(fast.tree, CommentedBase), path


@pytest.mark.parametrize(
    "text",
    [
        "name: x\ndescription:\ntraits: []\n",  # an empty value: ruamel places it elsewhere
        "name: x\ndescription: # a comment\n",
        "a:\n  - \n  - b\n",
        "a: [1, , 2]\n",
        "a: {b: }\n",
        "? complex\n: value\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 12\nb: !!int '7'\nc: !custom x\n",
        "a:\tb\n",
        "a: 'x'\tb\n",
        "a: b\r\nc: d\r\n",
        "a: b\rc: d\r",
        "a: b\u2028c: d\n",
        "a: b\x85c: d\n",
        "%YAML 1.1\n---\na: yes\n",
        "# c\n%YAML 1.2\n---\na: 0o17\n",
        "a: 0x1F\nb: 017\nc: 1_000\nd: 1:30\ne: .inf\nf: 2024-01-01\n",
        "a: Größe — 😀\nb: [é, {c: ü}, d]\nc: x\n",
        "a: |\n  text\n\n  more\nb: >-\n  folded\n  lines\nc: x\n",
        "a: |\nb: x\n",
        "- a\n- b: c\n  d: [e]\n",
        "x",
        "[a, b]",
        '"a": 1\n\'b\': 2\n"c d": {"e": [1, 2.5, -3, true, null, ~]}\n',
        "a: 1\nb:\n    - x\n    -   y: 1\n        z: 2\n",
        "a:\n- b\n- c\nd: e\n",
        "a: 1\n---\n",
        "a: 1\n---\nb: 2\n",
        "---\na: 1\n...\n",
        "\ufeffa: 1\n",
        "a: 1\na: 2\n",
        "1: a\ntrue: b\nnull: c\n",
        "<<: {a: 1}\nb: 2\n",
        "a: 1000base-t\nb: 210-BFUZ\nc: 10.0.0.1\nd: 4b2f3e0c\ne: -x\nf: .x\ng: +1.5.2\n",
        "a: 1e3\nb: 0b101\nc: 1_0\nd: .5\ne: -.inf\nf: 2024-01-01 10:00:00\ng: 0o7\n",
        "a: [1, 2\n",
        "a: b: c\n",
        "a:\n  b: 1\n c: 2\n",
        ">\n#",  # a block scalar as the document: "#" is its text to ruamel, a comment to libyaml
        "|\n\n#x\n",
    ],
)
def test_tricky_text_reads_alike(text: str) -> None:
    assert_read_alike(text.encode("utf-8"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1:- \n\t[]{}&*!|>'\"#%@`,?~.é")), max_size=80))
def test_yaml_like_text_reads_alike(text: str) -> None:
    assert_read_alike(text.encode())


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(EXAMPLE_FILES), st.data())
def test_edited_example_files_read_alike(path: Path, data: st.DataObject) -> None:
    """An example file with a few characters inserted, deleted or replaced: the typing
    mistakes validate reports."""
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(raw)))
        piece = data.draw(st.sampled_from([b"", b" ", b"  ", b"\n", b":", b"- ", b"#", b"'", b"x"]))
        raw[at : at + data.draw(st.integers(0, 3))] = piece
    assert_read_alike(bytes(raw))
