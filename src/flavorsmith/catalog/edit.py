"""Adding and deleting definitions in a repository: validated first, written atomically."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from flavorsmith.catalog import kustomization
from flavorsmith.catalog.kinds import KINDS, Kind
from flavorsmith.catalog.load import Loaded, Unreadable, display_path, load_bytes, read_file
from flavorsmith.catalog.model import Definition, DeviceType, label
from flavorsmith.catalog.repo import Repository, with_modeline, write_atomic
from flavorsmith.diagnostics import Diagnostic, excerpt, has_errors
from flavorsmith.resource_classes import placement_name


class EditRefused(Exception):
    """An edit that would be wrong; nothing was written."""


@dataclass
class AddResult:
    written: Path | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    replaced: list[Path] = field(default_factory=list)


def add(repo: Repository, kind: Kind, source: Path, *, force: bool = False) -> AddResult:
    """Validate ``source`` against the repository, then write it to its canonical path."""
    _refuse_mounted(repo)
    try:
        raw = read_file(source)
    except Unreadable as exc:
        raise EditRefused(f"{source}: {exc.message}") from None
    candidate = load_bytes(raw, kind, source, rules=repo.rules)
    diagnostics = list(candidate.diagnostics)
    if candidate.model is None:
        return AddResult(None, diagnostics)
    model = candidate.model
    unusable = _unusable_file_name(candidate, model)
    if unusable is not None:
        # Nothing below may touch a path made of this name (a NUL in it crashes the OS call).
        return AddResult(None, sorted(diagnostics if has_errors(diagnostics) else [unusable]))
    target = repo.folder(kind) / model.canonical_file
    in_place = _same_path(source, target)
    clashes = [c for c in _same_definitions(repo, kind, model) if not _same_path(c.path, source)]
    if (
        not has_errors(diagnostics)
        and not force
        and (clashes or (target.exists() and not in_place))
    ):
        where = display_path(clashes[0].path if clashes else target)
        raise EditRefused(f"{label(model)} already exists at {where}; use --force to replace it")
    diagnostics += repo.check_candidate(_relocated(repo, candidate, target, raw), replace=force)
    if has_errors(diagnostics):
        return AddResult(None, sorted(diagnostics))
    text = kustomization_text(repo)
    for clash in clashes:
        if clash.path.resolve() != target.resolve():
            text = kustomization.remove_entry(text, kind, clash.path.name)
    text = kustomization.add_entry(text, kind, target.name)
    write_atomic(target, with_modeline(raw.decode("utf-8-sig"), kind))
    write_atomic(repo.kustomization_path, text)
    replaced = [c.path for c in clashes if c.path.resolve() != target.resolve()]
    for path in replaced:
        path.unlink(missing_ok=True)
    return AddResult(target, sorted(diagnostics), replaced)


def delete(repo: Repository, kind: Kind, name: str, *, force: bool = False) -> Path:
    """Remove a definition and its kustomization entry; returns the removed file."""
    _refuse_mounted(repo)
    found = repo.find(kind, name)
    if found is None:
        raise EditRefused(f"no {kind.name} named {name!r} in {display_path(repo.folder(kind))}")
    if isinstance(found.model, DeviceType) and not force:
        users = _flavors_using(repo, found.model)
        if users:
            raise EditRefused(
                f"{label(found.model)} defines resource classes used by flavors "
                f"{', '.join(users)}; delete those first or use --force"
            )
    if repo.kustomization_path.is_file():
        text = kustomization_text(repo)
        write_atomic(
            repo.kustomization_path, kustomization.remove_entry(text, kind, found.path.name)
        )
    found.path.unlink()
    return found.path


def _refuse_mounted(repo: Repository) -> None:
    """Mounted ConfigMaps are read-only copies: the change belongs in their source."""
    if repo.mounted:
        raise EditRefused(
            f"{display_path(repo.root)} holds mounted catalog folders (ConfigMap mode, no "
            "hardware/): change the files the ConfigMaps are generated from instead"
        )


def kustomization_text(repo: Repository) -> str:
    """The current kustomization, or a new one listing every existing definition."""
    path = repo.kustomization_path
    if not path.is_file():
        sections = [(k, [p.name for p in repo.definition_files(k)]) for k in KINDS]
        return kustomization.new_file([(k, names) for k, names in sections if names])
    text = path.read_text(encoding="utf-8")
    doc, diagnostics = kustomization.parse_text(text, display_path(path))
    if doc is None or diagnostics:
        detail = "; ".join(d.render() for d in diagnostics) or "not a mapping"
        raise EditRefused(f"cannot edit {display_path(path)}: {detail}")
    return text


def _relocated(repo: Repository, candidate: Loaded, target: Path, raw: bytes) -> Loaded:
    """The candidate as if it already lived at its target (for same-file replacement)."""
    shown = candidate.doc.display if candidate.doc is not None else display_path(target)
    moved = load_bytes(raw, candidate.kind, target, shown, rules=repo.rules)
    return moved


# The longest canonical file name: 255 bytes, less what the temporary file written beside it
# adds (a dot before, a dot and eight characters after).
MAX_FILE_NAME_BYTES = 255 - 10
# What a file name in the catalog's folders may not hold (the definition's name becomes one).
_NOT_IN_FILE_NAMES = ("\x00", "/", "\\")


def _unusable_file_name(candidate: Loaded, model: Definition) -> Diagnostic | None:
    """A diagnostic when the definition's canonical file name cannot be a file in its folder
    (a NUL byte, a path separator, a dot name), naming the field the name comes from."""
    name = model.canonical_file
    stem = name.removesuffix(".yaml")
    too_long = len(name.encode("utf-8")) > MAX_FILE_NAME_BYTES
    if (
        stem not in ("", ".", "..")
        and not too_long
        and not any(c in name for c in _NOT_IN_FILE_NAMES)
    ):
        return None
    field = model.key_field
    doc = candidate.doc
    line, column = doc.position((field,)) if doc is not None else (1, 1)
    return Diagnostic(
        doc.display if doc is not None else display_path(candidate.path),
        line,
        column,
        field,
        f"{excerpt(stem)} cannot name a file in the catalog, which the definition is saved as: "
        f"no NUL byte, '/' or '\\', not '.' or '..', and at most {MAX_FILE_NAME_BYTES} bytes "
        "with its .yaml (a file name holds 255, and a file is written beside a temporary one)",
    )


def _same_path(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _same_definitions(repo: Repository, kind: Kind, model: Definition) -> list[Loaded]:
    found = repo.find(kind, model.key)
    return [found] if found is not None else []


def _flavors_using(repo: Repository, device_type: DeviceType) -> list[str]:
    ours = {rc.placement_name for rc in device_type.resource_classes}
    catalog = repo.load().catalog
    return sorted(f.name for f in catalog.flavors if placement_name(f.resource_class) in ours)
