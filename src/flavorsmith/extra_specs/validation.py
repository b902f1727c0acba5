"""The one way extra specs are validated: every pair against a registry, in a mode.

The catalog (strict), the compute API (the caller's mode, nova by default) and every sync
target (nova: what the target's Nova would refuse) call :func:`validate`; each decides what
to do with the problems, never which pairs are refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from flavorsmith.extra_specs.registry import Mode, Registry, Status, Verdict


@dataclass(frozen=True)
class Problem:
    """A pair with something to say about it: ``refused`` when the mode does not allow it;
    otherwise it is allowed, but not plainly valid (unregistered, refused by stock Nova yet
    allowed in this mode, or deprecated)."""

    verdict: Verdict
    refused: bool

    @property
    def key(self) -> str:
        return self.verdict.key

    @property
    def value(self) -> str:
        return self.verdict.value

    @property
    def status(self) -> Status:
        return self.verdict.status

    @property
    def message(self) -> str:
        return self.verdict.message

    @property
    def deprecated(self) -> str | None:
        return self.verdict.deprecated


def validate(
    specs: Mapping[str, str] | Iterable[tuple[str, str]], registry: Registry, mode: Mode
) -> list[Problem]:
    """The problems of ``specs`` (a mapping or key/value pairs) in their order; the specs are
    acceptable in ``mode`` when no problem is ``refused``."""
    pairs = specs.items() if isinstance(specs, Mapping) else specs
    out: list[Problem] = []
    for key, value in pairs:
        verdict = registry.verdict(key, value)
        allowed = verdict.allowed(mode)
        if not allowed or verdict.status != "valid" or verdict.deprecated or verdict.nova_status:
            out.append(Problem(verdict, refused=not allowed))
    return out


def refused(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that refuse the specs."""
    return [p for p in problems if p.refused]


def refusal(registry: Registry, mode: Mode) -> Callable[[str, str], str | None]:
    """One pair at a time, as a sync target asks: why ``mode`` refuses ``key=value`` against
    ``registry``, or None when it is allowed."""

    def why(key: str, value: str) -> str | None:
        bad = refused(validate({key: value}, registry, mode))
        return bad[0].message if bad else None

    return why
