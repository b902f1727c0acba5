"""The one pager of every list endpoint: the link to the next page (and Octavia's link to the
previous one). Pages are keyset pages from the stores (a page is full when it holds ``limit``
rows; Octavia's pages say whether rows precede and follow them, ``store.sql.Page``); the next
link repeats the request's query with ``limit`` and the last item as ``marker``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from fastapi import Request

from flavorsmith.store.sql import Page


def next_href(request: Request, url: str, *, limit: int, marker: str) -> str:
    """``url`` with the request's query, ``limit`` and the given ``marker``."""
    query = {k: v for k, v in request.query_params.items() if k != "marker"}
    query.update(limit=str(limit), marker=marker)
    return f"{url}?{urlencode(query)}"


def is_full(rows: Sequence[object], limit: int) -> bool:
    """Does a keyset page of ``limit`` rows say there may be more?"""
    return bool(rows) and len(rows) == limit


def octavia_links(
    request: Request, url: str, page: Page, key: Callable[[dict[str, Any]], str]
) -> list[dict[str, str]]:
    """Octavia's ``*_links``: next and previous, each repeating the query with a marker."""
    links: list[dict[str, str]] = []
    if not page.rows:
        return links
    query = [
        (k, v) for k, v in request.query_params.multi_items() if k not in ("marker", "page_reverse")
    ]
    if page.more_after:
        following = [*query, ("marker", key(page.rows[-1]))]
        links.append({"href": f"{url}?{urlencode(following)}", "rel": "next"})
    if page.more_before:
        previous = [*query, ("marker", key(page.rows[0])), ("page_reverse", "True")]
        links.append({"href": f"{url}?{urlencode(previous)}", "rel": "previous"})
    return links
