"""Allows ``python -m flavorsmith``."""

from __future__ import annotations

from flavorsmith.cli import main

main()
