"""The shared parameter parser and pager, without an application: each family's dialect keeps
its service's words."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flavorsmith import query_values
from flavorsmith.api import query
from flavorsmith.errors import Invalid


@given(st.text())
def test_ironic_and_native_booleans_are_the_leaf_parser(text: str) -> None:
    for dialect in (query.IRONIC, query.NATIVE):
        try:
            expected: bool | str = query_values.parse_bool("flag", text)
        except Invalid as exc:
            expected = exc.message
        try:
            got: bool | str = query.boolean(dialect, "flag", text)
        except Invalid as exc:
            got = exc.message
        assert got == expected


@pytest.mark.parametrize(
    ("dialect", "text", "message"),
    [
        (
            query.NOVA,
            "maybe",
            "Invalid input for field/attribute f. Value: maybe. Expected true or false",
        ),
        (query.OCTAVIA, "maybe", "Invalid value for f: 'maybe'; use true or false"),
        (query.OCTAVIA, " true", "Invalid value for f: ' true'; use true or false"),
        (query.OCTAVIA, "t", "Invalid value for f: 't'; use true or false"),
    ],
)
def test_each_family_words_a_bad_boolean_its_way(
    dialect: query.Dialect, text: str, message: str
) -> None:
    with pytest.raises(Invalid) as caught:
        query.boolean(dialect, "f", text)
    assert caught.value.message == message


@pytest.mark.parametrize(
    ("dialect", "text", "expected"),
    [
        (query.IRONIC, "5000", query_values.MAX_LIMIT),
        (query.NOVA, "5000", query_values.MAX_LIMIT),
        (query.NOVA, "0", 0),
        (query.OCTAVIA, "5000", 5000),
        (query.OCTAVIA, " 7 ", 7),
    ],
)
def test_limits_follow_each_service(dialect: query.Dialect, text: str, expected: int) -> None:
    assert dialect.limit(text) == expected


@pytest.mark.parametrize(
    ("dialect", "text", "message"),
    [
        (query.IRONIC, "0", "Limit must be positive"),
        (
            query.NOVA,
            " 7",
            "Invalid input for query parameters limit. Value:  7. ' 7' does not match '^[0-9]*$'",
        ),
        (query.OCTAVIA, "0", "Invalid limit 0: use a positive integer"),
    ],
)
def test_bad_limits_keep_each_services_words(
    dialect: query.Dialect, text: str, message: str
) -> None:
    with pytest.raises(Invalid) as caught:
        dialect.limit(text)
    assert caught.value.message == message
