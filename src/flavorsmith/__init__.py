"""Flavorsmith: bare-metal flavors, traits and scheduling data from a Git catalog."""

from __future__ import annotations

__version__ = "0.1.0"
