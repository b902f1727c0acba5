"""The sync kind the command line defaults to, without loading the kinds: importing the
registry (``sync.kinds``) loads the database layer and the OpenStack SDK, which
`flavorsmith validate` and every other command must not wait for. The registry refuses to
load unless its default kind is this one. The command line reads the registry's names only
when a sync command runs or shows its help."""

from __future__ import annotations

DEFAULT = "flavors"
