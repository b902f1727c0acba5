"""Microversion negotiation, shared by the Ironic and Nova APIs (each with its own headers).

Finding the requested version in the headers is microversion-parse's job, the library Nova
itself uses for it: the standard ``OpenStack-API-Version: <service> X.Y`` (several services in
one header, the last one named wins), the legacy header, repeated headers folded with commas.
Parsing ``X.Y`` stays here: Nova's own pattern (no signs, no leading zeros), stricter than the
library's ``int()`` split, and bounded in length before any number is built."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import total_ordering

import microversion_parse

from flavorsmith.errors import Invalid, NotAcceptable

_VERSION_RE = re.compile(r"([1-9]\d*)\.(0|[1-9]\d*)", re.ASCII)
# Longer numbers are no version any service has; they are refused before int() sees them.
MAX_DIGITS = 6


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """MAJOR.MINOR in ASCII digits, each at most MAX_DIGITS long; None otherwise."""
        match = _VERSION_RE.fullmatch(text.strip())
        if not match or max(len(match.group(1)), len(match.group(2))) > MAX_DIGITS:
            return None
        return cls(int(match.group(1)), int(match.group(2)))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor) < (other.major, other.minor)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def _shown(value: str) -> str:
    """A header value in a message: short and printable, or cut and escaped."""
    if len(value) <= 40 and value.isprintable() and value.isascii():
        return value
    escaped = value.encode("unicode_escape").decode("ascii")
    return f"{escaped[:40]}… ({len(value)} characters)"


@dataclass(frozen=True)
class MicroversionSpec:
    """One service's microversion rules."""

    service: str  # "baremetal", "compute": the word in OpenStack-API-Version
    minimum: Version
    maximum: Version
    legacy_header: str  # X-OpenStack-Ironic-API-Version, X-OpenStack-Nova-API-Version
    generic_header: bool  # whether OpenStack-API-Version: <service> X is read and echoed
    malformed_status: int  # what the real service answers for an unparsable version
    malformed: str  # message templates, in the real service's words: {value}
    out_of_range: str  # {version} {minimum} {maximum}
    wrong_major: str  # {version} {minimum} {maximum}

    def negotiate(self, headers: Mapping[str, str]) -> Version:
        """The version a request asks for; no header means the minimum, as in OpenStack."""
        requested = self._requested(headers)
        if requested is None:
            return self.minimum
        if requested.strip().lower() == "latest":
            return self.maximum
        version = Version.parse(requested)
        if version is None and _VERSION_RE.fullmatch(requested.strip()):
            # MAJOR.MINOR with numbers far beyond any version: unsupported, not malformed.
            message = self.out_of_range.format(
                version=_shown(requested.strip()), minimum=self.minimum, maximum=self.maximum
            )
            raise NotAcceptable(message, headers=self.refusal_headers(requested.strip()))
        if version is None:
            message = self.malformed.format(value=_shown(requested.strip()))
            if self.malformed_status == 406:
                raise NotAcceptable(message, headers=self.range_headers())
            raise Invalid(message, headers=self.range_headers())
        if not self.minimum <= version <= self.maximum:
            template = (
                self.wrong_major if version.major != self.maximum.major else self.out_of_range
            )
            message = template.format(version=version, minimum=self.minimum, maximum=self.maximum)
            raise NotAcceptable(message, headers=self.refusal_headers(str(version)))
        return version

    def _requested(self, headers: Mapping[str, str]) -> str | None:
        # Every (name, value) pair, repeats included (Starlette's Headers lists them all), so
        # that the library folds a repeated header with commas as a WSGI server does.
        pairs: Iterable[tuple[str, str]] = list(headers.items())
        if self.generic_header:
            return microversion_parse.get_version(
                pairs, service_type=self.service, legacy_headers=[self.legacy_header]
            )
        # Ironic reads its own header whole: "1.2, 1.3" is malformed there, not 1.3.
        return microversion_parse.fold_headers(pairs).get(self.legacy_header.lower())

    def range_headers(self) -> dict[str, str]:
        if self.generic_header:
            return {}
        prefix = self.legacy_header.removesuffix("-Version")
        return {
            f"{prefix}-Minimum-Version": str(self.minimum),
            f"{prefix}-Maximum-Version": str(self.maximum),
        }

    def response_headers(self, version: Version | str) -> dict[str, str]:
        headers = {**self.range_headers(), self.legacy_header: str(version)}
        if self.generic_header:
            headers["OpenStack-API-Version"] = f"{self.service} {version}"
            headers["Vary"] = f"OpenStack-API-Version, {self.legacy_header}"
        return headers

    def refusal_headers(self, requested: str) -> dict[str, str]:
        """The headers of a 406 for a well-formed version out of range: Nova echoes the
        version asked for in its version headers (Ironic sends its range). ``requested`` has
        matched MAJOR.MINOR, so it is ASCII digits and a dot."""
        if self.generic_header:
            return self.response_headers(requested)
        return self.range_headers()


IRONIC = MicroversionSpec(
    service="baremetal",
    minimum=Version(1, 1),
    maximum=Version(1, 115),  # as Ironic 39 (2026.1), so current clients negotiate normally
    legacy_header="X-OpenStack-Ironic-API-Version",
    generic_header=False,
    malformed_status=406,
    malformed="Invalid value {value!r} for X-OpenStack-Ironic-API-Version header: "
    "expected 'latest' or MAJOR.MINOR",
    out_of_range="Version {version} was requested but the minor version is not supported by "
    "this service. The supported version range is: [{minimum}, {maximum}].",
    wrong_major="Mutually exclusive versions requested. Version {version} requested but not "
    "supported by this service. The supported version range is: [{minimum}, {maximum}].",
)
NOVA = MicroversionSpec(
    service="compute",
    minimum=Version(2, 1),
    maximum=Version(2, 104),  # as Nova 34
    legacy_header="X-OpenStack-Nova-API-Version",
    generic_header=True,
    malformed_status=400,
    malformed="API Version String {value} is of invalid format. Must be of format "
    "MajorNum.MinorNum.",
    out_of_range="Version {version} is not supported by the API. Minimum is {minimum} and "
    "maximum is {maximum}.",
    wrong_major="Version {version} is not supported by the API. Minimum is {minimum} and "
    "maximum is {maximum}.",
)
