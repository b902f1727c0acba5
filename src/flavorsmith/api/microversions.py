"""Microversion negotiation, shared by the Ironic and Nova APIs (each with its own headers)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import total_ordering

from flavorsmith.errors import Invalid, NotAcceptable

_VERSION_RE = re.compile(r"^([1-9]\d*)\.(0|[1-9]\d*)$")


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        match = _VERSION_RE.match(text.strip())
        return cls(int(match.group(1)), int(match.group(2))) if match else None

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor) < (other.major, other.minor)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@dataclass(frozen=True)
class MicroversionSpec:
    """One service's microversion rules."""

    service: str  # "baremetal", "compute": the word in OpenStack-API-Version
    minimum: Version
    maximum: Version
    legacy_header: str  # X-OpenStack-Ironic-API-Version, X-OpenStack-Nova-API-Version
    generic_header: bool  # whether OpenStack-API-Version: <service> X is read and echoed
    malformed_status: int  # what the real service answers for an unparsable version

    def negotiate(self, headers: Mapping[str, str]) -> Version:
        """The version a request asks for; no header means the minimum, as in OpenStack."""
        requested = self._requested(headers)
        if requested is None:
            return self.minimum
        if requested.strip().lower() == "latest":
            return self.maximum
        version = Version.parse(requested)
        if version is None:
            message = (
                f"Invalid value {requested.strip()!r} for the {self.service} API version: "
                "expected 'latest' or MAJOR.MINOR"
            )
            if self.malformed_status == 406:
                raise NotAcceptable(message, headers=self.range_headers())
            raise Invalid(message, headers=self.range_headers())
        if not self.minimum <= version <= self.maximum:
            raise NotAcceptable(
                f"Version {version} of the {self.service} API is not supported: the supported "
                f"range is {self.minimum} to {self.maximum}",
                headers=self.range_headers(),
            )
        return version

    def _requested(self, headers: Mapping[str, str]) -> str | None:
        if self.generic_header:
            for part in headers.get("openstack-api-version", "").split(","):
                words = part.strip().split(None, 1)
                if len(words) == 2 and words[0].lower() == self.service:
                    return words[1]
        return headers.get(self.legacy_header.lower())

    def range_headers(self) -> dict[str, str]:
        if self.generic_header:
            return {}
        prefix = self.legacy_header.removesuffix("-Version")
        return {
            f"{prefix}-Minimum-Version": str(self.minimum),
            f"{prefix}-Maximum-Version": str(self.maximum),
        }

    def response_headers(self, version: Version) -> dict[str, str]:
        headers = {**self.range_headers(), self.legacy_header: str(version)}
        if self.generic_header:
            headers["OpenStack-API-Version"] = f"{self.service} {version}"
            headers["Vary"] = f"OpenStack-API-Version, {self.legacy_header}"
        return headers


IRONIC = MicroversionSpec(
    service="baremetal",
    minimum=Version(1, 1),
    maximum=Version(1, 115),  # as Ironic 39 (2026.1), so current clients negotiate normally
    legacy_header="X-OpenStack-Ironic-API-Version",
    generic_header=False,
    malformed_status=406,
)
NOVA = MicroversionSpec(
    service="compute",
    minimum=Version(2, 1),
    maximum=Version(2, 104),  # as Nova 34
    legacy_header="X-OpenStack-Nova-API-Version",
    generic_header=True,
    malformed_status=400,
)
