"""The two catalogs ``review`` compares: a Git revision of the catalog repository, read with Git
itself into a temporary folder (the working tree is never touched), or a folder."""

from __future__ import annotations

import dataclasses
import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import typer

from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.cli.options import catalog_rules
from flavorsmith.cli.validate import catalog_warnings
from flavorsmith.diagnostics import Diagnostic, Severity

GIT_TIMEOUT = 60  # seconds for one Git command


@dataclass(frozen=True)
class Revision:
    """One side of a review: its label, its catalog and its diagnostics (paths relative to the
    catalog repository's root, so the two sides compare)."""

    label: str
    catalog: Catalog
    diagnostics: list[Diagnostic]


@contextmanager
def revision(root: Path, ref: str | None, option: str) -> Iterator[Revision]:
    """The catalog at Git revision ``ref`` of the repository at ``root``; a folder when ``ref``
    names one; the repository itself (its working tree) when ``ref`` is None."""
    if ref is None:
        yield _loaded(root, "working tree")
        return
    if Path(ref).is_dir():
        yield _loaded(Path(ref), ref)
        return
    commit = _commit(root, ref, option)
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-review-") as folder:
        archive = _git(root, "archive", "--format=tar", f"{commit}:{prefix}" if prefix else commit)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="tar")
        if not (Path(folder) / "hardware").is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            raise typer.BadParameter(
                f"revision {ref!r} has no hardware/ folder under {prefix or 'the top'} of the "
                "repository: it holds no catalog",
                param_hint=f"'{option}'",
            )
        yield _loaded(Path(folder), ref)


def _loaded(root: Path, label: str) -> Revision:
    view = Repository(root, catalog_rules()).load()
    found = [
        *(d for d in view.diagnostics if d.severity is Severity.ERROR),
        *catalog_warnings(view),
    ]
    return Revision(label, view.catalog, [_relative(d, root) for d in found])


def _relative(diagnostic: Diagnostic, root: Path) -> Diagnostic:
    path = Path(diagnostic.path)
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        shown = path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return diagnostic
    return dataclasses.replace(diagnostic, path=str(shown))


def _commit(root: Path, ref: str, option: str) -> str:
    """The commit ``ref`` names; a usage error naming it when there is none."""
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except _GitFailed as exc:
        where = "" if exc.repository else f" ({root} is not in a Git repository)"
        raise typer.BadParameter(
            f"{ref!r} is neither a folder nor a Git revision of the catalog repository{where}",
            param_hint=f"'{option}'",
        ) from None


class _GitFailed(Exception):
    def __init__(self, message: str, *, repository: bool) -> None:
        super().__init__(message)
        self.repository = repository


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise typer.BadParameter("git is not installed: it reads the revisions") from None
    if done.returncode != 0:
        text = done.stderr.decode(errors="replace").strip()
        raise _GitFailed(text, repository="not a git repository" not in text)
    return done.stdout
