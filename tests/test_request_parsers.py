"""Property tests for the request parsers: whatever the text, they answer with a value or the
project's Invalid-type errors (never another exception), and valid input round-trips."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flavorsmith import jsonsafe, query_values
from flavorsmith.api.microversions import IRONIC, NOVA, Version
from flavorsmith.errors import FlavorsmithError, Invalid, NotAcceptable

# Storable JSON: text without NUL or surrogates, 64-bit integers, finite floats.
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"))
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(jsonsafe.INT_MIN, jsonsafe.INT_MAX)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
DOCUMENTS = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4)
)
# Text that looks like JSON and often is not: brackets, numbers, escapes, constants.
JSONISH = st.lists(
    st.sampled_from([*'[]{}",:0123456789-+.eE \\u', "NaN", "Infinity", "d800", "true"])
).map("".join)
HEADERS = st.text() | st.from_regex(r"\A[0-9]{1,30}\.[0-9]{1,30}\Z") | st.just("latest")


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@given(DOCUMENTS)
def test_storable_documents_round_trip(value: Any) -> None:
    if _depth(value) <= jsonsafe.MAX_DEPTH:
        assert jsonsafe.loads(json.dumps(value)) == value
        assert jsonsafe.loads(json.dumps(value).encode()) == value
        jsonsafe.check_value("field", value)


@settings(max_examples=300)
@given(st.one_of(JSONISH, st.text(), st.binary()))
def test_loads_refuses_only_with_invalid(raw: str | bytes) -> None:
    try:
        value = jsonsafe.loads(raw)
    except Invalid:
        return
    jsonsafe.check_value("again", value)  # what it returns is storable
    assert _depth(value) <= jsonsafe.MAX_DEPTH
    json.dumps(value, allow_nan=False).encode("utf-8")


@given(st.integers(1, 100))
def test_depth_beyond_the_limit_is_invalid_not_a_recursion_error(extra: int) -> None:
    depth = jsonsafe.MAX_DEPTH + extra * 1000
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth):
        try:
            jsonsafe.loads(text)
        except Invalid as exc:
            assert "nested more than 32 levels deep" in exc.message
        else:
            raise AssertionError("accepted")


@given(st.integers())
def test_integers_beyond_64_bits_are_invalid(number: int) -> None:
    text = json.dumps({"n": number})
    if jsonsafe.INT_MIN <= number <= jsonsafe.INT_MAX:
        assert jsonsafe.loads(text) == {"n": number}
    else:
        try:
            jsonsafe.loads(text)
        except Invalid as exc:
            assert exc.message.startswith("Invalid JSON in the request body: n: ")
        else:
            raise AssertionError("accepted")


@given(st.text())
def test_ascii_int_accepts_only_ascii_64_bit_integers(text: str) -> None:
    number = query_values.ascii_int(text)
    if number is None:
        return
    assert text.strip().lstrip("-").isascii() and text.strip().lstrip("-").isdigit()
    assert jsonsafe.INT_MIN <= number <= jsonsafe.INT_MAX
    assert number == int(text)


@given(st.integers(jsonsafe.INT_MIN, jsonsafe.INT_MAX))
def test_ascii_int_round_trips(number: int) -> None:
    assert query_values.ascii_int(str(number)) == number
    assert query_values.ascii_int(f" {number} ") == number


@given(st.text() | st.integers().map(str))
def test_parse_limit_is_a_page_size_or_invalid(text: str) -> None:
    try:
        limit = query_values.parse_limit(text)
    except Invalid:
        return
    assert 1 <= limit <= query_values.MAX_LIMIT


@given(st.integers(1, query_values.MAX_LIMIT))
def test_parse_limit_round_trips(number: int) -> None:
    assert query_values.parse_limit(str(number)) == number


@given(st.text())
def test_parse_bool_is_a_bool_or_invalid(text: str) -> None:
    try:
        assert isinstance(query_values.parse_bool("flag", text), bool)
    except Invalid as exc:
        assert "\n" not in exc.message or "\n" in repr(text)


@given(st.booleans(), st.sampled_from(["", " ", "  "]))
def test_parse_bool_round_trips(value: bool, space: str) -> None:
    assert query_values.parse_bool("flag", f"{space}{str(value).lower()}{space}") is value


@settings(max_examples=300)
@given(HEADERS)
def test_microversion_headers_negotiate_or_refuse_with_a_4xx(value: str) -> None:
    for spec, headers in (
        (IRONIC, {"x-openstack-ironic-api-version": value}),
        (NOVA, {"openstack-api-version": f"compute {value}"}),
        (NOVA, {"x-openstack-nova-api-version": value}),
    ):
        try:
            version = spec.negotiate(headers)
        except (Invalid, NotAcceptable) as exc:
            assert 400 <= exc.status < 500 and len(exc.message) < 400
            continue
        except FlavorsmithError as exc:  # pragma: no cover - reported with its type
            raise AssertionError(f"unexpected {type(exc).__name__}") from exc
        assert spec.minimum <= version <= spec.maximum


@given(st.integers(0, 10**6 - 1), st.integers(0, 10**6 - 1))
def test_versions_round_trip(major: int, minor: int) -> None:
    if major >= 1:
        assert Version.parse(f"{major}.{minor}") == Version(major, minor)
        assert str(Version(major, minor)) == f"{major}.{minor}"


def test_floats_refused_are_exactly_the_non_finite() -> None:
    for text, ok in (("1e308", True), ("1e309", False), ("-1e999", False), ("NaN", False)):
        try:
            value = jsonsafe.loads(text)
        except Invalid:
            assert not ok
        else:
            assert ok and math.isfinite(value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": [1, {"b\x00": 1}]}, "Invalid value: f.a[1]: the key 'b\\x00': a NUL character"),
        ({"a": ["ok", "x\x00"]}, "Invalid value: f.a[1]: a NUL character"),
        ({"a": {"b": "\ud800"}}, "Invalid value: f.a.b: a lone UTF-16 surrogate (\\ud800)"),
        ([True, None, 2**63], "Invalid value: f[2]: 9223372036854775808 is out of range"),
        ({"n": [float("nan")]}, "Invalid value: f.n[0]: NaN is not allowed"),
    ],
)
def test_check_value_names_the_first_problem_deep_inside(value: Any, message: str) -> None:
    with pytest.raises(Invalid) as caught:
        jsonsafe.check_value("f", value)
    assert caught.value.message.startswith(message)


def test_check_value_passes_plain_and_unicode_values() -> None:
    jsonsafe.check_value("f", {"a": [1, -(2**63), True, None, "é", "\U0001f600", 1.5], "é": {}})


def test_ascii_int_takes_only_the_spaces_int_takes() -> None:
    """``str.strip`` strips the separators \\x1c-\\x1f, ``int()`` refuses them."""
    assert query_values.ascii_int("0\x1f") is None
    assert query_values.ascii_int("\x1c7") is None
    assert query_values.ascii_int(" \t7\n") == 7
