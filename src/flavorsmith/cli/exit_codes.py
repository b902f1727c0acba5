"""The exit codes of ``flavorsmith``: every command exits with one of these (the docs' reference
page lists them, each with the text under it)."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """What a command's exit status means."""

    OK = 0
    """Done: the catalog is clean (warnings allowed), nothing drifted, the work succeeded."""

    FAILURE = 1
    """The command ran and found a problem or failed: errors in the catalog, drift, a refused
    or failed sync, something outside it unreachable (a database, a cloud, a port taken), an
    answer of no to a confirmation, an internal error."""

    USAGE = 2
    """A usage or configuration error, reported in one line before anything runs or is served:
    an unknown option or value, a ``--repo`` that is no catalog, a database URL this service
    cannot open, a TLS file that does not fit, ``sync apply`` without ``--yes`` and no
    terminal to ask on."""

    CHANGES = 2
    """``sync plan --detailed-exitcode`` only: the plan has changes to apply (as Terraform's
    ``plan -detailed-exitcode``); a usage error is then told apart by its message."""

    INTERRUPTED = 130
    """Stopped by the user: Ctrl-C, or an aborted prompt (128 + SIGINT, as shells report it)."""
