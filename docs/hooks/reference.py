"""The reference pages generated from the code at each build, so that they cannot go stale
(an MkDocs hook, named in mkdocs.yml):

- reference/commands.md: every command's help, from the CLI itself;
- reference/catalog-schemas.md and schemas/v1/<kind>.schema.json: the JSON Schema of each kind
  of catalog file, at the path of the URL the files' editor modeline names;
- reference/extra-spec-registry.md: every extra-spec validator, from the registry;
- reference/http-api.md and openapi.json: the HTTP APIs' OpenAPI document, from the routes'
  contracts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from flavorsmith.api.app import create_app
from flavorsmith.api.openapi import document
from flavorsmith.catalog.kinds import KINDS, SCHEMA_BASE
from flavorsmith.catalog.schema import schema_text
from flavorsmith.cli import build
from flavorsmith.config import Settings
from flavorsmith.extra_specs.builtin import build as builtin_registry
from flavorsmith.extra_specs.docs import markdown

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 100  # the help texts' width: the same on every machine


def on_files(files: Files, config: MkDocsConfig) -> Files:
    document = openapi()  # builds the app once: both the page and the file come from it
    generated = {
        "reference/commands.md": commands(),
        "reference/catalog-schemas.md": schemas_page(),
        "reference/extra-spec-registry.md": registry_page(),
        "reference/http-api.md": http_page(document),
        "openapi.json": json.dumps(document, indent=2) + "\n",
        **{f"schemas/v1/{kind.schema_file}": schema_text(kind) for kind in KINDS},
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


def registry_page() -> str:
    text = markdown(builtin_registry())
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    return (
        "# The extra-spec registry\n\n"
        "Every built-in validator (a catalog's own, declared under `hardware/extra-specs/`, come"
        " on top; `flavorsmith extra-specs docs` prints them all). How they are used: "
        "[flavor extra specs](extra-specs.md).\n" + body
    )


def openapi() -> dict[str, Any]:
    app = create_app(Settings(database_url="sqlite://", repo=ROOT / "examples"))
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
