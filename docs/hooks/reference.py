"""The reference pages generated from the code at each build, so that they cannot go stale
(an MkDocs hook, named in mkdocs.yml):

- reference/commands.md: every command's help, from the CLI itself;
- reference/catalog-schemas.md and schemas/v1/<kind>.schema.json: the JSON Schema of each kind
  of catalog file, at the path of the URL the files' editor modeline names;
- reference/extra-spec-registry.md: every extra-spec validator, from the registry, and
  extra-specs/metadefs/<namespace>.json: the same keys as Glance metadata definitions;
- reference/http-api.md and openapi.json: the HTTP APIs' OpenAPI document, from the routes'
  contracts;
- reference/configuration.md: serve's options and every environment variable, from the CLI
  and config.ENVIRONMENT;
- reference/metrics.md: every Prometheus metric, from the collectors a scrape reads;
- reference/limits.md: every timeout and limit with its default, from the constants and
  serve's options (LIMITS below);
- reference/exit-codes.md: the exit codes, from cli.exit_codes.ExitCode."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import inspect
import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import typer
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from prometheus_client.metrics import MetricWrapperBase

from flavorsmith import (
    config,
    flavor_ids,
    jsonsafe,
    metrics,
    query_values,
    resource_classes,
    traits,
)
from flavorsmith.api import microversions
from flavorsmith.api.app import create_app
from flavorsmith.api.families import Family
from flavorsmith.api.openapi import document
from flavorsmith.api.routes import UNMATCHED
from flavorsmith.catalog import document as catalog_document
from flavorsmith.catalog.kinds import KINDS, SCHEMA_BASE
from flavorsmith.catalog.schema import schema_text
from flavorsmith.cli import build
from flavorsmith.cli.exit_codes import ExitCode
from flavorsmith.config import ENVIRONMENT, Settings
from flavorsmith.db import deadline, migrate
from flavorsmith.db.engine import make_engine
from flavorsmith.extra_specs.builtin import build as builtin_registry
from flavorsmith.extra_specs.docs import markdown
from flavorsmith.extra_specs.metadef import file_name, namespaces
from flavorsmith.providers import validation
from flavorsmith.serving.metrics import collectors

# The Keystone module imports keystonemiddleware, whose WebOb imports the standard library's
# cgi module; MkDocs would log that deprecation with its traceback.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "'cgi' is deprecated", DeprecationWarning)
    from flavorsmith.api import keystone

ROOT = Path(__file__).resolve().parents[2]
METADEFS = "extra-specs/metadefs"  # the Glance metadata definitions, one file per namespace
WIDTH = 100  # the help texts' width: the same on every machine


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = typer.main.get_command(build())
    with service_app() as app:  # built once: the OpenAPI pages and the metrics come from it
        document = openapi(app)
        scraped = metric_families(app)
    metadefs = namespaces(builtin_registry())
    generated = {
        "reference/commands.md": commands(),
        "reference/catalog-schemas.md": schemas_page(),
        "reference/extra-spec-registry.md": registry_page(metadefs),
        "reference/http-api.md": http_page(document),
        "openapi.json": json.dumps(document, indent=2) + "\n",
        "reference/configuration.md": configuration_page(root),
        "reference/metrics.md": metrics_page(scraped, root),
        "reference/limits.md": limits_page(root),
        "reference/exit-codes.md": exit_codes_page(),
        **{f"schemas/v1/{kind.schema_file}": schema_text(kind) for kind in KINDS},
        **{
            f"{METADEFS}/{file_name(document)}": json.dumps(document, indent=2) + "\n"
            for document in metadefs
        },
    }
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    return files


def commands() -> str:
    root = typer.main.get_command(build())
    out = [
        "# Every command",
        "",
        "Each command's `--help`, as `flavorsmith` prints it (this page is made from the CLI at",
        "each build of the site).",
        "",
    ]
    for path, command in _walk(root, ["flavorsmith"]):
        context = command.context_class(  # typer's own copy of click's Context
            command, info_name=" ".join(path), terminal_width=WIDTH, max_content_width=WIDTH
        )
        out += [f"## `{' '.join(path)}`", "", "```text", command.get_help(context), "```", ""]
    return "\n".join(out)


def _walk(command: Any, path: list[str]) -> list[tuple[list[str], Any]]:
    """Every command below ``command`` with its words (typer's commands are its own copy of
    click's classes: a group is what has subcommands)."""
    found = [(path, command)] if len(path) > 1 else []
    for name in sorted(getattr(command, "commands", {})):
        found += _walk(command.commands[name], [*path, name])
    return found


def schemas_page() -> str:
    out = [
        "# Catalog file schemas",
        "",
        "Each kind of catalog file has a JSON Schema (draft 2020-12). A file's first line names",
        "it for editors with the YAML language server, e.g.",
        "",
        "```yaml",
        f"# yaml-language-server: $schema={SCHEMA_BASE}flavor.schema.json",
        "```",
        "",
        "The schemas are published with this site at that path; `flavorsmith schema KIND` prints",
        "the same document.",
        "",
        "| kind | folder | schema |",
        "| --- | --- | --- |",
    ]
    for kind in KINDS:
        out.append(
            f"| `{kind.name}` | `hardware/{kind.folder}/` | "
            f"[{kind.schema_file}](../schemas/v1/{kind.schema_file}) |"
        )
    return "\n".join(out) + "\n"


def registry_page(documents: list[dict[str, Any]]) -> str:
    text = markdown(builtin_registry())
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    files = "\n".join(
        f"| `{document['namespace']}` | [{file_name(document)}]"
        f"(../{METADEFS}/{file_name(document)}) | {len(document['properties'])} |"
        for document in documents
    )
    return (
        "# The extra-spec registry\n\n"
        "Every built-in validator (a catalog's own, declared under `hardware/extra-specs/`, come"
        " on top; `flavorsmith extra-specs docs` prints them all). How they are used: "
        "[flavor extra specs](extra-specs.md).\n\n"
        "## Glance metadata definitions\n\n"
        "The same keys as Glance metadata-definition namespaces, one file per namespace, in the"
        " format `POST /v2/metadefs/namespaces` takes, so Horizon offers them on a flavor"
        " (`flavorsmith extra-specs metadef --output DIR --repo .` writes them with the"
        " catalog's own validators):\n\n"
        "| namespace | file | keys |\n| --- | --- | --- |\n" + files + "\n" + body
    )


@contextlib.contextmanager
def service_app() -> Iterator[Any]:
    """The service's app on the example catalog and an empty, current in-memory database (so
    its scrape-time collectors can read the inventory, as a running service's do)."""
    engine = make_engine("sqlite://")
    try:
        migrate.upgrade(engine)
        yield create_app(Settings(database_url="sqlite://", repo=ROOT / "examples"), engine=engine)
    finally:
        engine.dispose()


def openapi(app: Any) -> dict[str, Any]:
    found: dict[str, Any] = document(app)
    return found


def http_page(found: dict[str, Any]) -> str:
    out = [
        "# HTTP operations",
        "",
        "Every operation the service answers, from the OpenAPI document its routes' contracts",
        "generate (the running service serves it at `/v1/openapi.json`; this site has a copy:",
        "[openapi.json](../openapi.json)).",
        "",
        "| method | path | summary |",
        "| --- | --- | --- |",
    ]
    for path, methods in sorted(found.get("paths", {}).items()):
        for method, operation in methods.items():
            summary = str(operation.get("summary", "")).replace("|", "\\|")
            out.append(f"| {method.upper()} | `{path}` | {summary} |")
    return "\n".join(out) + "\n"


def _cell(text: object) -> str:
    """A table cell: one line, its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _command(root: Any, *words: str) -> Any:
    command = root
    for word in words:
        command = command.commands[word]
    return command


def _options(command: Any) -> dict[str, Any]:
    """A command's options by their long name."""
    return {
        max(param.opts, key=len): param
        for param in command.params
        if param.param_type_name == "option" and not param.hidden
    }


def _default(param: Any) -> str:
    if param.is_flag:
        return "on" if param.default else "off"
    if param.default is None or param.default == ():
        return "—"
    return f"`{param.default}`"


def _envvars(param: Any) -> list[str]:
    envvar = param.envvar
    return [] if envvar is None else [envvar] if isinstance(envvar, str) else list(envvar)


def configuration_page(root: Any) -> str:
    serve = _command(root, "serve")
    out = [
        "# Configuration",
        "",
        "Everything `flavorsmith serve` can be told, and every environment variable Flavorsmith",
        "reads (this page is made from the CLI and from `flavorsmith.config.ENVIRONMENT` at each",
        "build of the site). The timeouts and limits among these options, with what happens",
        "when one is reached: [Limits](limits.md).",
        "",
        "## `flavorsmith serve`",
        "",
        "Settings come from the command line only, but for the options that name an environment",
        "variable (an option given wins over its variable).",
        "",
        "| option | default | environment | what |",
        "| --- | --- | --- | --- |",
    ]
    for name, param in _options(serve).items():
        if name == "--help":
            continue
        envvars = ", ".join(f"`{v}`" for v in _envvars(param)) or "—"
        out.append(f"| `{name}` | {_cell(_default(param))} | {envvars} | {_cell(param.help)} |")
    out += [
        "",
        "## Environment variables",
        "",
        "| variable | option it stands for | what |",
        "| --- | --- | --- |",
    ]
    bound: dict[str, dict[str, str]] = {}  # variable -> option -> its help
    for _path, command in _walk(root, ["flavorsmith"]):
        for name, param in _options(command).items():
            for variable in _envvars(param):
                bound.setdefault(variable, {}).setdefault(name, param.help or "")
    declared = {v.name: v for v in ENVIRONMENT}
    for variable in sorted(set(bound) | {v.name for v in ENVIRONMENT if not v.internal}):
        options = bound.get(variable, {})
        meaning = (
            declared[variable].meaning if variable in declared else next(iter(options.values()))
        )
        shown = ", ".join(f"`{o}`" for o in options) or "—"
        out.append(f"| `{variable}` | {shown} | {_cell(meaning)} |")
    out += [
        "",
        "Set by Flavorsmith itself, never by hand:",
        "",
        *(f"- `{v.name}`: {v.meaning}" for v in ENVIRONMENT if v.internal),
        "",
    ]
    return "\n".join(out)


@dataclass(frozen=True)
class DescribedMetric:
    name: str  # as queried: a counter's with _total
    type: str
    help: str
    labels: tuple[str, ...]
    recorded: bool  # else computed when scraped


def metric_families(app: Any) -> list[DescribedMetric]:
    """Every metric a scrape of ``app``'s service shows: the recorded ones (their label names
    from the metric objects) and the scrape-time collectors' (from the families they yield)."""
    found = metrics.recorded()
    wrappers = {
        wrapper._name: wrapper
        for wrapper in (getattr(found, f.name) for f in dataclasses.fields(found))
        if isinstance(wrapper, MetricWrapperBase)
    }
    families = []
    for metric in metrics.Exposition(collectors(app.state.services)).collect():
        wrapper = wrappers.get(metric.name)
        labels = tuple(
            wrapper._labelnames if wrapper is not None else getattr(metric, "_labelnames", ())
        )
        name = f"{metric.name}_total" if metric.type == "counter" else metric.name
        families.append(
            DescribedMetric(name, metric.type, metric.documentation, labels, wrapper is not None)
        )
    return families


def metrics_page(families: list[DescribedMetric], root: Any) -> str:
    port = _options(_command(root, "serve"))["--metrics-port"]
    if "/metrics" not in (port.help or ""):
        raise ValueError("--metrics-port no longer says where it serves the metrics")
    out = [
        "# Metrics",
        "",
        "Every Prometheus metric `flavorsmith serve` exposes, as a scrape reads them (this page is",
        "made from the metric objects and the scrape-time collectors at each build of the site).",
        "A scrape reads them at `/metrics` on the port `serve --metrics-port PORT` opens",
        "([its options](configuration.md#flavorsmith-serve)). Why the metrics have a port of their",
        "own, how workers add up, and alerts to start from: [Metrics and",
        "logs](observability.md#metrics).",
        "",
        "| metric | type | labels | when | what |",
        "| --- | --- | --- | --- | --- |",
    ]
    for family in families:
        labels = ", ".join(f"`{label}`" for label in family.labels) or "—"
        when = "recorded" if family.recorded else "computed when scraped"
        out.append(
            f"| `{family.name}` | {family.type} | {labels} | {when} | {_cell(family.help)} |"
        )
    buckets = ", ".join(f"{b:g}" for b in metrics.BUCKETS)
    out += [
        "",
        "A histogram `NAME` is the series `NAME_bucket` (with the label `le`), `NAME_sum` and",
        f"`NAME_count`; its buckets are {buckets} seconds.",
        "",
        "Label values:",
        "",
        f"- `family`: {', '.join(f'`{f.value}`' for f in Family)};",
        f"- `route`: the route's template, never the raw path; `{UNMATCHED}` when no route"
        " matches;",
        f"- `method`: {', '.join(f'`{m}`' for m in sorted(metrics.METHODS))}, else `other`"
        " (a client cannot grow the label set).",
        "",
    ]
    return "\n".join(out)


@dataclass(frozen=True)
class Limit:
    """A timeout or limit with its default: the constant holding it, the serve option that
    changes it (whose default must be that constant), and what happens when it is reached."""

    what: str
    module: ModuleType
    constant: str
    unit: str  # "s", "bytes", "" (a count), "%"
    option: str | None
    reached: str

    @property
    def value(self) -> Any:
        return getattr(self.module, self.constant)


LIMITS = (
    Limit(
        "request body size",
        config,
        "DEFAULT_MAX_BODY_BYTES",
        "bytes",
        "--max-body-bytes",
        "413 in the API's own error body",
    ),
    Limit(
        "request head size (request line and headers)",
        config,
        "MAX_HEADER_BYTES",
        "bytes",
        None,
        "431, and the connection is closed",
    ),
    Limit(
        "idle connection",
        config,
        "DEFAULT_IDLE_TIMEOUT",
        "s",
        "--idle-timeout",
        "a connection with no request under way (a new one that sends nothing, a kept-alive"
        " one between requests) is closed",
    ),
    Limit(
        "request head",
        config,
        "DEFAULT_HEADER_TIMEOUT",
        "s",
        "--header-timeout",
        "a request line and headers not complete this long after their first byte are dropped"
        " with the connection; more bytes do not restart the timer",
    ),
    Limit(
        "request body",
        config,
        "DEFAULT_BODY_TIMEOUT",
        "s",
        "--body-timeout",
        "a body not complete this long after its head (a deadline for the whole body: a drip"
        " of a byte every few seconds does not extend it) is answered 408 in the API's own"
        " error body when no response has begun, and the connection is closed; the request is"
        " logged and counted as that 408. A client that goes away mid-body is logged and"
        ' counted as 499 (nginx\'s "client closed request"), never as an error',
    ),
    Limit(
        "connections served at once",
        config,
        "DEFAULT_MAX_CONNECTIONS",
        "",
        "--max-connections",
        "a request on one more connection is answered 503 (`Connection: close`); the log says"
        " `overloaded: …` once a minute, with how many were refused in between. `/healthz`"
        " and `/readyz` are answered past the limit, so slow clients that fill it never make a"
        " replica look dead to its load balancer",
    ),
    Limit(
        "PostgreSQL: a statement, commit or ping",
        config,
        "DEFAULT_DB_STATEMENT_TIMEOUT",
        "s",
        "--db-statement-timeout",
        "the server cancels it (`statement_timeout`); if its answer cannot come back (a stalled"
        f" link), the connection is dropped {deadline.CUT_AFTER_SERVER:g} s later and never"
        " pooled again. Either way the request is a 503 with `Retry-After` in the API's own"
        " error body, and a background loop logs it and tries again at its next round",
    ),
    Limit(
        "PostgreSQL: connecting",
        config,
        "DEFAULT_DB_CONNECT_TIMEOUT",
        "s",
        "--db-connect-timeout",
        "the attempt fails: 503 with `Retry-After` (`connect_timeout` in the URL wins; other"
        " commands than serve give up after the same time)",
    ),
    Limit(
        "PostgreSQL: a free pooled connection",
        config,
        "DEFAULT_DB_POOL_TIMEOUT",
        "s",
        "--db-pool-timeout",
        "503 with `Retry-After`",
    ),
    Limit(
        "PostgreSQL: a transaction left idle",
        deadline,
        "IDLE_IN_TRANSACTION_TIMEOUT",
        "s",
        None,
        "the server ends it (`idle_in_transaction_session_timeout`, at least the statement"
        " timeout), releasing its locks",
    ),
    Limit(
        "SQLite: another writer's lock",
        config,
        "DEFAULT_DB_BUSY_TIMEOUT",
        "s",
        "--db-busy-timeout",
        "`database is locked`: 503 with `Retry-After`. A local file has no network to stall; a"
        " wait is another writer, whose transactions take milliseconds",
    ),
    Limit(
        "nesting of a JSON or YAML document",
        jsonsafe,
        "MAX_DEPTH",
        "",
        None,
        "levels of arrays and objects, in a request body, in each stored field, in a catalog"
        " file, a `node import` dump, a `sync apply PLAN` file: a 400 naming the JSON path"
        " (checked before parsing), or one diagnostic at its line",
    ),
    Limit(
        "catalog file size",
        catalog_document,
        "MAX_FILE_BYTES",
        "bytes",
        None,
        "one diagnostic naming the file, before a byte is read; a watcher's round is refused"
        " and logged, the service serves on",
    ),
    Limit(
        "values in one catalog file (YAML aliases expanded)",
        catalog_document,
        "MAX_NODES",
        "",
        None,
        "one diagnostic naming the file and line",
    ),
    Limit(
        "digits of a microversion's major or minor number",
        microversions,
        "MAX_DIGITS",
        "",
        None,
        "an unsupported version (406)",
    ),
    Limit(
        "items in one page of an Ironic list (`limit=`)",
        query_values,
        "MAX_LIMIT",
        "",
        None,
        "a larger `limit`, or none, returns this many",
    ),
    Limit(
        "traits on one node",
        traits,
        "MAX_TRAITS_PER_NODE",
        "",
        None,
        "a change that would give a node more is a 400 (as Ironic refuses it)",
    ),
    Limit(
        "a trait's name (with `CUSTOM_`)",
        traits,
        "MAX_TRAIT_LENGTH",
        "",
        None,
        "characters: an error in `validate`, a 400 from the Ironic API",
    ),
    Limit(
        "a resource class's name",
        resource_classes,
        "IRONIC_MAX_LENGTH",
        "",
        None,
        "characters (Ironic's column): an error in `validate`, a 400 from the Ironic API",
    ),
    Limit(
        "a flavor's name (its Nova flavor id)",
        flavor_ids,
        "MAX_LENGTH",
        "",
        None,
        "characters: an error in `validate`",
    ),
    Limit(
        "an Octavia flavor profile's `flavor_data`",
        validation,
        "MAX_FLAVOR_DATA",
        "",
        None,
        "characters: a 400",
    ),
    Limit(
        "an answer from Keystone (a login, a project lookup)",
        keystone,
        "TIMEOUT",
        "s",
        None,
        "Keystone counts as unreachable: the request is a 503",
    ),
)


# The rules every value from outside meets (no single constant holds them).
RULES = (
    (
        "integers",
        f"{jsonsafe.INT_MIN} to {jsonsafe.INT_MAX} (a signed 64-bit column); longer digit"
        " strings are refused before conversion",
    ),
    ("other numbers", jsonsafe.FLOAT_RULE),
    (
        "text",
        "no NUL (`\\u0000`, which PostgreSQL text refuses) and no lone UTF-16 surrogate, in keys"
        " and values",
    ),
    (
        "paths and query strings",
        "no control characters (NUL, line breaks, …) in a path segment, a parameter name or a"
        " value",
    ),
    ("integer query parameters", "ASCII digits only (`limit=²` is a 400), within 64 bits"),
    (
        "a query parameter sent twice",
        "as the real service: Ironic refuses a repeated scalar (`Expected an integer for limit:"
        " ['1', '2']`) and counts every `fields` and `shard`; Octavia and `/v1` refuse it (400"
        " naming it); Nova 34 reads the last one (`limit=1&limit=2` pages by 2) and so do we",
    ),
    (
        "`Host` header",
        "a name the service does not answer to (see `--allowed-host` and [Writes from web"
        " pages](../explanation/web-writes.md)) is a 400 before routing",
    ),
    (
        "UUID fields",
        "`uuid` and `instance_uuid` must be UUIDs and are stored in canonical form; text fields"
        " are no longer than their column",
    ),
)


def _amount(value: Any, unit: str) -> str:
    if unit == "bytes":
        for size, name in ((1024 * 1024, "MiB"), (1024, "KiB")):
            if value % size == 0:
                return f"{value // size} {name}"
        return f"{value} bytes"
    number = f"{value:,}" if isinstance(value, int) else f"{value:,g}"
    return f"{number} s" if unit == "s" else number


def limits_page(root: Any) -> str:
    options = _options(_command(root, "serve"))
    alive = deadline.KEEPALIVES
    out = [
        "# Limits",
        "",
        "Every timeout and limit, with its default, the `flavorsmith serve` option that changes",
        "it and what happens when it is reached (this page is made from the constants and the",
        "options at each build of the site). Why the service has them: [the service's request",
        "limits](service.md#request-limits).",
        "",
        "| limit | default | option | when reached | constant |",
        "| --- | --- | --- | --- | --- |",
    ]
    for limit in LIMITS:
        if limit.option is not None and options[limit.option].default != limit.value:
            raise ValueError(f"{limit.option}'s default is not {limit.constant}")
        option = f"`{limit.option}`" if limit.option else "—"
        constant = f"`{limit.module.__name__}.{limit.constant}`"
        out.append(
            f"| {_cell(limit.what)} | {_amount(limit.value, limit.unit)} | {option} | "
            f"{_cell(limit.reached)} | {constant} |"
        )
    out += [
        "",
        "PostgreSQL connections, of every command and not only serve's, probe a silent peer:",
        f"TCP keepalives after {alive['keepalives_idle']} s idle, every"
        f" {alive['keepalives_interval']} s, {alive['keepalives_count']} probes, and data not"
        f" acknowledged for {alive['tcp_user_timeout'] / 1000:g} s (`tcp_user_timeout`): the",
        "kernel gives the connection up.",
        "",
        "## Rules for values from outside",
        "",
        "Request bodies, stored values, catalog files, `node import` dumps and plan files; what",
        "breaking one does: [request limits](service.md#request-limits).",
        "",
        "| what | rule |",
        "| --- | --- |",
        *(f"| {_cell(what)} | {_cell(rule)} |" for what, rule in RULES),
        "",
    ]
    return "\n".join(out)


def member_docs(enum_class: type) -> dict[str, str]:
    """The text under each member of an enum's class body (its attribute docstring)."""
    body = ast.parse(inspect.getsource(enum_class)).body[0]
    assert isinstance(body, ast.ClassDef)
    found: dict[str, str] = {}
    for statement, following in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            text = inspect.cleandoc(following.value.value)
            found[statement.targets[0].id] = text.replace("``", "`")  # reST's literals
    return found


def exit_codes_page() -> str:
    docs = member_docs(ExitCode)
    out = [
        "# Exit codes",
        "",
        "What the exit status of `flavorsmith` means, for every command (this page is made from",
        "`flavorsmith.cli.exit_codes.ExitCode` at each build of the site).",
        "",
        "| code | name | meaning |",
        "| --- | --- | --- |",
    ]
    for name, member in ExitCode.__members__.items():
        out.append(f"| {int(member)} | `{name}` | {_cell(docs[name])} |")
    return "\n".join(out) + "\n"
