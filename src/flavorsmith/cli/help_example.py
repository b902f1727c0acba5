"""The example that ends a command's help: a paragraph of its own that click prints as it is
written (``\\b``: not re-wrapped), so that the command line can be copied whole."""

from __future__ import annotations


def with_example(text: str, command: str) -> str:
    """The help ``text``, then ``command`` (a whole ``flavorsmith ...`` line) as its example."""
    return f"{text}\n\n\b\nExample:\n  {command}"
