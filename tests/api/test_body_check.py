"""A body checked against its contract's schema: one line naming the field and what it takes,
never the value sent."""

from __future__ import annotations

from typing import Any

import pytest

from flavorsmith.api import body_check
from flavorsmith.api.schema import array, nullable, obj, string

SCHEMA = obj(
    {
        "name": string(minLength=1, maxLength=8),
        "secret": string(minLength=1),
        "size": {"type": "integer", "minimum": 1},
        "kind": string(enum=["a", "b"]),
        "tags": array(string(), maxItems=2),
        "owner": nullable(string()),
        "nested": obj({"flag": {"type": "boolean"}}, required=("flag",), additional=False),
    },
    required=("name",),
    additional=False,
)
CHECKER = body_check.validator(SCHEMA)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"name": "x"}, None),
        ([], "The thing must be a JSON object with name"),
        ({}, "The thing needs 'name'"),
        ({"name": "x", "bogus": 1}, "Unknown field 'bogus' in the thing; allowed: name, secret"),
        ({"name": 5}, "The thing's 'name' must be a string, not a number"),
        ({"name": ""}, "The thing's 'name' is empty; give a non-empty string"),
        ({"name": "123456789"}, "The thing's 'name' is longer than 8 characters"),
        ({"name": "x", "size": 0}, "The thing's 'size' must be at least 1"),
        ({"name": "x", "kind": "c"}, "The thing's 'kind' must be one of a, b"),
        ({"name": "x", "tags": ["a", "b", "c"]}, "The thing's 'tags' must hold at most 2 items"),
        ({"name": "x", "tags": [1]}, "The thing's 'tags[0]' must be a string, not a number"),
        ({"name": "x", "owner": 1}, "The thing's 'owner' must be a string or null, not a number"),
        ({"name": "x", "nested": {}}, "The thing needs 'flag' in 'nested'"),
        ({"name": "x", "nested": {"flag": 1}}, "'nested.flag' must be true or false, not a number"),
    ],
)
def test_each_problem_is_one_line_naming_the_field(data: Any, expected: str | None) -> None:
    found = body_check.problem(CHECKER, data, "thing")
    if expected is None:
        assert found is None
    else:
        assert found is not None and expected in found


def test_the_value_sent_is_never_shown() -> None:
    found = body_check.problem(CHECKER, {"name": "x", "secret": ["hunter2-typed-here"]}, "login")
    assert found == "The login's 'secret' must be a string, not a list"
    assert "hunter2" not in (body_check.problem(CHECKER, {"name": "hunter2xyz"}, "login") or "")
