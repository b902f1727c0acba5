"""Absolute links for version documents, built from the URL the client used."""

from __future__ import annotations

from fastapi import Request


def base(request: Request) -> str:
    """Scheme, host and any root path, without a trailing slash."""
    return str(request.base_url).rstrip("/")


def link(href: str, rel: str, **extra: str) -> dict[str, str]:
    return {"href": href, "rel": rel, **extra}
