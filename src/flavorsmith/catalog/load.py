"""Loading one catalog file: parse, schema-validate, build the model, check it."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flavorsmith.catalog import filechecks, schema
from flavorsmith.catalog.document import MAX_FILE_BYTES, Document, parse
from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.kinds import (
    DEPLOY_TEMPLATE,
    DEVICE_TYPE,
    EXTRA_SPEC,
    FLAVOR,
    LOAD_BALANCER_FLAVOR,
    LOAD_BALANCER_PROVIDER,
    NETWORK_FLAVOR,
    RUNBOOK,
    TRAIT,
    TRAIT_RULE,
    Kind,
)
from flavorsmith.catalog.model import (
    Definition,
    DeployTemplateDef,
    DeviceType,
    ExtraSpecSet,
    Flavor,
    LoadBalancerProfileDef,
    LoadBalancerProviderDef,
    NetworkFlavorDef,
    RunbookDef,
    TraitRuleSet,
    TraitSet,
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


class Resolved:
    """Paths resolved once for all the files of one catalog load: the working directory, each
    folder, the repository's roots. A load reads the catalog at one moment, so this lives no
    longer than a load (a relinked folder is seen by the next one)."""

    def __init__(self) -> None:
        self._loose: dict[Path, Path] = {}
        self._strict: dict[Path, Path | OSError | RuntimeError] = {}

    def loose(self, path: Path) -> Path:
        """``path.resolve()``."""
        found = self._loose.get(path)
        if found is None:
            found = self._loose[path] = path.resolve()
        return found

    def strict(self, path: Path) -> Path:
        """``path.resolve(strict=True)``, raising what it raised the first time."""
        found = self._strict.get(path)
        if found is None:
            try:
                found = path.resolve(strict=True)
            except (OSError, RuntimeError) as exc:
                found = exc
            self._strict[path] = found
        if isinstance(found, Exception):
            raise found
        return found


def display_path(path: Path, resolved: Resolved | None = None) -> str:
    """How diagnostics name a file: relative to the working directory when inside it. A link
    is named by itself, never by its target."""
    loose = resolved.loose if resolved is not None else Path.resolve
    try:
        return str((loose(path.parent) / path.name).relative_to(loose(Path.cwd())))
    except (ValueError, OSError):
        return str(path)


def load_bytes(
    raw: bytes, kind: Kind, path: Path, display: str | None = None, *, rules: CatalogRules
) -> Loaded:
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
        diagnostics = filechecks.check_extra_specs(doc, model, rules)
    elif kind is DEPLOY_TEMPLATE:
        model = DeployTemplateDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_deploy_template(doc, model, rules)
    elif kind is TRAIT:
        model = TraitSet.from_data(doc.data, doc)
        diagnostics = filechecks.check_trait_set(doc, model)
    elif kind is RUNBOOK:
        model = RunbookDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_runbook(doc, model, rules)
    elif kind is LOAD_BALANCER_FLAVOR:
        model = LoadBalancerProfileDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_load_balancer_profile(doc, model)
    elif kind is LOAD_BALANCER_PROVIDER:
        model = LoadBalancerProviderDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_load_balancer_provider(doc, model)
    elif kind is NETWORK_FLAVOR:
        model = NetworkFlavorDef.from_data(doc.data, doc)
        diagnostics = filechecks.check_network_flavor(doc, model)
    else:  # pragma: no cover - every kind is handled above
        raise ValueError(kind.name)
    return Loaded(path, kind, doc, model, diagnostics)


class Unreadable(Exception):
    """A catalog file that is not read: ``code`` and ``message`` say why, never its content."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_file(
    path: Path,
    *,
    roots: Sequence[Path] = (),
    max_bytes: int = MAX_FILE_BYTES,
    resolved: Resolved | None = None,
) -> bytes:
    """A catalog file's bytes, read only when it is safe to: with ``roots``, a path whose links
    lead outside all of them is refused (links that stay inside, as in a Kubernetes ConfigMap
    volume, are followed); only a regular file is opened for reading, its size is checked
    before a byte is read, and at most ``max_bytes`` + 1 bytes are ever read. ``resolved``
    resolves the roots once for many files."""
    if roots:
        strict = resolved.strict if resolved is not None else Resolved().strict
        try:
            target = path.resolve(strict=True)
            inside = any(target.is_relative_to(strict(r)) for r in roots)
        except (OSError, RuntimeError) as exc:  # missing, or a loop of links
            reason = getattr(exc, "strerror", None) or "a loop of symbolic links"
            raise Unreadable("io", f"cannot read: {reason}") from None
        if not inside:
            raise Unreadable(
                "outside-repository",
                "a symbolic link that leads outside the repository; refused "
                "(a link may only point at a file inside the repository)",
            )
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise Unreadable("io", f"cannot read: {exc.strerror or type(exc).__name__}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("io", "cannot read: not a regular file")
        if info.st_size > max_bytes:
            raise Unreadable(
                "too-big", f"file is {info.st_size} bytes; at most {max_bytes} allowed"
            )
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:  # it grew after the check
        raise Unreadable(
            "too-big", f"file is more than {max_bytes} bytes; at most {max_bytes} allowed"
        )
    return raw


def load_file(
    path: Path,
    kind: Kind,
    display: str | None = None,
    *,
    rules: CatalogRules,
    roots: Sequence[Path] = (),
    source: Path | None = None,
    resolved: Resolved | None = None,
) -> Loaded:
    """Read and load one definition file (see ``read_file`` for what is refused unread). Its
    bytes come from ``source`` when given (a ConfigMap volume's timestamped folder), while
    ``path`` stays the name it is known and reported by."""
    shown = display if display is not None else display_path(path, resolved)
    try:
        raw = read_file(source if source is not None else path, roots=roots, resolved=resolved)
    except Unreadable as exc:
        diag = Diagnostic(shown, 1, 1, "file", exc.message, Severity.ERROR, exc.code)
        return Loaded(path, kind, None, None, [diag])
    return load_bytes(raw, kind, path, shown, rules=rules)
