"""The names of the sync kinds, for the command line's options and help: importing the kinds
themselves loads the database layer and the OpenStack SDK, which `flavorsmith validate` and
every `--help` must not wait for. The registry (``sync.kinds``) refuses to load unless it
holds exactly these kinds, in this order."""

from __future__ import annotations

NAMES: tuple[str, ...] = ("flavors", "deploy-templates", "classification", "inspection-rules")
DEFAULT = "flavors"
