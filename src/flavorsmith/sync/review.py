"""The two catalogs a review compares, what the sync plan would write into Nova between them,
which load-balancer profiles and flavors it would have Octavia make again, and which network
flavors it would have Neutron make again or swap service profiles of: shared by ``flavorsmith
review`` and the API's ``/v1/review``.

A revision is a Git revision of the catalog repository, read with Git itself into a temporary
folder (the working tree is never touched), a folder (the command line only), or the working
tree. A ref is checked before Git sees it: one that starts with "-" is refused, and Git is told
where its options end, so a ref is never read as an option."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flavorsmith.catalog.given_rules import CatalogRules
from flavorsmith.catalog.model import Catalog
from flavorsmith.catalog.repo import Repository
from flavorsmith.diagnostics import Diagnostic, Severity
from flavorsmith.errors import Conflict, Invalid, NotFound, ServiceUnavailable
from flavorsmith.matching.checks import catalog_warnings
from flavorsmith.matching.review import LbReplaced, NetReplaced, Review, Tripped
from flavorsmith.nova.derive import DerivedFlavor
from flavorsmith.servers_in_use import Servers
from flavorsmith.sync.kinds import (
    FLAVOR_MARKER,
    FLAVORS,
    LOAD_BALANCERS,
    NETWORKS,
    LbObserved,
    LbObservedFlavor,
    LbObservedProfile,
    NetObservedFlavor,
    NetObservedProfile,
    ObservedFlavor,
    lb_flavor_key,
    lb_profile_key,
    net_flavor_key,
    net_marker,
)
from flavorsmith.visibility import OPERATOR, Viewer, visible_catalog, visible_diagnostics

GIT_TIMEOUT = 60  # seconds for one Git command
WORKING_TREE = "working tree"  # the label of the working tree's side


class UnknownRevision(NotFound):
    """The ref names no commit of the catalog repository."""


class NotInGit(Conflict):
    """The catalog is not in a Git repository (a mounted ConfigMap, say): it has no
    revisions."""


@dataclass(frozen=True)
class Revision:
    """One side of a review: its label, its catalog and its diagnostics (paths relative to the
    catalog repository's root, so the two sides compare)."""

    label: str
    catalog: Catalog
    diagnostics: list[Diagnostic]


def check_ref(ref: str) -> str:
    """``ref`` if Git may be given it as a revision; Invalid when it could be read as an
    option or is empty."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n\r"):
        raise Invalid(f"{ref!r} is not a Git revision: a ref neither is empty nor starts with '-'")
    return ref


@contextmanager
def revision(
    root: Path,
    ref: str | None,
    rules: CatalogRules,
    *,
    folders: bool = False,
    viewer: Viewer = OPERATOR,
) -> Iterator[Revision]:
    """The catalog at Git revision ``ref`` of the repository at ``root``; a folder when
    ``folders`` and ``ref`` names one; the repository itself (its working tree) when ``ref`` is
    None. ``viewer``'s view of it: without the flavors hidden from them, nor the diagnostics
    that would name one."""
    if ref is None:
        yield _loaded(root, WORKING_TREE, rules, viewer)
        return
    if folders and Path(ref).is_dir():
        yield _loaded(Path(ref), ref, rules, viewer)
        return
    commit = _commit(root, check_ref(ref), folders=folders)
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip()
    with tempfile.TemporaryDirectory(prefix="flavorsmith-review-") as folder:
        # ``commit`` is the hash rev-parse printed: no option.
        archive = _git(root, "archive", "--format=tar", f"{commit}:{prefix}" if prefix else commit)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="tar")
        if not (Path(folder) / "hardware").is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            raise Invalid(
                f"revision {ref!r} has no hardware/ folder under {prefix or 'the top'} of the "
                "repository: it holds no catalog"
            )
        yield _loaded(Path(folder), ref, rules, viewer)


def refs(root: Path, *, commits: int = 20) -> dict[str, list[dict[str, str]]]:
    """The branches and tags of the repository at ``root``, and its last ``commits`` commits
    from HEAD (each with its short hash and subject)."""
    fields = "%(refname:short)%00%(objectname:short)%00%(subject)"
    listed = _git(root, "for-each-ref", f"--format={fields}", "refs/heads", "refs/tags")
    try:
        log = _git(root, "log", f"--max-count={commits}", "--format=%h%x00%s", "HEAD", "--")
    except _GitFailed:  # a repository without a commit yet
        log = b""

    def entries(text: bytes, names: Sequence[str]) -> list[dict[str, str]]:
        lines = text.decode(errors="replace").splitlines()
        return [dict(zip(names, line.split("\0"), strict=False)) for line in lines if line]

    return {
        "refs": entries(listed, ("name", "commit", "subject")),
        "commits": entries(log, ("commit", "subject")),
    }


def _loaded(root: Path, label: str, rules: CatalogRules, viewer: Viewer) -> Revision:
    view = Repository(root, rules).load()
    found = [
        *(d for d in view.diagnostics if d.severity is Severity.ERROR),
        *catalog_warnings(view),
    ]
    shown, _ = visible_diagnostics(dataclasses.replace(view, diagnostics=found), viewer)
    catalog = visible_catalog(view.catalog, viewer)
    return Revision(label, catalog, [_relative(d, root) for d in shown])


def _relative(diagnostic: Diagnostic, root: Path) -> Diagnostic:
    path = Path(diagnostic.path)
    if not path.is_absolute():
        path = Path.cwd() / path
    try:
        shown = path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return diagnostic
    return dataclasses.replace(diagnostic, path=str(shown))


def _commit(root: Path, ref: str, *, folders: bool) -> str:
    """The commit ``ref`` names; UnknownRevision naming it when there is none, NotInGit when
    ``root`` is in no Git repository."""
    try:
        return (
            _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
            .decode()
            .strip()
        )
    except _GitFailed as exc:
        what = "neither a folder nor a Git revision" if folders else "not a Git revision"
        if not exc.repository:
            raise NotInGit(
                f"{ref!r} is {what} of the catalog repository ({root} is not in a Git repository)"
            ) from None
        raise UnknownRevision(f"{ref!r} is {what} of the catalog repository") from None


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
        raise Conflict("git is not installed: it reads the revisions") from None
    except subprocess.TimeoutExpired:
        raise ServiceUnavailable(
            f"git {args[0]} took more than {GIT_TIMEOUT} s on {root}; try again later"
        ) from None
    if done.returncode != 0:
        text = done.stderr.decode(errors="replace").strip()
        if "dubious ownership" in text:  # Git's own guard: another user owns the repository
            raise Conflict(
                f"git refuses to read {root}: another user owns it (mark it safe with "
                "git config --global --add safe.directory PATH for the user reading it)"
            )
        raise _GitFailed(text, repository="not a git repository" not in text)
    return done.stdout


def in_git(root: Path) -> bool:
    """Is ``root`` inside a Git work tree?"""
    try:
        return _git(root, "rev-parse", "--is-inside-work-tree").strip() == b"true"
    except _GitFailed:
        return False


def nova_changes(
    base: Catalog,
    head: Catalog,
    servers: Callable[[str], Servers | None] | None = None,
) -> list[dict[str, Any]]:
    """What ``sync plan --prune`` would write into a Nova that holds base's flavors to make
    it hold head's; with ``servers``, the servers that use each flavor it replaces or deletes
    (None: not counted)."""
    observed = {d.id: _observed(d) for d in FLAVORS.desired(base)}
    actions = [a for a in FLAVORS.plan(FLAVORS.desired(head), observed, True) if a.writes]
    out = []
    for action in actions:
        entry = action.as_dict()
        if action.kind not in ("create", "delete"):
            entry["changes"] = [c.as_dict() for c in action.changes]
        if action.kind in ("delete", "replace"):
            counted = servers(action.flavor) if servers is not None else None
            entry["servers"] = counted.as_dict() if counted is not None else None
        out.append(entry)
    return out


def _observed(flavor: DerivedFlavor) -> ObservedFlavor:
    return ObservedFlavor(
        id=flavor.id,
        name=flavor.name,
        vcpus=flavor.vcpus,
        ram=flavor.ram,
        disk=flavor.disk,
        swap=flavor.swap,
        ephemeral=flavor.ephemeral,
        is_public=flavor.is_public,
        description=flavor.description,
        extra_specs={**flavor.extra_specs, **FLAVOR_MARKER},
        projects=flavor.projects,
    )


def lb_replaced(base: Catalog, head: Catalog) -> LbReplaced:
    """The load-balancer profiles and flavors that ``sync plan --only load-balancer-flavors``
    would replace in an Octavia holding base's to make it hold head's: the kind's own rule
    (Octavia changes no profile a flavor uses, and no flavor's profile)."""
    observed: dict[str, LbObserved] = {}
    for profile in base.load_balancer_profiles:
        ident = f"base:{profile.name}"
        observed[lb_profile_key(ident)] = LbObservedProfile(
            ident,
            profile.octavia_name,
            profile.provider,
            json.dumps(profile.flavor_data, sort_keys=True),
        )
        for flavor in profile.flavors:
            observed[lb_flavor_key(flavor.name)] = LbObservedFlavor(
                f"base:{profile.name}:{flavor.name}",
                flavor.name,
                flavor.description,
                flavor.enabled,
                ident,
                True,
            )
    actions = LOAD_BALANCERS.plan(LOAD_BALANCERS.desired(head), observed, True)
    replaced = [a for a in actions if a.kind == "replace"]
    return LbReplaced(
        profiles=frozenset(a.key for a in replaced if a.what == "profile"),
        flavors=frozenset(a.key for a in replaced if a.what == "flavor"),
    )


def net_replaced(base: Catalog, head: Catalog) -> NetReplaced:
    """What ``sync plan --only network-flavors`` would do in a Neutron holding base's network
    flavors to make it hold head's, by the kind's own rule: the flavors it would replace
    (Neutron never changes a service_type), and the service profiles each update makes and
    removes (Neutron changes no profile a flavor uses)."""
    observed: dict[str, NetObservedFlavor] = {}
    for flavor in base.network_flavors:
        ident = f"base:{flavor.name}"
        observed[net_flavor_key(ident)] = NetObservedFlavor(
            ident,
            flavor.name,
            flavor.description or "",
            flavor.service_type,
            flavor.enabled,
            tuple(
                NetObservedProfile(
                    f"{ident}:{index}",
                    profile.driver,
                    profile.metainfo,
                    net_marker(flavor.name, profile.description),
                    profile.enabled,
                )
                for index, profile in enumerate(flavor.service_profiles)
            ),
            True,
        )
    actions = NETWORKS.plan(NETWORKS.desired(head), observed, True)
    updates = [a for a in actions if a.kind == "update"]
    return NetReplaced(
        flavors=frozenset(a.key for a in actions if a.kind == "replace"),
        made={
            a.key: made
            for a in updates
            if (made := tuple(c.new for c in a.changes if c.op == "add"))
        },
        removed={
            a.key: gone
            for a in updates
            if (gone := tuple(c.old for c in a.changes if c.op == "remove"))
        },
    )


def document(result: Review, base: str, head: str, gates: Sequence[Tripped]) -> dict[str, Any]:
    """The review as ``review -f json`` prints it (docs/reference/review-format.md)."""
    return {
        **result.as_dict(),
        "base": base,
        "head": head,
        "gates": [g.as_dict() for g in gates],
    }
