"""Parsing YAML with positions: every failure is a diagnostic, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
        (b"[" * 5000, "f.yaml:1:1: yaml: invalid YAML: nesting is too deep"),
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
