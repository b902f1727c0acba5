"""The service's TLS certificate and key, checked before anything is served: a file that is not
a PEM certificate or key, an encrypted key, or a key of another certificate is one clear
sentence naming the file, never an OpenSSL traceback when the first client connects."""

from __future__ import annotations

import ssl
from pathlib import Path


class TlsError(ValueError):
    """A certificate or key that cannot serve TLS, with a message naming the file."""


def check(cert: Path, key: Path | None) -> ssl.SSLContext:
    """A server context holding ``cert`` and ``key`` (None: the key is in the certificate's
    file); TlsError naming the file and the problem otherwise."""
    key_file = key or cert
    cert_text = _read(cert, "--tls-cert")
    key_text = cert_text if key is None else _read(key, "--tls-key")
    if "-----BEGIN CERTIFICATE-----" not in cert_text:
        raise TlsError(f"--tls-cert {cert}: not a PEM certificate (no BEGIN CERTIFICATE)")
    if "PRIVATE KEY-----" not in key_text:
        where = "--tls-key" if key is not None else "--tls-cert (no --tls-key given)"
        raise TlsError(f"{where} {key_file}: holds no PEM private key")
    if "ENCRYPTED" in key_text:
        raise TlsError(
            f"--tls-key {key_file}: the private key is encrypted; give it unencrypted, "
            "readable only by the service's user"
        )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(str(cert), str(key_file), password=_no_password)
    except ssl.SSLError as exc:
        reason = exc.reason or str(exc)
        if reason == "KEY_VALUES_MISMATCH":
            raise TlsError(
                f"--tls-key {key_file}: the key does not belong to the certificate {cert}"
            ) from None
        raise TlsError(
            f"--tls-cert {cert} / --tls-key {key_file}: cannot be loaded ({reason})"
        ) from None
    return context


def _read(path: Path, option: str) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError as exc:
        raise TlsError(f"{option} {path}: cannot be read ({exc.strerror or exc})") from None


def _no_password() -> str:
    raise TlsError("the private key is encrypted; give it unencrypted")
