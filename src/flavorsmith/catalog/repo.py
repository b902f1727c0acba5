"""The catalog repository: where definitions live, loading and checking all of them, edits."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flavorsmith.catalog import checks, kustomization, volume
from flavorsmith.catalog import root as root_folder
from flavorsmith.catalog.document import Document
from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.kinds import DEVICE_TYPE, FLAVOR, KINDS, Kind
from flavorsmith.catalog.load import (
    Loaded,
    Resolved,
    Unreadable,
    display_path,
    load_file,
    read_file,
)
from flavorsmith.catalog.model import (
    Catalog,
    Definition,
    DeviceType,
    LoadBalancerProviderDef,
    answers_to,
)
from flavorsmith.catalog.root import resolve_root
from flavorsmith.diagnostics import Diagnostic, Severity, excerpt

W = Severity.WARNING
MODELINE_PREFIX = "# yaml-language-server: $schema="
LOAD_ATTEMPTS = 5  # reads of a catalog whose ConfigMap volumes keep changing while it is read
FOLDERS = ", ".join(f"{kind.folder}/" for kind in KINDS)


def _sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    return (diagnostic.path, diagnostic.line, diagnostic.column, diagnostic.message)


@dataclass
class RepoView:
    """Every definition of a repository, loaded, with every diagnostic."""

    loaded: list[Loaded] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def catalog(self) -> Catalog:
        return Catalog.of(x.model for x in self.loaded)


class Repository:
    """A catalog repository at ``root``, checked with ``rules`` (the extra-spec registry and
    Ironic's deploy-template rules, which the catalog does not own).

    ``root`` holds ``hardware/`` (a Git checkout: hardware/<kind folder>/, deployed through
    hardware/base/kustomization.yaml), or, in ConfigMap mode, the kinds' folders themselves
    (``device-types/``, ``flavors/``, ... each a mounted ConfigMap volume): then there is no
    kustomization and every YAML file of each folder is deployed."""

    def __init__(self, root: Path, rules: CatalogRules) -> None:
        self.root = root
        self.rules = rules
        self.kustomization_path = root / "hardware" / "base" / "kustomization.yaml"

    @property
    def mounted(self) -> bool:
        """ConfigMap mode: no hardware/ folder, and at least one kind's folder at the root."""
        return root_folder.mounted(self.root)

    @property
    def hardware(self) -> Path:
        """The folder holding the kinds' folders: hardware/, or the root in ConfigMap mode."""
        return self.root if self.mounted else self.root / "hardware"

    @property
    def roots(self) -> tuple[Path, Path]:
        """Where the catalog's files may live: in the repository, or wherever its ``hardware``
        folder is (it may itself be a link, to a mounted volume for instance)."""
        return self.root, self.hardware

    def exists(self) -> bool:
        return root_folder.holds_catalog(self.root)

    def folder(self, kind: Kind) -> Path:
        return self.hardware / kind.folder

    def files(self, kind: Kind) -> list[volume.CatalogFile]:
        """The kind's files, each with where its bytes are read (see ``volume.files``)."""
        return volume.files(self.folder(kind))

    def definition_files(self, kind: Kind) -> list[Path]:
        return [item.path for item in self.files(kind)]

    def load_definition(
        self,
        path: Path,
        kind: Kind,
        source: Path | None = None,
        *,
        roots: Sequence[Path] | None = None,
        resolved: Resolved | None = None,
    ) -> Loaded:
        """One definition file of this repository; a link leading out of it is refused.
        ``roots`` (``self.roots``) and ``resolved`` are shared by the files of one load."""
        return load_file(
            path,
            kind,
            rules=self.rules,
            roots=self.roots if roots is None else roots,
            source=source,
            resolved=resolved,
        )

    def load(self) -> RepoView:
        """Load and check every definition, across files and against the kustomization.

        A repository without its hardware/ folder (a wrong path, or a checkout or ConfigMap
        swap caught half-way) is an error, never an empty catalog: an empty catalog applied
        with prune would delete everything; so is, in ConfigMap mode, a set of mounted folders
        without a single file. Each ConfigMap volume is read from one update; when one is
        swapped while the catalog is read, it is read again (a few times, then it is an
        error), so a load never mixes two updates."""
        for _ in range(LOAD_ATTEMPTS):
            before = self._generation()
            view = self._load_once()
            if self._generation() == before:
                return view
        message = (
            f"the catalog under {self.root} changed {LOAD_ATTEMPTS} times while it was read "
            "(ConfigMap volumes being updated); nothing is loaded from it this time"
        )
        shown = display_path(self.hardware)
        return RepoView(diagnostics=[Diagnostic(shown, 1, 1, "file", message, code="changing")])

    def _generation(self) -> tuple[str | None, ...]:
        """What a ConfigMap update or a relinked hardware folder changes: where each kind's
        folder resolves to, and the update its ``..data`` names."""
        out: list[str | None] = []
        for kind in KINDS:
            folder = self.folder(kind)
            out += [os.path.realpath(folder), volume.stamp(folder)]
        return tuple(out)

    def _load_once(self) -> RepoView:
        view = RepoView()
        if not self.exists():
            view.diagnostics.append(
                Diagnostic(
                    display_path(self.root / "hardware"),
                    1,
                    1,
                    "hardware",
                    f"{self.root} is not a catalog repository (any more): it has no hardware/ "
                    f"folder, nor mounted catalog folders ({FOLDERS}); nothing is loaded from it",
                    code="repository-missing",
                )
            )
            return view
        roots, resolved = self.roots, Resolved()
        for kind in KINDS:
            for item in self.files(kind):
                loaded = self.load_definition(
                    item.path, kind, item.source, roots=roots, resolved=resolved
                )
                view.loaded.append(loaded)
                view.diagnostics.extend(loaded.diagnostics)
        if self.mounted and not view.loaded:
            present = ", ".join(f"{k.folder}/" for k in KINDS if self.folder(k).is_dir())
            view.diagnostics.append(
                Diagnostic(
                    display_path(self.root),
                    1,
                    1,
                    "hardware",
                    f"the mounted catalog folders under {self.root} ({present}) hold no "
                    "definition file: an empty or not yet filled ConfigMap is not an empty "
                    "catalog; nothing is loaded from it",
                    code="repository-empty",
                )
            )
            return view
        # Definitions in their canonical file come first, so a duplicate is reported on the copy.
        ordered = sorted(view.loaded, key=lambda x: (not _canonical(x), str(x.path)))
        view.diagnostics.extend(
            checks.across_files(
                Catalog.of(x.model for x in ordered),
                self.rules,
                unchecked_resource_classes=_names_in_broken_device_types(view.loaded),
            )
        )
        view.diagnostics.extend(self._check_file_names(view.loaded))
        view.diagnostics.extend(self._check_kustomization(view.loaded))
        view.diagnostics.sort(key=_sort_key)
        return view

    def check_candidate(self, candidate: Loaded, *, replace: bool = False) -> list[Diagnostic]:
        """Cross-file diagnostics for one file as if it were in this repository.

        The candidate replaces a repository file at the same path; with ``replace`` it also
        replaces a definition of the same name, as ``add --force`` does.
        """
        if candidate.model is None or not self.exists():
            return []
        others = [
            x.model
            for x in self.load().loaded
            if x.model is not None
            and not _same_file(x.path, candidate.path)
            and not (replace and _same_definition(x.model, candidate.model))
        ]
        found = checks.across_files(Catalog.of([*others, candidate.model]), self.rules)
        shown = candidate.doc.display if candidate.doc is not None else ""
        return [d for d in found if d.path == shown]

    def find(self, kind: Kind, name: str) -> Loaded | None:
        """A definition by flavor name, or by device-type slug or 'manufacturer model'."""
        wanted = name.casefold()
        for path in self.definition_files(kind):
            loaded = self.load_definition(path, kind)
            model = loaded.model
            if model is not None and answers_to(model, name):
                return loaded
            if model is None and path.stem.casefold() == wanted:
                return loaded
        return None

    def _check_file_names(self, loaded: Sequence[Loaded]) -> list[Diagnostic]:
        out = []
        for item in loaded:
            model, doc = item.model, item.doc
            if model is None or doc is None:
                continue
            if item.path.name != model.canonical_file:
                where = (
                    [model.key_field]
                    if isinstance(model, DeviceType | LoadBalancerProviderDef)
                    else ["name"]
                )
                out.append(
                    doc.diagnostic(
                        where,
                        f"file name should be {model.canonical_file!r} to match the definition",
                        severity=W,
                        code="file-name",
                    )
                )
        return out

    def _check_kustomization(self, loaded: Sequence[Loaded]) -> list[Diagnostic]:
        if self.mounted:
            return []  # ConfigMap mode: every file of each folder is deployed
        shown = display_path(self.kustomization_path)
        if not self.kustomization_path.is_file():
            if not loaded:
                return []
            message = "missing: no definition is deployed (flavorsmith ... add creates it)"
            return [Diagnostic(shown, 1, 1, "file", message, W, "kustomization-missing")]
        try:
            raw = read_file(self.kustomization_path, roots=self.roots)
        except Unreadable as exc:
            return [Diagnostic(shown, 1, 1, "file", exc.message, code=exc.code)]
        doc, out = kustomization.parse_text(raw.decode("utf-8", errors="replace"), shown)
        if doc is None:
            return out
        base = self.kustomization_path.parent
        outside = self._outside_entries(doc, shown)
        out += outside
        refused = {(d.line, d.column) for d in outside}
        for kind in KINDS:
            names = {p.name for p in self.definition_files(kind)}
            listed = kustomization.entries(doc, kind.configmap) or []
            for entry in listed:
                # The system resolves links and ``..`` as Path.resolve does, in one call.
                if (entry.line, entry.column) in refused:
                    continue
                if not os.path.isfile(base / entry.target):
                    out.append(
                        Diagnostic(
                            shown,
                            entry.line,
                            entry.column,
                            f"configMapGenerator[{kind.configmap}].files",
                            f"{entry.target!r} does not exist; kustomize build will fail",
                            code="kustomization-missing-file",
                        )
                    )
            deployed = {e.definition() for e in listed}
            for item in loaded:
                if (
                    item.kind is kind
                    and item.path.name in names
                    and (kind.folder, item.path.name) not in deployed
                ):
                    out.append(
                        Diagnostic(
                            item.doc.display if item.doc else display_path(item.path),
                            1,
                            1,
                            "file",
                            f"not listed in {shown} (configMapGenerator "
                            f"{kind.configmap!r}): it is never deployed",
                            W,
                            "kustomization-unlisted",
                        )
                    )
        return out

    def _outside_entries(self, doc: Document, shown: str) -> list[Diagnostic]:
        """The kustomization's paths that lead out of the repository, by their text (an
        absolute path, ``..`` past the root) or through a symbolic link: kustomize refuses
        them ("security; file … is not in or below …"), and nothing there is read."""
        base = self.kustomization_path.parent
        written_roots = [os.path.abspath(r) for r in self.roots]
        inside = [os.path.realpath(r) for r in self.roots]
        out = []
        for where, entry in kustomization.local_paths(doc):
            target = entry.target
            written = os.path.abspath(os.path.join(base, target))
            real = os.path.realpath(written)
            if not any(_within(written, r) for r in (*written_roots, *inside)):
                why = "is outside the repository"
            elif not any(_within(real, r) for r in inside):
                why = "leads outside the repository through a symbolic link"
            else:
                continue
            message = (
                f"{excerpt(target)} {why}; kustomize build refuses files that are not in "
                "or below the repository, and nothing there is read"
            )
            out.append(
                Diagnostic(
                    shown, entry.line, entry.column, where, message, code="kustomization-outside"
                )
            )
        return out


def _within(path: str, root: str) -> bool:
    """Whether the absolute ``path`` is ``root`` or below it."""
    return os.path.commonpath([path, root]) == root


def _canonical(loaded: Loaded) -> bool:
    return loaded.model is not None and loaded.path.name == loaded.model.canonical_file


def _names_in_broken_device_types(loaded: Sequence[Loaded]) -> frozenset[str]:
    """Resource-class names still readable from device-type files that failed validation."""
    names: set[str] = set()
    for item in loaded:
        if item.kind is DEVICE_TYPE and item.model is None and item.doc is not None:
            data = item.doc.data
            classes = data.get("resource_class") if isinstance(data, dict) else None
            for rc in classes if isinstance(classes, list) else []:
                if isinstance(rc, dict) and isinstance(rc.get("name"), str):
                    names.add(rc["name"])
    return frozenset(names)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _same_definition(a: Definition, b: Definition) -> bool:
    return type(a) is type(b) and a.key == b.key


def with_modeline(text: str, kind: Kind) -> str:
    """The file text with our editor modeline as its first line (replacing any other)."""
    lines = text.splitlines(keepends=True)
    head = 0
    while head < len(lines) and (lines[head].strip() in ("", "---") or lines[head][:1] == "#"):
        head += 1
    kept = [line for line in lines[:head] if not line.startswith(MODELINE_PREFIX)]
    body = "".join(kept + lines[head:])
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{MODELINE_PREFIX}{kind.schema_id}\n{body}"


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` in one step, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["DEVICE_TYPE", "FLAVOR", "RepoView", "Repository", "resolve_root"]
