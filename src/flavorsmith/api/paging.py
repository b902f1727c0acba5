"""The one pager of every list endpoint: the link to the next page (and Octavia's link to the
previous one), and pages cut from a list already in memory.

Keyset pages come from the stores (a page is full when it holds ``limit`` rows); short lists
(matches, Octavia's profiles and flavors) are read whole and cut here. Either way the next
link repeats the request's query with ``limit`` and the last item as ``marker``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import urlencode

from fastapi import Request

T = TypeVar("T")


def next_href(request: Request, url: str, *, limit: int, marker: str) -> str:
    """``url`` with the request's query, ``limit`` and the given ``marker``."""
    query = {k: v for k, v in request.query_params.items() if k != "marker"}
    query.update(limit=str(limit), marker=marker)
    return f"{url}?{urlencode(query)}"


def is_full(rows: Sequence[object], limit: int) -> bool:
    """Does a keyset page of ``limit`` rows say there may be more?"""
    return bool(rows) and len(rows) == limit


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    more_forward: bool  # items after this page
    more_back: bool  # items before it


def cut(
    items: Sequence[T],
    key: Callable[[T], str],
    *,
    marker: str | None,
    limit: int | None,
    reverse: bool = False,
    missing: Callable[[str], Exception],
) -> Page[T]:
    """The page after ``marker`` (or, with ``reverse``, the one ending just before it) of at
    most ``limit`` items (None: all); ``missing(marker)`` is raised for a marker not there."""
    at = None
    if marker is not None:
        keys = [key(item) for item in items]
        if marker not in keys:
            raise missing(marker)
        at = keys.index(marker)
    if reverse:
        before = list(items[:at] if at is not None else items)
        page = before[-limit:] if limit is not None else before
        return Page(page, more_forward=at is not None, more_back=len(before) > len(page))
    after = list(items[at + 1 :] if at is not None else items)
    page = after[:limit] if limit is not None else after
    return Page(page, more_forward=len(after) > len(page), more_back=at is not None)


def octavia_links(
    request: Request, url: str, page: Page[T], key: Callable[[T], str]
) -> list[dict[str, str]]:
    """Octavia's ``*_links``: next and previous, each repeating the query with a marker."""
    links: list[dict[str, str]] = []
    if not page.items:
        return links
    query = [
        (k, v) for k, v in request.query_params.multi_items() if k not in ("marker", "page_reverse")
    ]
    if page.more_forward:
        following = [*query, ("marker", key(page.items[-1]))]
        links.append({"href": f"{url}?{urlencode(following)}", "rel": "next"})
    if page.more_back:
        previous = [*query, ("marker", key(page.items[0])), ("page_reverse", "True")]
        links.append({"href": f"{url}?{urlencode(previous)}", "rel": "previous"})
    return links
