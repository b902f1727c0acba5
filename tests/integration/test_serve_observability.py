"""``flavorsmith serve`` as an operator runs it: Prometheus metrics on their own port after known
work (recorded in multiprocess files, as with several workers), log lines as JSON or text with
the request id the response carries, and HTTPS that the real ``openstack`` CLI verifies with
``--os-cacert``; bad TLS files are one line at start."""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import EXAMPLES, Invoke
from tests.integration.clients import OPENSTACK, OpenStack

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


@dataclass
class Served:
    url: str
    metrics: str | None
    folder: Path | None
    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


@contextmanager
def serve(home: Path, *args: str) -> Iterator[Served]:
    """A real serve process on free ports; its stderr lines are collected as they come."""
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    for var in ("FLAVORSMITH_DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(var, None)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flavorsmith",
            "serve",
            "--repo",
            str(EXAMPLES),
            "--port",
            "0",
            *args,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    lines: list[str] = []
    url = metrics = folder = None
    deadline = time.monotonic() + 60
    while url is None and time.monotonic() < deadline:
        line = process.stderr.readline()
        assert line, f"serve ended: {''.join(lines)}"
        lines.append(line.rstrip("\n"))
        found = re.match(r"metrics on (\S+) \(multiprocess files in (\S+)\)$", lines[-1])
        if found:
            metrics, folder = found.group(1), Path(found.group(2))
        found = re.match(r"serving on (\S+)/ \(auth: noauth\)$", lines[-1])
        if found:
            url = found.group(1)
    assert url is not None, lines
    served = Served(url, metrics, folder, process, lines)

    def drain() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield served
    finally:
        if process.poll() is None:
            served.stop()
        reader.join(timeout=10)
        process.stderr.close()


def scrape(
    url: str, context: ssl.SSLContext | None = None
) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    with urllib.request.urlopen(url, timeout=30, context=context) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def call(method: str, url: str, context: ssl.SSLContext | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as response:
            return response.status, response.headers["x-openstack-request-id"]
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["x-openstack-request-id"]


def test_metrics_and_json_logs_after_known_work(tmp_path: Path) -> None:
    started = time.time()
    with serve(tmp_path / "home", "--metrics-port", "0") as served:
        assert served.metrics is not None and served.folder is not None
        assert served.folder.is_dir()
        for _ in range(4):
            assert call("GET", f"{served.url}/v1/flavors/m1.small/nodes")[0] == 200
        assert call("GET", f"{served.url}/v1/no-such-thing")[0] == 404
        status, applied_by = call("POST", f"{served.url}/v1/sync/apply")
        assert status == 200
        samples = scrape(served.metrics)
        # Each process of a start writes its own files; a scrape adds them up.
        assert sorted(p.name.split("_")[0] for p in served.folder.glob("*.db"))
        served.stop()
    assert not served.folder.exists()  # the start's own folder goes with it

    def value(name: str, **labels: str) -> float:
        return samples[(name, frozenset(labels.items()))]

    nodes = {"family": "native", "route": "/v1/flavors/{name}/nodes", "method": "GET"}
    assert value("flavorsmith_http_requests_total", **nodes, status="200") == 4
    assert value("flavorsmith_http_request_duration_seconds_count", **nodes) == 4
    unmatched = {"family": "native", "route": "unmatched", "method": "GET", "status": "404"}
    assert value("flavorsmith_http_requests_total", **unmatched) == 1
    apply = {"family": "native", "route": "/v1/sync/apply", "method": "POST", "status": "200"}
    assert value("flavorsmith_http_requests_total", **apply) == 1
    created = {"kind": "flavors", "action": "create", "result": "done"}
    assert value("flavorsmith_sync_actions_total", **created) == 12
    assert value("flavorsmith_sync_rounds_total", kind="flavors", result="ok") == 1
    assert started < value("flavorsmith_sync_last_success_timestamp_seconds", kind="flavors")
    assert value("flavorsmith_inventory_readable") == 1
    flavors = {
        dict(labels)["flavor"]
        for name, labels in samples
        if name == "flavorsmith_flavor_nodes_matching"
    }
    assert len(flavors) == 12 and "m1.small" in flavors

    # Logs: stderr is not a terminal, so JSON, one document per line after the start banner.
    banner = [line for line in served.lines if not line.startswith("{")]
    assert all(
        re.match(r"(database: |catalog: |metrics on |serving on |limits: )", line)
        for line in banner
    ), banner
    events = [json.loads(line) for line in served.lines if line.startswith("{")]
    assert events and all(
        re.fullmatch(TIME, e["time"]) and e["level"] and e["logger"] for e in events
    )
    assert not any("Context impl" in line for line in served.lines)  # Alembic's INFO: DEBUG
    (applied,) = [e for e in events if e.get("route") == "/v1/sync/apply"]
    assert applied["request_id"] == applied_by
    assert (applied["event"], applied["method"], applied["status"]) == ("request", "POST", 200)
    assert applied["logger"] == "flavorsmith.api" and applied["level"] == "INFO"


def test_watcher_rounds_name_what_they_changed_in_text_logs(tmp_path: Path) -> None:
    with serve(tmp_path / "home", "--sync", "--log-format", "text") as served:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
            "kind=deploy-templates" in line for line in served.lines
        ):
            time.sleep(0.1)
        served.stop()
    (flavors,) = [line for line in served.lines if "kind=flavors" in line]
    assert re.match(TIME + r" INFO    flavorsmith\.sync sync round kind=flavors round=1 ", flavors)
    assert "writes=12" in flavors and 'create=["c2.diskless", ' in flavors


# TLS -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pki:
    ca: Path
    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A certificate authority of the test's own and a server certificate for loopback."""
    folder = tmp_path_factory.mktemp("pki")
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("flavorsmith test CA"))
        .issuer_name(_name("flavorsmith test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    found = Pki(folder / "ca.pem", folder / "server.pem", folder / "server-key.pem")
    found.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    found.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    found.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return found


def test_the_openstack_cli_calls_the_api_over_https(tmp_path: Path, pki: Pki) -> None:
    assert OPENSTACK is not None
    args = ("--tls-cert", str(pki.cert), "--tls-key", str(pki.key), "--metrics-port", "0")
    with serve(tmp_path / "home", *args) as served:
        assert served.url.startswith("https://127.0.0.1:")
        assert served.metrics is not None and served.metrics.startswith("https://")
        trusted = ssl.create_default_context(cafile=pki.ca)
        assert call("POST", f"{served.url}/v1/sync/apply", trusted)[0] == 200
        compute = OpenStack.noauth(served.url, "compute", "--os-cacert", str(pki.ca))
        listed = compute.json("flavor", "list")
        assert "m1.small" in {flavor["Name"] for flavor in listed}
        # Without the CA the certificate is refused: the CLI really verified it.
        wait_for_request(served, "/flavors")  # its log line read: the count is complete
        answered = len(requests(served.lines))
        unverified = OpenStack.noauth(served.url, "compute").run("flavor", "list")
        assert unverified.returncode != 0 and "version discovery" in unverified.stderr
        assert len(requests(served.lines)) == answered  # the handshake failed: no request
        # Plain HTTP on the TLS port gets no answer from the API.
        with pytest.raises(OSError):
            urllib.request.urlopen(served.url.replace("https", "http") + "/healthz", timeout=10)
        samples = scrape(served.metrics, trusted)
        key = ("flavorsmith_sync_rounds_total", frozenset({("kind", "flavors"), ("result", "ok")}))
        assert samples[key] == 1


def wait_for_request(served: Served, path: str, timeout: float = 30) -> None:
    """Until the log line of a request whose path contains ``path`` has been read: the server
    logs a request once it has answered, and the reader thread follows its stderr a little
    behind, further on a busy machine."""
    deadline = time.monotonic() + timeout
    while not any(path in str(event.get("path")) for event in requests(served.lines)):
        assert time.monotonic() < deadline, served.lines
        time.sleep(0.05)


def requests(lines: list[str]) -> list[dict[str, object]]:
    events = (json.loads(line) for line in list(lines) if line.startswith("{"))
    return [e for e in events if e.get("event") == "request"]


@pytest.mark.parametrize(
    ("files", "says"),
    [
        (("junk", "key"), "--tls-cert {junk}: not a PEM certificate (no BEGIN CERTIFICATE)"),
        (("cert", "junk"), "--tls-key {junk}: holds no PEM private key"),
        (("cert", None), "--tls-cert (no --tls-key given) {cert}: holds no PEM private key"),
        (("cert", "other"), "--tls-key {other}: the key does not belong to the certificate {cert}"),
        (
            ("cert", "encrypted"),
            "--tls-key {encrypted}: the private key is encrypted; give it unencrypted, readable "
            "only by the service's user",
        ),
    ],
    ids=["cert-not-pem", "key-not-pem", "no-key", "key-of-another", "encrypted-key"],
)
def test_bad_tls_files_are_one_line_at_start(
    cli: Invoke, tmp_path: Path, pki: Pki, files: tuple[str, str | None], says: str
) -> None:
    other = ec.generate_private_key(ec.SECP256R1())
    paths = {
        "cert": pki.cert,
        "key": pki.key,
        "junk": tmp_path / "junk.pem",
        "other": tmp_path / "other-key.pem",
        "encrypted": tmp_path / "encrypted-key.pem",
    }
    paths["junk"].write_text("not a certificate\n")
    paths["other"].write_bytes(
        other.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    paths["encrypted"].write_bytes(
        other.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    cert, key = files
    args = ["--tls-cert", str(paths[cert])]
    if key is not None:
        args += ["--tls-key", str(paths[key])]
    result = cli("serve", "--repo", str(EXAMPLES), "--port", "0", *args)
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr and "serving on" not in result.stderr
    assert result.stderr.splitlines() == [
        "error: " + says.format(**{name: path for name, path in paths.items()})
    ]


def test_a_taken_metrics_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # A temporary folder of its own: the metrics folder it must not leave behind is looked
        # for there, not among other processes' in the shared /tmp.
        scratch = tmp_path / "tmp"
        scratch.mkdir()
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "home"), "TMPDIR": str(scratch)}
        env.pop("FLAVORSMITH_DATABASE_URL", None)
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "flavorsmith",
                "serve",
                "--repo",
                str(EXAMPLES),
                "--port",
                "0",
                "--metrics-port",
                str(port),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    assert list(scratch.iterdir()) == []
