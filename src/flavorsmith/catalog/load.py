"""Loading one catalog file: parse, schema-validate, build the model, check it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flavorsmith.catalog import filechecks, schema
from flavorsmith.catalog.document import Document, parse
from flavorsmith.catalog.kinds import (
    DEPLOY_TEMPLATE,
    DEVICE_TYPE,
    EXTRA_SPEC,
    FLAVOR,
    TRAIT_RULE,
    Kind,
)
from flavorsmith.catalog.model import (
    Definition,
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    TraitRuleSet,
)
from flavorsmith.diagnostics import Diagnostic, Severity, has_errors


@dataclass(frozen=True)
class Loaded:
    """One file's outcome: the model when the file is usable, and every diagnostic."""

    path: Path
    kind: Kind
    doc: Document | None
    model: Definition | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def load_bytes(raw: bytes, kind: Kind, path: Path, display: str | None = None) -> Loaded:
    shown = display if display is not None else display_path(path)
    doc, diagnostics = parse(raw, shown)
    if doc is None:
        return Loaded(path, kind, None, None, diagnostics)
    diagnostics = schema.validate(doc, kind)
    if diagnostics:
        return Loaded(path, kind, doc, None, diagnostics)
    model: Definition
    if kind is FLAVOR:
        model = Flavor.from_data(doc.data, doc)
        diagnostics = filechecks.check_flavor(doc, model)
    elif kind is DEVICE_TYPE:
        model = DeviceType.from_data(doc.data, doc)
        diagnostics = filechecks.check_device_type(doc, model)
    elif kind is TRAIT_RULE:
        model = TraitRuleSet.from_data(doc.data, doc)
        diagnostics = filechecks.check_trait_rules(doc, model)
    elif kind is EXTRA_SPEC:
        model = ExtraSpecSet(doc.data["namespace"], doc.data, doc)
        diagnostics = filechecks.check_extra_specs(doc, model)
    elif kind is DEPLOY_TEMPLATE:
        model = DeployTemplateDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_deploy_template(doc, model)
    else:  # pragma: no cover - every kind is handled above
        raise ValueError(kind.name)
    return Loaded(path, kind, doc, model, diagnostics)


def load_file(path: Path, kind: Kind, display: str | None = None) -> Loaded:
    shown = display if display is not None else display_path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        diag = Diagnostic(shown, 1, 1, "file", f"cannot read: {reason}", Severity.ERROR, "io")
        return Loaded(path, kind, None, None, [diag])
    return load_bytes(raw, kind, path, shown)
