"""Query parameters of every API family, parsed in one place: booleans, ``limit``, ``marker``,
``fields`` and ``sort_key``/``sort_dir`` (Octavia's ``sort`` too).

The real services differ in which words they accept and how they refuse, and their clients
(and our tests) rely on each one's wording and status code, so the grammar is shared and a
:class:`Dialect` per family carries its words, limits and messages. Messages are ``str.format``
templates; what each may use is named on its field. Built on the leaf module
:mod:`flavorsmith.query_values`; every refusal is :class:`~flavorsmith.errors.Invalid` (400)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from fastapi import Request

from flavorsmith import query_values
from flavorsmith.api.families import Family
from flavorsmith.errors import Invalid
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.jsonsafe import excerpt

_ASC_DESC = ("asc", "desc")


def _octavia_limit(raw: str) -> int:
    number = query_values.ascii_int(raw)
    if number is None:
        raise Invalid(f"Invalid limit {excerpt(raw)}: use a positive integer")
    if number < 1:
        raise Invalid(f"Invalid limit {number}: use a positive integer")
    return number


def _nova_limit(raw: str) -> int:
    """Nova's ``limit``: ASCII digits only (0 included), within 64 bits, capped at 1000."""
    number = query_values.ascii_int(raw) if raw.isascii() and raw.isdigit() else None
    if number is None:
        raise Invalid(
            f"Invalid input for query parameters limit. Value: {query_values.shown(raw)}. "
            f"{excerpt(raw)} does not match '^[0-9]*$'"
        )
    return min(number, query_values.MAX_LIMIT)


@dataclass(frozen=True)
class Dialect:
    """How one family reads its list parameters and words its refusals."""

    true_words: tuple[str, ...]
    false_words: tuple[str, ...]
    strip_booleans: bool
    bad_bool: str  # {name}, {value} as sent, {excerpt} of it, {allowed} words
    limit: Callable[[str], int]  # a sent limit as a page size
    default_limit: int | None  # without a limit: None pages nothing
    uuid_markers: bool
    bad_sort_key: str  # {key}, {known} joined, {known_list} as a Python list
    bad_sort_dir: str  # {value}
    sort_dir_first: bool  # which of two bad sort parameters is named
    fields_repeat: bool  # every ``fields`` parameter counts, or only the last one
    # A parameter sent more than once: the refusal's text from its name and every value sent,
    # or None where the real service reads the last one (and so do we).
    repeated: Callable[[str, list[str], str], str] | None = None  # name, values, path
    repeatable: frozenset[str] = frozenset()  # lists: every value counts, never refused


# Ironic 39 refuses a repeated scalar parameter with a message by the parameter's type (pecan
# hands it a list); ``fields`` and ``shard`` are lists, and every one sent counts.
_IRONIC_INTEGERS = frozenset({"limit"})
_IRONIC_UUIDS = frozenset({"marker", "instance_uuid"})
_IRONIC_BOOLEANS = frozenset(
    {"associated", "detail", "include_children", "maintenance", "retired", "sharded"}
)


def _ironic_repeated(name: str, values: list[str], path: str) -> str:
    sent = query_values.shown_repr(values)
    if name in _IRONIC_INTEGERS:
        return f"Expected an integer for {name}: {sent}"
    if name == "marker" and ("/deploy_templates" in path or "/runbooks" in path):
        return f"Expected name for {name}: {sent}"  # a template's marker is its name or uuid
    if name == "project" and "/runbooks" in path:  # a flag on runbooks, a project on nodes
        return _ironic_repeated("detail", values, path).replace("detail", name, 1)
    if name in _IRONIC_UUIDS:
        return f"Expected UUID for {name}: {sent}"
    if name in _IRONIC_BOOLEANS:
        allowed = ", ".join(
            f"'{word}'" for word in sorted(query_values.TRUE_WORDS + query_values.FALSE_WORDS)
        )
        return f"Invalid {name}: Unrecognized value '{sent}', acceptable values are: {allowed}"
    return f"Expected string for {name}: {sent}"


