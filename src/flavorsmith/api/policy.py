"""Policy: named rules in oslo.policy's check-string language, with overridable defaults.

Everything that can go wrong with a policy file is found when it is loaded, so the service
refuses to start with one line naming the rule, instead of answering 500 later: a check string
that does not parse, nesting deeper than ``MAX_DEPTH`` (parentheses, ``not`` and ``rule:``
references counted together), a ``rule:`` reference to a rule that is not defined, rules that
refer to each other in a loop, and a rule name that is not registered and that no rule refers
to (almost always a misspelling; the closest registered name is suggested)."""

from __future__ import annotations

import difflib
import graphlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from flavorsmith.api.auth import Identity
from flavorsmith.api.yamlfile import AuthConfigError, read_mapping
from flavorsmith.errors import Forbidden

Check = Callable[[dict[str, object], Mapping[str, object], "Enforcer"], bool]

# Parentheses, ``not`` and ``rule:`` references, counted together along the deepest path; real
# policies use a handful, and evaluation stays far from Python's recursion limit.
MAX_DEPTH = 50


class PolicyDenied(Forbidden):
    def __init__(self, rule: str) -> None:
        super().__init__(f"Policy doesn't allow {rule} to be performed.")
        self.rule = rule


@dataclass(frozen=True)
class RuleDefault:
    """A rule's default. ``scope_types``: the token scopes (``project``, ``system``) the rule
    accepts, as oslo.policy's with ``enforce_scope``; a Keystone token of another scope is
    refused whatever the check string says (a policy file changes the check, not the scope).
    Empty: any scope."""

    name: str
    check: str
    description: str
    scope_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Compiled:
    """A parsed check string: its check, the rules it refers to and how deep it nests."""

    check: Check
    references: frozenset[str]
    depth: int


def _tokens(text: str) -> list[str]:
    """Split as oslo.policy does: on whitespace, then peel parentheses off each word's ends
    (so ``project_id:%(project_id)s`` stays one token)."""
    out: list[str] = []
    for word in text.split():
        stripped = word.lstrip("(")
        out.extend("(" * (len(word) - len(stripped)))
        core = stripped.rstrip(")")
        if core:
            out.append(core)
        out.extend(")" * (len(stripped) - len(core)))
    return out


def compile_check(text: str) -> Compiled:
    """Compile an oslo.policy check string: role:x, rule:y, is_admin:True, field:%(target)s,
    '@' (always), '!' (never), '' (always), combined with and, or, not and parentheses.
    ValueError says what is wrong; nesting deeper than MAX_DEPTH is refused before it could
    exhaust the parser's stack."""
    tokens = _tokens(text)
    position = 0
    references: set[str] = set()
    deepest = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token: str = tokens[position]
        position += 1
        return token

    def expr(depth: int) -> Check:
        terms = [term(depth)]
        while peek() == "or":
            take()
            terms.append(term(depth))
        return terms[0] if len(terms) == 1 else _any(terms)

    def term(depth: int) -> Check:
        factors = [factor(depth)]
        while peek() == "and":
            take()
            factors.append(factor(depth))
        return factors[0] if len(factors) == 1 else _all(factors)

    def factor(depth: int) -> Check:
        nonlocal deepest
        deepest = max(deepest, depth)
        token = peek()
        if token is None:
            raise ValueError("expected a check, found the end")
        if token in ("not", "("):
            if depth >= MAX_DEPTH:
                raise ValueError(
                    f"nested more than {MAX_DEPTH} levels deep (parentheses and 'not'); "
                    "simplify it or split it into rules that refer to each other"
                )
            take()
        if token == "not":
            inner = factor(depth + 1)
            return lambda c, t, e: not inner(c, t, e)
        if token == "(":
            inner = expr(depth + 1)
            if peek() != ")":
                raise ValueError("missing ')'")
            take()
            return inner
        take()
        if token.startswith("rule:"):
            references.add(token.removeprefix("rule:"))
        return _atom(token)

    if not tokens:
        return Compiled(lambda c, t, e: True, frozenset(), 0)
    result = expr(0)
    if position != len(tokens):
        raise ValueError(f"unexpected {tokens[position]!r}")
    return Compiled(result, frozenset(references), deepest)


def parse_check(text: str) -> Check:
    return compile_check(text).check


def _any(checks: list[Check]) -> Check:
    return lambda c, t, e: any(check(c, t, e) for check in checks)


def _all(checks: list[Check]) -> Check:
    return lambda c, t, e: all(check(c, t, e) for check in checks)


def _atom(token: str) -> Check:
    if token == "@":
        return lambda c, t, e: True
    if token == "!":
        return lambda c, t, e: False
    kind, sep, match = token.partition(":")
    if not sep:
        raise ValueError(f"{token!r} is not a check (expected kind:match)")
    if kind == "role":
        wanted = match.lower()
        return lambda c, t, e: wanted in {str(r).lower() for r in c["roles"]}  # type: ignore[attr-defined]
    if kind == "rule":
        return lambda c, t, e: e.check(match, c, t)
    if kind == "is_admin":
        wanted_admin = match.lower() == "true"
        return lambda c, t, e: bool(c.get("is_admin")) is wanted_admin

    def generic(c: dict[str, object], t: Mapping[str, object], e: Enforcer) -> bool:
        try:
            expected = match % t if "%(" in match else match
        except (KeyError, TypeError, ValueError):
            return False
        value = c.get(kind)
        return value is not None and str(value) == str(expected)

    return generic


