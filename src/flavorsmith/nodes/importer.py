"""Importing an inventory file: Flavorsmith's own format or what Ironic's tools print
(recognised by :mod:`flavorsmith.ironic.records`), each entry checked by the node rules the
API uses (:func:`flavorsmith.ironic.nodes.checked_node`), then stored idempotently in bulk by
the node store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from flavorsmith.catalog.document import Document
from flavorsmith.db.engine import Connection
from flavorsmith.diagnostics import Diagnostic
from flavorsmith.errors import FlavorsmithError, Invalid
from flavorsmith.ironic import nodes as rules
from flavorsmith.ironic import records
from flavorsmith.ironic.idents import is_uuid
from flavorsmith.nodes import service
from flavorsmith.store import nodes as store
from flavorsmith.store.node_import import IMPORT_BATCH, IMPORTED, ImportReport, NodeSpec

# The keys a node entry may have, in the order the error message lists them: name and uuid,
# then the stored columns (the store's list) with traits after the resource class.
FIELDS = ("name", "uuid", *IMPORTED[:2], "traits", *IMPORTED[2:])
# What an inventory entry without the key means (a key not here is left as stored).
DEFAULTS: dict[str, Any] = {
    "driver": "fake-hardware",
    "resource_class": None,
    "properties": {},
    "driver_info": {},
    "extra": {},
    "description": None,
    "provision_state": "available",
    "maintenance": False,
}
Problem = tuple[list[str | int], str, bool]  # where, what, whether it points at the key


@dataclass
class Parsed:
    """The checked entries of an import file, what is wrong with it, and notes to show."""

    specs: list[NodeSpec] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def parse(data: Any) -> Parsed:
    """Entries from an inventory or Ironic output; problems say where, for diagnostics."""
    try:
        dump = records.read(data, FIELDS)
    except records.NotNodes as exc:
        return Parsed(problems=[(exc.path, exc.message, exc.at_key)])
    checker = _Checker(dump.kind.from_ironic)
    specs = [checker.spec(index, entry) for index, entry in enumerate(dump.entries)]
    notes = _notes(dump.kind, len(dump.entries), *checker.counts)
    return Parsed(
        specs=[spec for spec in specs if spec is not None],
        problems=checker.located(dump.kind, dump.prefix),
        notes=[*dump.notes, *notes],
    )


class Restart(Exception):
    """The entries were checked as the wrong kind of file (an inventory whose later entries
    turned out to be Ironic output, or the reverse): roll back and import again, told."""

    def __init__(self, from_ironic: bool) -> None:
        super().__init__("the file is read again as another kind")
        self.from_ironic = from_ironic


@dataclass
class Outcome:
    """What a streamed import did: its report, or the problems that made it write nothing
    (the caller rolls its transaction back), and notes to show."""

    report: ImportReport
    problems: list[Problem]
    notes: list[str]
    error: str | None = None  # why the store refused the import (a name on two nodes)


class _Checker:
    """Entries checked one at a time, with what an import must remember of every entry (the
    first index of each name and UUID, counts for the notes) and nothing more."""

    def __init__(self, from_ironic: bool) -> None:
        self.from_ironic = from_ironic
        self.unknown: Counter[str] = Counter()
        self.missing: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.first_name: dict[str, int] = {}
        self.first_uuid: dict[str, int] = {}
        self.problems: list[tuple[int, list[str | int], str, bool]] = []

    def spec(self, index: int, entry: Any) -> NodeSpec | None:
        try:
            if self.from_ironic:
                spec = _ironic_spec(entry, self.unknown, self.missing, self.dropped)
            else:
                spec = _spec(entry, self.dropped)
        except _EntryError as exc:
            self.problems.append((index, exc.path, exc.message, exc.at_key))
            return None
        duplicate = _duplicate(spec, index, self.first_name, self.first_uuid)
        if duplicate:
            self.problems.append((index, [duplicate[0]], duplicate[1], False))
            return None
        return spec

    @property
    def counts(self) -> tuple[Counter[str], Counter[str], Counter[str]]:
        """The keys unknown, missing and dropped, for the notes."""
        return self.unknown, self.missing, self.dropped

    def located(self, kind: records.Kind, prefix: tuple[str, ...]) -> list[Problem]:
        """The problems, each at its path in the document."""
        return [
            ([*records.Dump(kind, [], prefix).path(index), *path], message, at_key)
            for index, path, message, at_key in self.problems
        ]


def import_entries(
    connection: Connection,
    entries: Iterable[Any],
    top: Callable[[], tuple[Any, tuple[str, ...]]],
    *,
    from_ironic: bool | None = None,
    labels: bool = True,
    batch: int = IMPORT_BATCH,
) -> Outcome:
    """Check and store the entries of an import file as they come, a batch at a time, in the
    caller's transaction: memory stays the same whatever the number of entries. ``top`` says,
    once every entry has been taken, what the document is around them and where they are
    (the document with its list left empty, and that list's path). Any problem stops the
    writes (the entries after it are still checked, so every problem is reported): the caller
    rolls back when the outcome has problems. Whether the entries are Ironic output is told
    (``from_ironic``) or decided from the first batch; Restart when the whole file says
    otherwise. ``batch``: entries checked and written at a time (the report's labels,
    kept when ``labels``, are the one list that grows)."""
    survey = records.Survey(FIELDS)
    run = service.start_import(connection, labels=labels)
    checker: _Checker | None = None if from_ironic is None else _Checker(from_ironic)
    pending: list[tuple[int, Any]] = []

    def flush() -> None:
        nonlocal checker
        if checker is None:
            checker = _Checker(survey.ironic)
        specs = []
        for index, entry in pending:
            spec = checker.spec(index, entry)
            if spec is not None:
                specs.append(spec)
        pending.clear()
        if not checker.problems:
            run.write(specs)

    try:
        for index, entry in enumerate(entries):
            survey.see(entry)
            pending.append((index, entry))
            if len(pending) >= batch:
                flush()
        document, prefix = top()
        try:
            kind, _, file_notes = survey.recognise(document)
        except records.NotNodes as exc:
            return Outcome(ImportReport(), [(exc.path, exc.message, exc.at_key)], [])
        if kind is records.Kind.CLI_SHOW:
            survey.see(document)
            pending.append((0, document))
        if checker is not None and checker.from_ironic != kind.from_ironic:
            raise Restart(kind.from_ironic)
        if checker is None:
            checker = _Checker(kind.from_ironic)
        flush()
        notes = [*file_notes, *_notes(kind, survey.count, *checker.counts)]
        if checker.problems:
            return Outcome(ImportReport(), checker.located(kind, prefix), notes)
        try:
            return Outcome(run.finish(), [], notes)
        except FlavorsmithError as exc:
            return Outcome(ImportReport(), [], notes, exc.message)
    finally:
        run.close()


def _duplicate(
    spec: NodeSpec, index: int, first_name: dict[str, int], first_uuid: dict[str, int]
) -> tuple[str, str] | None:
    """(key, message) when an earlier entry has the same UUID or name."""
    if spec.uuid is not None and spec.uuid in first_uuid:
        return "uuid", f"UUID {spec.uuid} is listed twice (first as entry {first_uuid[spec.uuid]})"
    if spec.name is not None and spec.name in first_name:
        return "name", f"{spec.name!r} is listed twice (first as entry {first_name[spec.name]})"
    if spec.uuid is not None:
        first_uuid[spec.uuid] = index
    if spec.name is not None:
        first_name[spec.name] = index
    return None


def _notes(
    kind: records.Kind,
    total: int,
    unknown: Counter[str],
    missing: Counter[str],
    dropped: Counter[str],
) -> list[str]:
    notes = []
    if kind.from_ironic:
        notes.append(f"read as {kind.value}: {total} node{'s' if total != 1 else ''}")
    if unknown:
        notes.append(f"ignored keys that no Ironic node has: {_counted(unknown, total)}")
    if missing:
        notes.append(
            f"not in the file, so left as stored (a new node gets the default): "
            f"{_counted(missing, total)}"
        )
    if kind.from_ironic and dropped:
        had = dropped["driver_info"]
        notes.append(
            f"driver_info is not imported from Ironic output ({had} of {total} nodes have "
            f"one): {records.DROPPED['driver_info']}"
        )
    elif dropped:
        notes.append(f"secret driver_info keys dropped, never stored: {_counted(dropped, total)}")
    return notes


def _counted(counts: Counter[str], total: int) -> str:
    """'a, b (2 of 5 nodes)' style: each key, with how many entries when not all."""
    return ", ".join(
        key if n == total else f"{key} ({n} of {total} nodes)" for key, n in sorted(counts.items())
    )


def diagnostics(doc: Document, problems: list[Problem]) -> list[Diagnostic]:
    return [doc.diagnostic(path, message, at_key=at_key) for path, message, at_key in problems]


class _EntryError(Exception):
    def __init__(self, path: list[str | int], message: str, *, at_key: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.message = message
        self.at_key = at_key


def _spec(entry: Any, dropped: Counter[str]) -> NodeSpec:
    """An entry of Flavorsmith's own format: unknown keys are errors (typos), absent keys
    take DEFAULTS."""
    if not isinstance(entry, dict):
        raise _EntryError([], "each node is a mapping with a name or a uuid")
    unknown = sorted(str(k) for k in set(entry) - set(FIELDS))
    if unknown:
        raise _EntryError(
            [unknown[0]], f"unknown key {unknown[0]!r}; allowed: {', '.join(FIELDS)}", at_key=True
        )
    values = {**DEFAULTS, **{k: v for k, v in entry.items() if k in IMPORTED or k == "name"}}
    if isinstance(values["driver_info"], dict):
        values["driver_info"], secrets = records.without_secrets(values["driver_info"])
        dropped.update(secrets)
    if "traits" in entry and entry["traits"] is None:
        raise _EntryError(["traits"], "must be a list of trait names")
    return _checked(values, entry.get("uuid"), entry.get("traits", []), {})


def _ironic_spec(
    entry: Any, unknown: Counter[str], missing: Counter[str], dropped: Counter[str]
) -> NodeSpec:
    """An entry of Ironic output: fields Flavorsmith does not store are ignored, keys that
    are no Ironic field noted, absent stored fields left as stored."""
    if not isinstance(entry, dict):
        raise _EntryError([], "each node is a mapping of Ironic node fields")
    wanted = [f for f in FIELDS if f not in records.DROPPED]
    record = records.record(entry, wanted)
    unknown.update(record.unknown)
    dropped.update(record.dropped)
    missing.update(f for f in wanted if f not in record.fields)
    values = {k: v for k, v in record.fields.items() if k in IMPORTED or k == "name"}
    traits = record.fields.get("traits")
    return _checked(values, record.fields.get("uuid"), traits, record.keys)


def _checked(
    values: dict[str, Any], node_uuid: Any, raw_traits: Any, keys: dict[str, str]
) -> NodeSpec:
    """The entry's values checked by the node rules; errors point at ``keys[field]`` (the key
    as written), else the field."""
    name = values.get("name")

    def error(where: str, message: str, *rest: str | int) -> _EntryError:
        return _EntryError([keys.get(where, where), *rest], message)

    if name is None and node_uuid is None:
        raise _EntryError(
            [],
            "the node has neither a name nor a uuid (the import matches a "
            "node by UUID when the entry has one, else by name)",
        )
    # The same field rules as the API's (a description that is not text, a mapping that is
    # not one, a value no database stores...), reported at the entry's key.
    try:
        checked = rules.checked_node(values, store.FIELD_LENGTHS)
    except rules.FieldInvalid as exc:
        raise error(exc.field, exc.message) from None
    for check in (rules.check_provision_state, rules.check_power_state):
        try:
            check(values)
        except rules.FieldInvalid as exc:
            raise error(exc.field, exc.message) from None
    if node_uuid is not None and not (isinstance(node_uuid, str) and is_uuid(node_uuid)):
        raise error("uuid", f"invalid UUID {node_uuid!r}")
    traits: tuple[str, ...] | None = None
    if raw_traits is not None:
        if not isinstance(raw_traits, list):
            raise error("traits", "must be a list of trait names")
        for position, trait in enumerate(raw_traits):
            try:
                rules.check_trait(trait)
            except Invalid as exc:
                raise error("traits", exc.message, position) from None
        traits = tuple(dict.fromkeys(raw_traits))
        try:
            rules.check_trait_count(str(name or node_uuid), traits)
        except Invalid as exc:
            raise error("traits", exc.message) from None
    if node_uuid is not None:
        node_uuid = rules.canonical_uuid(node_uuid)  # as the API stores it
    return NodeSpec(name=name, uuid=node_uuid, values=checked, traits=traits)


def store_nodes(
    connection: Connection,
    specs: list[NodeSpec],
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Create missing nodes, update changed ones, leave the rest; in the caller's transaction
    (``progress`` hears (nodes written, nodes to write))."""
    return service.import_nodes(connection, specs, progress)


__all__ = [
    "DEFAULTS",
    "FIELDS",
    "ImportReport",
    "NodeSpec",
    "Outcome",
    "Parsed",
    "Problem",
    "Restart",
    "diagnostics",
    "import_entries",
    "parse",
    "store_nodes",
]