def _native_repeated(name: str, values: list[str], path: str) -> str:
    return (
        f"Query parameter {name!r} was given {len(values)} times "
        f"({query_values.shown_repr(values)}); it takes one value (a list is one value, "
        "comma-separated)"
    )


IRONIC = Dialect(
    true_words=query_values.TRUE_WORDS,
    false_words=query_values.FALSE_WORDS,
    strip_booleans=True,
    bad_bool=query_values.BAD_BOOL,
    limit=query_values.parse_limit,
    default_limit=query_values.MAX_LIMIT,
    uuid_markers=True,
    bad_sort_key=(
        "The sort_key value {key} is an invalid field for sorting; sort by one of {known}"
    ),
    bad_sort_dir="Invalid sort direction {value!r}: choose asc or desc",
    sort_dir_first=True,
    fields_repeat=True,
    repeated=_ironic_repeated,
    repeatable=frozenset(
        {"fields", "shard", "traits", "traits-any", "not-traits", "not-traits-any"}
    ),
)
# Nova's words for a value that is not a boolean (a body field's or a query parameter's).
NOVA_BAD_BOOL = "Invalid input for field/attribute {name}. Value: {value}. Expected true or false"
NOVA = Dialect(
    true_words=query_values.TRUE_WORDS,
    false_words=query_values.FALSE_WORDS,
    strip_booleans=True,
    bad_bool=NOVA_BAD_BOOL,
    limit=_nova_limit,
    default_limit=query_values.MAX_LIMIT,
    uuid_markers=False,
    bad_sort_key=(
        "Invalid input for query parameters sort_key. Value: {key}. "
        "{key!r} is not one of {known_list}"
    ),
    bad_sort_dir="Invalid input for query parameters sort_dir. Value: {value}. Use asc or desc",
    sort_dir_first=False,
    fields_repeat=False,
    # Nova 34 reads the last of a repeated parameter (webob's MultiDict): ``limit=1&limit=2``
    # pages by 2, ``marker=a&marker=b`` looks for b. Its single_param schemas, which refuse a
    # second value, cover no route served here.
    repeated=None,
)
OCTAVIA = Dialect(
    true_words=("true", "1", "yes", "on"),
    false_words=("false", "0", "no", "off"),
    strip_booleans=False,
    bad_bool="Invalid value for {name}: {excerpt}; use true or false",
    limit=_octavia_limit,
    default_limit=None,
    uuid_markers=False,
    bad_sort_key="Invalid sort key {key!r}; sort by one of {known}",
    bad_sort_dir="Invalid sort direction {value!r}: use asc or desc",
    sort_dir_first=False,
    fields_repeat=True,
    repeated=lambda name, values, path: "One or more arguments are either duplicate or invalid",
    repeatable=frozenset({"fields"}),
)
# The native API reads its queries in Ironic's words, but takes any marker, reads one
# ``fields`` and refuses every repeated parameter in its own words.
NATIVE = replace(
    IRONIC,
    uuid_markers=False,
    fields_repeat=False,
    repeated=_native_repeated,
    repeatable=frozenset(),
)
DIALECTS = {
    Family.IRONIC: IRONIC,
    Family.NOVA: NOVA,
    Family.OCTAVIA: OCTAVIA,
    Family.NATIVE: NATIVE,
}


def check_repeats(request: Request, family: Family) -> None:
    """400 for a parameter sent more than once where the family's service refuses that,
    naming it and every value sent; where the service reads the last one, nothing."""
    dialect = DIALECTS[family]
    refusal = dialect.repeated
    if refusal is None:
        return
    query = request.query_params
    if len(query) == len(query.multi_items()):
        return  # no name twice: the usual case, one comparison
    for name in query:
        values = query.getlist(name)
        if len(values) > 1 and name not in dialect.repeatable:
            raise Invalid(refusal(name, values, request.url.path))


def boolean(dialect: Dialect, name: str, raw: str) -> bool:
    """``raw`` as a boolean in ``dialect``'s words."""
    return query_values.parse_bool(
        name,
        raw,
        true=dialect.true_words,
        false=dialect.false_words,
        strip=dialect.strip_booleans,
        message=dialect.bad_bool,
    )


