"""Service settings, from command-line options and the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

AuthMode = Literal["noauth", "token-file", "keystone"]
DEFAULT_PORT = 8780
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_PROVIDERS = (
    "noop:The no-op driver (accepts any flavor data).,"
    "baremetal:Standalone Ironic: resource classes and deploy templates from the catalog."
)


@dataclass(frozen=True)
class Variable:
    """An environment variable the project reads itself (an option's own variable, such as
    ``--providers``'s $FLAVORSMITH_PROVIDERS, is declared with the option)."""

    name: str
    meaning: str
    # Set by flavorsmith for a process it starts, or by a script it prints: never by hand.
    internal: bool = False


# Every variable read in src/ (tests/docs/test_reference.py checks it against the code; the
# docs' configuration reference lists them).
ENVIRONMENT = (
    Variable(
        "FLAVORSMITH_DATABASE_URL",
        "The database of every command and of serve when --database is not given (an "
        "SQLAlchemy URL).",
    ),
    Variable(
        "XDG_DATA_HOME",
        "Where the per-user data folder is made: $XDG_DATA_HOME/flavorsmith, else "
        "~/.local/share/flavorsmith; the default SQLite database is flavorsmith.db in it.",
    ),
    Variable(
        "FLAVORSMITH_REPO",
        "The catalog repository when --repo is not given (shell completion reads it too).",
    ),
    Variable(
        "UC_DEPLOY", "The catalog repository when neither --repo nor $FLAVORSMITH_REPO is set."
    ),
    Variable(
        "FLAVORSMITH_DEBUG",
        "Set (to anything): an internal error, or a provider driver's crash, shows its "
        "traceback instead of one line.",
    ),
    Variable("NO_COLOR", "Set: no colours, even on a terminal (no-color.org)."),
    Variable(
        "COLUMNS",
        "The terminal width tables are fitted to (read through the standard library).",
    ),
    Variable(
        "PROMETHEUS_MULTIPROC_DIR",
        "The folder where serve's processes write their metrics (one per serve; its metric "
        "files are emptied at start). Unset: a temporary folder of each start's own.",
    ),
    Variable(
        "FLAVORSMITH_CATALOG",
        "In Ironic's environment: the catalog the inspection hook reads when Ironic's "
        "[flavorsmith]catalog option is not set.",
    ),
    Variable(
        "_FLAVORSMITH_COMPLETE",
        "Set by the shell completion script when it asks for completions.",
        internal=True,
    ),
    Variable(
        "FLAVORSMITH_SERVE_CONFIG",
        "Set by serve for its worker processes: the checked options, as JSON.",
        internal=True,
    ),
)


def data_dir() -> Path:
    """The per-user data folder: $XDG_DATA_HOME/flavorsmith, else ~/.local/share/flavorsmith."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "flavorsmith"


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / 'flavorsmith.db'}"


def resolve_database_url(option: str | None) -> str:
    """``--database``, else $FLAVORSMITH_DATABASE_URL, else the per-user SQLite file."""
    return option or os.environ.get("FLAVORSMITH_DATABASE_URL") or default_database_url()


class ConfigError(ValueError):
    """A setting that cannot work, with a message naming the value and what is allowed."""


def sqlite_folder(database: str, *, create: bool = False) -> Path | None:
    """The folder a SQLite file lives in (None in memory). It must exist, except the per-user
    default location, which ``create`` makes on demand: a mistyped path must not silently
    become a new, empty database."""
    if database in ("", ":memory:") or database.startswith("file:"):
        return None
    folder = Path(database).expanduser().parent
    if folder.is_dir():
        return folder
    if folder.resolve() != data_dir().resolve():
        raise ConfigError(
            f"SQLite database {database}: the folder {folder} does not exist "
            "(create it first, or fix the path)"
        )
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass(frozen=True)
class Settings:
    database_url: str
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    auth: AuthMode = "noauth"
    token_file: Path | None = None
    keystone_config: Path | None = None  # keystonemiddleware's [keystone_authtoken] ini
    policy_file: Path | None = None
    repo: Path | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    providers: str = DEFAULT_PROVIDERS
    # The drivers a node created through the Ironic API may use; None: those whose deploy
    # steps ship (ironic.nodes.DRIVERS).
    enabled_drivers: tuple[str, ...] | None = None
    # The Host names answered besides serve's defaults (api/hosts.py; "*": any); None: no
    # Host check at all (an application built without serve, as the in-process tests do).
    allowed_hosts: tuple[str, ...] | None = None


# The HTTP server's limits (flavorsmith serve --idle-timeout, --header-timeout,
# --body-timeout, --max-connections): a connection with no request under way is closed after
# the idle timeout, one whose request head has not fully arrived after the header timeout, one
# whose body has not after the body timeout (408), and past the connection limit a request is
# answered 503 (but /healthz and /readyz).
DEFAULT_IDLE_TIMEOUT = 5
DEFAULT_HEADER_TIMEOUT = 10
# A request body must have arrived in full this long after its head (serve --body-timeout):
# a drip of a byte every few seconds is cut off; 1 MiB (the body limit) needs 35 KB/s.
DEFAULT_BODY_TIMEOUT = 30
DEFAULT_MAX_CONNECTIONS = 1000
# The service's bounds on PostgreSQL waits (serve --db-statement-timeout, --db-connect-timeout,
# --db-pool-timeout; db/deadline.py): a request that meets a stalled database answers 503
# within about 15 s (a ping cut 2 s after the statement timeout, then 5 s for a new connection).
DEFAULT_DB_STATEMENT_TIMEOUT = 8.0
DEFAULT_DB_CONNECT_TIMEOUT = 5
DEFAULT_DB_POOL_TIMEOUT = 10.0
# SQLite: how long a writer waits for another's lock (serve --db-busy-timeout). A local file,
# so no network stall: a wait is another writer, whose transactions take milliseconds.
DEFAULT_DB_BUSY_TIMEOUT = 30.0
# How much of a request head (request line and headers) may be buffered before it is
# complete; past it, 431. Room for Keystone tokens and long query strings.
MAX_HEADER_BYTES = 32 * 1024
