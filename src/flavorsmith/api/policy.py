"""Policy: named rules in oslo.policy's check-string language, with overridable defaults."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from flavorsmith.api.auth import AuthConfigError, Identity
from flavorsmith.errors import Forbidden

Check = Callable[[dict[str, object], Mapping[str, object], "Enforcer"], bool]


class PolicyDenied(Forbidden):
    def __init__(self, rule: str) -> None:
        super().__init__(f"Policy doesn't allow {rule} to be performed.")
        self.rule = rule


@dataclass(frozen=True)
class RuleDefault:
    name: str
    check: str
    description: str


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


def parse_check(text: str) -> Check:
    """Compile an oslo.policy check string: role:x, rule:y, is_admin:True, field:%(target)s,
    '@' (always), '!' (never), '' (always), combined with and, or, not and parentheses."""
    tokens = _tokens(text)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token: str = tokens[position]
        position += 1
        return token

    def expr() -> Check:
        left = term()
        while peek() == "or":
            take()
            right = term()
            left = _or(left, right)
        return left

    def term() -> Check:
        left = factor()
        while peek() == "and":
            take()
            right = factor()
            left = _and(left, right)
        return left

    def factor() -> Check:
        token = peek()
        if token is None:
            raise ValueError("expected a check, found the end")
        if token == "not":
            take()
            inner = factor()
            return lambda c, t, e: not inner(c, t, e)
        if token == "(":
            take()
            inner = expr()
            if peek() != ")":
                raise ValueError("missing ')'")
            take()
            return inner
        take()
        return _atom(token)

    if not tokens:
        return lambda c, t, e: True
    result = expr()
    if position != len(tokens):
        raise ValueError(f"unexpected {tokens[position]!r}")
    return result


def _or(a: Check, b: Check) -> Check:
    return lambda c, t, e: a(c, t, e) or b(c, t, e)


def _and(a: Check, b: Check) -> Check:
    return lambda c, t, e: a(c, t, e) and b(c, t, e)


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


class Enforcer:
    """Rules by name: registered defaults, overridden by an oslo.policy YAML/JSON file."""

    def __init__(self, defaults: list[RuleDefault], overrides: Mapping[str, str] | None = None):
        self.defaults = {d.name: d for d in defaults}
        self.rules: dict[str, Check] = {}
        merged = {d.name: d.check for d in defaults} | dict(overrides or {})
        for name, text in merged.items():
            try:
                self.rules[name] = parse_check(text)
            except ValueError as exc:
                raise AuthConfigError(f"policy rule {name!r}: {text!r}: {exc}") from exc

    @classmethod
    def from_file(cls, defaults: list[RuleDefault], path: Path | None) -> Enforcer:
        if path is None:
            return cls(defaults)
        from flavorsmith.api.yamlfile import read_mapping

        data = read_mapping(path, "policy file")
        bad = [k for k, v in data.items() if not isinstance(v, str)]
        if bad:
            raise AuthConfigError(f"{path}: rule {bad[0]!r} must be a check string")
        return cls(defaults, data)

    def check(
        self, rule: str, credentials: dict[str, object], target: Mapping[str, object]
    ) -> bool:
        compiled = self.rules.get(rule)
        return compiled is not None and compiled(credentials, target, self)

    def authorize(
        self, rule: str, identity: Identity, target: Mapping[str, object] | None = None
    ) -> None:
        if rule not in self.rules:
            raise KeyError(f"policy rule {rule!r} is not registered")
        if not self.check(rule, identity.credentials(), target or {}):
            raise PolicyDenied(rule)