class Query:
    """The query parameters of one request, read in its family's dialect."""

    def __init__(self, request: Request, dialect: Dialect) -> None:
        self.params = request.query_params
        self.dialect = dialect

    def __contains__(self, name: str) -> bool:
        return name in self.params

    def get(self, name: str) -> str | None:
        return self.params.get(name)

    def flag(self, name: str) -> bool | None:
        """A boolean parameter; None when it is absent."""
        raw = self.params.get(name)
        return None if raw is None else boolean(self.dialect, name, raw)

    def limit(self) -> int | None:
        """The page size: the family's default (None: no limit) when absent."""
        raw = self.params.get("limit")
        return self.dialect.default_limit if raw is None else self.dialect.limit(raw)

    def page_size(self) -> int:
        """The page size of a family that always pages."""
        limit = self.limit()
        return query_values.MAX_LIMIT if limit is None else limit

    def marker(self) -> str | None:
        """The marker, a UUID where the family's markers are UUIDs."""
        marker = self.params.get("marker")
        if marker is not None and self.dialect.uuid_markers and not is_uuid(marker):
            raise Invalid(f"Expected UUID for marker: {marker}")
        return marker

    def sort(self, known: Collection[str], default_key: str) -> tuple[str, str]:
        """``sort_key`` (one of ``known``) and ``sort_dir`` (asc or desc)."""
        key = self.params.get("sort_key", default_key)
        direction = self.params.get("sort_dir", "asc")
        if self.dialect.sort_dir_first:
            self._sort_dir(direction)
        self._sort_key(key, known)
        self._sort_dir(direction)
        return key, direction

    def sorting(self, known: Collection[str]) -> list[tuple[str, bool]]:
        """Octavia's sort keys with their directions (True: ascending): ``sort=k1:asc,k2``,
        or ``sort_key=k1,k2`` with one ``sort_dir``."""
        keys: list[tuple[str, bool]] = []
        if "sort" in self.params:
            if "sort_key" in self.params or "sort_dir" in self.params:
                raise Invalid("Use either sort or sort_key/sort_dir, not both")
            for part in self.params["sort"].split(","):
                key, _, direction = part.strip().partition(":")
                keys.append((key, self._sort_dir(direction or "asc") == "asc"))
        elif "sort_key" in self.params or "sort_dir" in self.params:
            ascending = self._sort_dir(self.params.get("sort_dir", "asc")) == "asc"
            for key in self.params.get("sort_key", "id").split(","):
                keys.append((key.strip(), ascending))
        for key, _ in keys:
            self._sort_key(key, known)
        return keys

    def _sort_key(self, key: str, known: Collection[str]) -> str:
        if key not in known:
            raise Invalid(
                self.dialect.bad_sort_key.format(
                    key=key, known=", ".join(known), known_list=list(known)
                )
            )
        return key

    def _sort_dir(self, value: str) -> str:
        if value not in _ASC_DESC:
            raise Invalid(self.dialect.bad_sort_dir.format(value=value))
        return value

    def fields(
        self, known: Collection[str], unknown_message: str, *, also: Collection[str] = ()
    ) -> list[str] | None:
        """The ``fields`` list, each name once; None when the parameter is absent.
        ``unknown_message`` may use {unknown} (every unknown name, quoted), {first} (the first
        one) and {known}; the names in ``also`` are accepted without being listed as known."""
        if "fields" not in self.params:
            return None
        raws = (
            self.params.getlist("fields") if self.dialect.fields_repeat else [self.params["fields"]]
        )
        wanted = [name.strip() for raw in raws for name in raw.split(",") if name.strip()]
        unknown = [name for name in wanted if name not in known and name not in also]
        if unknown:
            raise Invalid(
                unknown_message.format(
                    unknown=", ".join(repr(name) for name in unknown),
                    first=unknown[0],
                    known=", ".join(known),
                )
            )
        return list(dict.fromkeys(wanted))
