"""The shared parameter parser and pager, without an application: each family's dialect keeps
its service's words, and pages cut from a list never skip or repeat an item."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flavorsmith import query_values
from flavorsmith.api import query
from flavorsmith.api.paging import cut
from flavorsmith.errors import Invalid, NotFound


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


@given(
    st.integers(0, 30),
    st.integers(1, 7),
    st.booleans(),
)
def test_cut_pages_cover_the_list_once_in_both_directions(
    size: int, limit: int, back: bool
) -> None:
    items = [f"{n:03}" for n in range(size)]
    seen: list[str] = []
    marker = None
    while True:
        page = cut(items, str, marker=marker, limit=limit, missing=NotFound)
        seen.extend(page.items)
        assert page.more_back == (marker is not None)
        if not page.more_forward:
            break
        marker = page.items[-1]
    assert seen == items
    if back and items:
        page = cut(items, str, marker=items[-1], limit=limit, reverse=True, missing=NotFound)
        assert page.items == items[max(0, size - 1 - limit) : size - 1]
        assert page.more_forward and page.more_back == (size - 1 > limit)


def test_cut_refuses_a_marker_that_is_not_there() -> None:
    with pytest.raises(NotFound):
        cut(["a"], str, marker="b", limit=1, missing=NotFound)
