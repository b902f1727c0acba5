"""The registry: validators by key, Nova's lookup order, verdicts with a status, and modes.

Lookup is by namespace and then by the rest of the key, so a verdict costs a few dictionary
lookups (Nova scans every validator's regex in turn for parameterised keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from flavorsmith.extra_specs.did_you_mean import NearIndex, near_index
from flavorsmith.extra_specs.model import Validator
from flavorsmith.extra_specs.safety import Matcher
from flavorsmith.jsonsafe import text_problem

_REMEMBERED = 32_768  # verdicts and suggestions remembered per registry
_UNKNOWN = ""  # not a registered key, so never a suggestion: "not remembered yet"
_tuple = tuple.__new__  # a Verdict made from all its fields: a tenth of a microsecond less

Status = Literal["valid", "invalid-value", "unknown-key", "unregistered"]
Mode = Literal["nova", "strict", "permissive", "off"]
MODES: tuple[Mode, ...] = ("nova", "strict", "permissive", "off")
# Other words for a mode: "disabled" is the design's word for "off".
MODE_ALIASES: dict[str, Mode] = {"disabled": "off"}


def _unstorable(verdict: Verdict) -> Verdict:
    """``verdict``, refused when the key or the value holds text no database column can hold
    (a NUL, a lone UTF-16 surrogate): Flavorsmith cannot store it, whatever its validator says.
    Nova 34 stores a NUL in the value of a key it does not check (``capabilities:``, an
    unregistered namespace), so the message says which of the two answers differs."""
    for part, text in (("key", verdict.key), ("value", verdict.value)):
        problem = text_problem(text)
        if problem is None:
            continue
        if verdict.status in ("valid", "unregistered"):
            nova = "Nova 34 would accept this pair; Flavorsmith cannot store it"
        else:
            nova = verdict.message
        message = f"{verdict.key}: the {part} cannot be stored: {problem} ({nova})"
        return verdict._replace(status="invalid-value", message=message, nova_status=None)
    return verdict


def parse_mode(word: str) -> Mode | None:
    """The mode a word names (one of MODES or an alias), or None."""
    for mode in MODES:
        if word == mode:
            return mode
    return MODE_ALIASES.get(word)


@dataclass(frozen=True)
class Namespace:
    """A key prefix (before ':'), literal or with a parameter such as ``trait{group}``."""

    template: str
    pattern: str  # the regular expression of the prefix, e.g. trait([a-zA-Z0-9_-]{1,64})?
    description: str = ""
    family: str | None = None  # a prefix whose malformed variants are still this namespace
    nova: bool = True  # whether a stock Nova knows this namespace (ours: flavorsmith)

    @property
    def literal(self) -> bool:
        return "{" not in self.template


class Verdict(NamedTuple):
    """What the registry says of one pair (a named tuple: made for every distinct pair, it
    costs a tenth of a frozen dataclass, and is as immutable)."""

    key: str
    value: str
    status: Status
    message: str
    validator: str | None = None
    extension: str | None = None
    deprecated: str | None = None  # what to use instead, when the key is deprecated
    nova_status: Status | None = None  # how stock Nova sees an extension key (else: status)

    def allowed(self, mode: Mode) -> bool:
        if mode == "off":
            return True
        if mode == "permissive":
            return self.status != "invalid-value"
        if mode == "strict":
            return self.status == "valid"
        return (self.nova_status or self.status) in ("valid", "unregistered")

    def as_dict(self, mode: Mode = "nova") -> dict[str, object]:
        return {
            "key": self.key,
            "value": self.value,
            "status": self.status,
            "valid": self.allowed(mode),
            "message": self.message,
        }


@dataclass
class _Group:
    namespace: Namespace
    regex: re.Pattern[str]
    exact: dict[str, Validator] = field(default_factory=dict)
    patterned: list[tuple[Matcher, Validator]] = field(default_factory=list)


class Registry:
    """Validators in a deterministic order: built-ins first, then plugins, then the catalog's.
    A later definition of an existing key is refused and reported in ``clashes``."""

    def __init__(self, namespaces: Iterable[Namespace] = (), validators: Iterable[Validator] = ()):
        self.validators: list[Validator] = []
        self.namespaces: list[Namespace] = []
        self.clashes: list[str] = []
        self._bare: dict[str, Validator] = {}
        self._literal_groups: dict[str, _Group] = {}
        self._pattern_groups: list[_Group] = []
        self._names: set[str] = set()
        # Built on first use, dropped when a namespace or validator is added.
        self._indexes: dict[str | None, NearIndex] = {}
        self._suggested: dict[str, str | None] = {}
        self._verdicts: dict[tuple[str, str], Verdict] = {}
        self._prefixes: dict[str, tuple[_Group, ...]] = {}  # the groups a key prefix is in
        for namespace in namespaces:
            self.add_namespace(namespace)
        for validator in validators:
            self.add(validator)

    def add_namespace(self, namespace: Namespace) -> None:
        if any(n.template == namespace.template for n in self.namespaces):
            return
        self.namespaces.append(namespace)
        self._forget()
        group = _Group(namespace, re.compile(namespace.pattern))
        if namespace.literal:
            self._literal_groups[namespace.template] = group
        else:
            self._pattern_groups.append(group)

    def add(self, validator: Validator) -> bool:
        """Register ``validator``; False (and a clash recorded) when its key is taken."""
        if validator.name in self._names:
            self.clashes.append(
                f"{validator.source}: {validator.name} is already defined; keeping the first"
            )
            return False
        namespace = validator.namespace
        if namespace is None:
            self._bare[validator.name] = validator
        else:
            group = self._group_for(namespace)
            rest = validator.name.split(":", 1)[1]
            if "{" in rest:
                group.patterned.append((validator.matcher(rest), validator))
            else:
                group.exact[rest] = validator
        self._names.add(validator.name)
        self.validators.append(validator)
        self._forget()
        return True

    def _forget(self) -> None:
        if self._indexes or self._suggested or self._verdicts or self._prefixes:
            self._indexes = {}
            self._suggested = {}
            self._verdicts = {}
            self._prefixes = {}

    def _group_for(self, template: str) -> _Group:
        group = self._literal_groups.get(template)
        if group is None:
            group = next(
                (g for g in self._pattern_groups if g.namespace.template == template), None
            )
        if group is None:
            literal = "{" not in template
            self.add_namespace(Namespace(template, re.escape(template) if literal else template))
            return self._group_for(template)
        return group

    def copy(self) -> Registry:
        """A registry with the same namespaces, validators and clashes, to complete without
        changing this one (plugins are not looked up again)."""
        twin = Registry(self.namespaces, self.validators)
        twin.clashes = list(self.clashes)
        return twin

    def __len__(self) -> int:
        return len(self.validators)

    def find(self, key: str) -> Validator | None:
        if ":" not in key:
            return self._bare.get(key)
        prefix, rest = key.split(":", 1)
        for found in self._groups_of(prefix):
            validator = found.exact.get(rest)
            if validator is not None:
                return validator
            for regex, candidate in found.patterned:
                if regex.fullmatch(rest):
                    return candidate
        return None

    def _checked(self, validator: Validator, key: str, value: str) -> Verdict:
        problem = validator.value.problem(key, value)
        if not (validator.deprecated or validator.extension):  # the usual case, made short
            if problem is None:
                return Verdict(key, value, "valid", "valid", validator.name)
            return Verdict(key, value, "invalid-value", f"{key}: {problem}", validator.name)
        deprecated = None
        if validator.deprecated:
            deprecated = validator.replacement or "nothing (it has no effect)"
        nova_status = self._nova_view(key) if validator.extension else None
        if problem is not None:
            message = f"{key}: {problem}"
            status: Status = "invalid-value"
        else:
            status, message = "valid", "valid"
            if nova_status == "unknown-key":
                message = (
                    f"{key} is an {validator.extension} extension: Nova >= 2.86 refuses it as "
                    "unknown; set it with compute microversion 2.85 or lower"
                )
            elif deprecated is not None:
                message = f"valid, but deprecated: use {deprecated}"
        return Verdict(
            key,
            value,
            status,
            message,
            validator.name,
            validator.extension,
            deprecated,
            nova_status,
        )

    def _nova_view(self, key: str) -> Status:
        """What stock Nova says of a key only Flavorsmith registers: its namespace decides."""
        namespace = self._known_namespace(key.split(":", 1)[0]) if ":" in key else None
        return "unknown-key" if namespace is not None and namespace.nova else "unregistered"

    def _groups_of(self, prefix: str) -> tuple[_Group, ...]:
        """The namespace groups a key prefix is in (remembered until the registry changes)."""
        groups = self._prefixes.get(prefix)
        if groups is None:
            group = self._literal_groups.get(prefix)
            groups = (group,) if group is not None else self._matching_groups(prefix)
            if len(self._prefixes) >= _REMEMBERED:
                self._prefixes.clear()
            self._prefixes[prefix] = groups
        return groups

    def _matching_groups(self, prefix: str) -> tuple[_Group, ...]:
        return tuple(g for g in self._pattern_groups if g.regex.fullmatch(prefix))

    def _known_namespace(self, prefix: str) -> Namespace | None:
        groups = self._groups_of(prefix)  # the literal one, else every matching pattern
        return groups[0].namespace if groups else None

    def verdict(self, key: str, value: str) -> Verdict:
        """The verdict on ``key=value`` (remembered: a registry is checked against the same
        pairs over and over, by every flavor that sets them, until it changes).

        One function for the usual verdicts (as :meth:`find`, then the value rule, or the
        did-you-mean of :meth:`suggest` for a key its namespace does not have), with the key
        split once: a service checks every flavor's pairs through it."""
        pair = (key, value)
        verdicts = self._verdicts
        found = verdicts.get(pair)
        if found is not None:
            return found
        validator: Validator | None = None
        prefix, colon, rest = key.partition(":")
        groups: tuple[_Group, ...] = ()
        if colon:
            groups = self._prefixes.get(prefix) or self._groups_of(prefix)
            for group in groups:
                validator = group.exact.get(rest)
                if validator is None:
                    for regex, candidate in group.patterned:
                        if regex.fullmatch(rest):
                            validator = candidate
                            break
                if validator is not None:
                    break
        else:
            validator = self._bare.get(key)
        if validator is None and groups:  # not a key of its namespace: the did-you-mean
            group = groups[0]
            template = group.namespace.template
            hint = self._suggested.get(key, _UNKNOWN)
            if hint == _UNKNOWN:  # as _suggest, with the namespace's index at hand
                index = self._indexes.get(template) or self._index(template, group.exact)
                hint = index.closest(
                    rest,
                    head=prefix + ":",
                    slack=len(key) // 4 if len(key) >= 12 else 2,
                    cutoff=0.8,
                )
                suggested = self._suggested
                if len(suggested) >= _REMEMBERED:
                    suggested.clear()
                suggested[key] = hint
            if hint:
                message = (
                    f"{key} is not a known key of namespace {template} (did you mean {hint!r}?)"
                )
            else:
                message = f"{key} is not a known key of namespace {template}"
            found = _tuple(Verdict, (key, value, "unknown-key", message, None, None, None, None))
        elif validator is None:
            found = self._unmatched(key, value, prefix if colon else None)
        elif validator.deprecated or validator.extension:
            found = self._checked(validator, key, value)
        else:  # the usual case, made short (the named tuple made without its keywords)
            problem = validator.value.problem(key, value)
            if problem is None:
                found = _tuple(
                    Verdict, (key, value, "valid", "valid", validator.name, None, None, None)
                )
            else:
                found = _tuple(
                    Verdict,
                    (
                        key,
                        value,
                        "invalid-value",
                        f"{key}: {problem}",
                        validator.name,
                        None,
                        None,
                        None,
                    ),
                )
        if "\x00" in key or "\x00" in value or not (key.isascii() and value.isascii()):
            found = _unstorable(found)
        if len(verdicts) >= _REMEMBERED:
            verdicts.clear()
        verdicts[pair] = found
        return found

    def _unmatched(self, key: str, value: str, prefix: str | None) -> Verdict:
        """The verdict on a key no validator matches that is in no namespace: with none, or
        with one that is not registered (a malformed variant of a family's prefix is an
        unknown key)."""
        if prefix is None:
            return Verdict(key, value, "unregistered", f"{key} has no namespace; nothing checks it")
        family = next(
            (n for n in self.namespaces if n.family and prefix.startswith(n.family)), None
        )
        if family is not None:
            return Verdict(
                key,
                value,
                "unknown-key",
                f"{prefix!r} is not a valid {family.template} prefix (expected "
                f"{family.pattern}); Nova would skip validating {key} entirely",
            )
        return Verdict(
            key,
            value,
            "unregistered",
            f"namespace {prefix!r} is not registered; nothing checks it",
        )

    def suggest(self, key: str) -> str | None:
        """The registered key nearest to a misspelt one: among the exact keys of the namespace
        the key spells (or every exact key when it spells none), those about as long, the
        most alike, at least 0.8 by the ratio
        :class:`~flavorsmith.extra_specs.did_you_mean.NearIndex` computes with rapidfuzz (an
        answer is remembered until the registry changes)."""
        remembered = self._suggested.get(key, _UNKNOWN)
        if remembered != _UNKNOWN:
            return remembered
        prefix = key.split(":", 1)[0] if ":" in key else None
        groups = self._groups_of(prefix) if prefix is not None else ()
        return self._suggest(key, prefix, groups[0] if groups else None)

    def _suggest(self, key: str, prefix: str | None, group: _Group | None) -> str | None:
        # Only keys of about the same length can be 0.8 alike; skipping the rest keeps an
        # unknown key as cheap to answer as a known one (_unmatched asks the same).
        slack = len(key) // 4 if len(key) >= 12 else 2
        if group is not None:  # the keys of the same namespace, as this key spells the prefix
            head = f"{prefix}:"
            index = self._indexes.get(group.namespace.template)
            if index is None:
                index = self._index(group.namespace.template, group.exact)
            found = index.closest(key[len(head) :], head=head, slack=slack, cutoff=0.8)
        else:
            index = self._index(None, (v.name for v in self.validators if "{" not in v.name))
            found = index.closest(key, slack=slack, cutoff=0.8)
        if len(self._suggested) >= _REMEMBERED:
            self._suggested.clear()
        self._suggested[key] = found
        return found

    def prepare(self) -> Registry:
        """Build now what the registry otherwise builds on first use (the did-you-mean index of
        every namespace), as a long-running service wants it: a first misspelt key then costs
        what any other does. Returns the registry."""
        for group in (*self._literal_groups.values(), *self._pattern_groups):
            self._index(group.namespace.template, group.exact).prepare()
        return self

    def _index(self, template: str | None, candidates: Iterable[str]) -> NearIndex:
        index = self._indexes.get(template)
        if index is None:
            index = self._indexes[template] = near_index(tuple(candidates))
        return index