def default_target(identity: Identity) -> dict[str, object]:
    """What ``%(...)s`` in a rule reads when the object has no project of its own: the caller's
    project and user, as Ironic, Octavia and Nova's default target carry them."""
    return {"project_id": identity.project_id, "user_id": identity.user_id}


class Enforcer:
    """Rules by name: registered defaults, overridden by an oslo.policy YAML/JSON file."""

    def __init__(
        self,
        defaults: list[RuleDefault],
        overrides: Mapping[str, str] | None = None,
        *,
        source: str | None = None,
    ):
        self.defaults = {d.name: d for d in defaults}
        self.rules: dict[str, Check] = {}
        overrides = dict(overrides or {})
        where = f"policy file {source}: " if source else "policy "
        merged = {d.name: d.check for d in defaults} | overrides
        compiled: dict[str, Compiled] = {}
        for name, text in merged.items():
            try:
                compiled[name] = compile_check(text)
            except ValueError as exc:
                raise AuthConfigError(f"{where}rule {name!r}: {_excerpt(text)}: {exc}") from None
        problem = _problem(compiled, set(self.defaults), set(overrides))
        if problem is not None:
            raise AuthConfigError(where + problem)
        self.rules = {name: c.check for name, c in compiled.items()}

    @classmethod
    def from_file(cls, defaults: list[RuleDefault], path: Path | None) -> Enforcer:
        if path is None:
            return cls(defaults)
        data = read_mapping(path, "policy file")
        bad = [k for k, v in data.items() if not isinstance(v, str)]
        if bad:
            raise AuthConfigError(
                f"policy file {path}: rule {bad[0]!r}: the value must be a check string"
            )
        return cls(defaults, data, source=str(path))

    def check(
        self, rule: str, credentials: dict[str, object], target: Mapping[str, object]
    ) -> bool:
        compiled = self.rules.get(rule)
        return compiled is not None and compiled(credentials, target, self)

    def in_scope(self, rule: str, identity: Identity) -> bool:
        """Does the caller's token scope fit the rule's scope types? Always, for callers
        without a scope (noauth, static tokens) and rules without scope types."""
        default = self.defaults.get(rule)
        if identity.scope is None or default is None or not default.scope_types:
            return True
        return identity.scope in default.scope_types

    def permits(
        self, rule: str, identity: Identity, target: Mapping[str, object] | None = None
    ) -> bool:
        """Does ``rule`` allow ``identity`` on ``target`` (the object's own fields, such as
        its ``project_id`` or ``node.owner``, over the caller's project and user)?"""
        if rule not in self.rules:
            raise KeyError(f"policy rule {rule!r} is not registered")
        full = {**default_target(identity), **(target or {})}
        return self.in_scope(rule, identity) and self.check(rule, identity.credentials(), full)

    def authorize(
        self, rule: str, identity: Identity, target: Mapping[str, object] | None = None
    ) -> None:
        """Refuse (PolicyDenied, a 403) unless ``rule`` allows ``identity`` on ``target``."""
        if not self.permits(rule, identity, target):
            raise PolicyDenied(rule)


def _problem(
    compiled: Mapping[str, Compiled], registered: set[str], overridden: set[str]
) -> str | None:
    """The first thing wrong with how the rules refer to each other, or None."""
    for name, rule in compiled.items():
        for missing in sorted(rule.references - set(compiled)):
            hint = _hint(missing, compiled)
            return f"rule {name!r}: refers to rule:{missing}, which is not defined{hint}"
    referenced = {ref for rule in compiled.values() for ref in rule.references}
    for name in sorted(overridden - registered - referenced):
        return (
            f"rule {name!r}: no such rule is registered and no rule refers to it"
            f"{_hint(name, registered)}"
        )
    sorter = graphlib.TopologicalSorter({n: r.references for n, r in compiled.items()})
    try:
        order = list(sorter.static_order())
    except graphlib.CycleError as exc:
        cycle: list[str] = list(exc.args[1])
        if len(cycle) == 2:
            return f"rule {cycle[0]!r}: refers to itself (rule:{cycle[0]})"
        loop = " -> ".join(reversed(cycle))
        return f"rule {cycle[0]!r}: rules refer to each other in a loop: {loop}"
    depth: dict[str, int] = {}
    for name in order:  # references come first
        rule = compiled[name]
        depth[name] = rule.depth + max((depth[r] + 1 for r in rule.references), default=0)
        if depth[name] > MAX_DEPTH:
            return (
                f"rule {name!r}: nested more than {MAX_DEPTH} levels deep (parentheses, 'not' "
                "and rule: references together); simplify it"
            )
    return None


def _hint(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:80] + "…")
