"""/ui: the dashboard's static pages, served by the service itself with no token, and never
pointing at anything elsewhere."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

from fastapi.testclient import TestClient

from flavorsmith.api import ui
from tests.api.conftest import ClientFactory

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src/flavorsmith/api/ui/static"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Every URL a page or script names: src/href attributes, ES module imports, fetch() calls.
_REFERENCE = re.compile(r"""(?:src|href)="([^"]+)"|from "([^"]+)"|api\("([^"?$]+)""")


def test_every_asset_is_served_with_its_type_and_the_policy(client: TestClient) -> None:
    names = sorted(p.name for p in STATIC.iterdir())
    assert ui.asset_names() == names
    assert {"index.html", "capacity.js", "common.js", "style.css", "icon.svg"} <= set(names)
    for name in names:
        response = client.get(f"/ui/{name}")
        assert response.status_code == 200, name
        assert response.content == (STATIC / name).read_bytes()
        assert response.headers["content-type"] == TYPES[Path(name).suffix]
        assert response.headers["content-security-policy"] == ui.HEADERS["Content-Security-Policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-cache"


def test_the_dashboard_opens_on_the_capacity_page_with_or_without_a_slash(
    client: TestClient,
) -> None:
    for path in ("/ui", "/ui/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.content == (STATIC / "index.html").read_bytes()
        assert '<script type="module" src="/ui/capacity.js"></script>' in response.text


def test_the_policy_allows_only_this_service() -> None:
    policy = ui.HEADERS["Content-Security-Policy"]
    assert policy.startswith("default-src 'none';")
    sources = {part.split()[0]: part.split()[1:] for part in policy.split("; ")}
    assert all(values in (["'self'"], ["'none'"]) for values in sources.values()), sources


def test_every_reference_is_served_here_and_nothing_comes_from_elsewhere(
    client: TestClient,
) -> None:
    for path in STATIC.iterdir():
        text = path.read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text and "//cdn" not in text, path.name
        for match in _REFERENCE.finditer(text):
            url = next(group for group in match.groups() if group)
            if url.startswith("#") or "${" in url:
                continue  # a fragment on the same page; a link built per row
            assert url.startswith(("/ui/", "/v1/")), (path.name, url)
            if url.startswith("/ui/"):
                assert client.get(url).status_code == 200, (path.name, url)


def test_unknown_or_hostile_names_are_not_found(client: TestClient) -> None:
    for path in ("/ui/nope.js", "/ui/__init__.py", "/ui/..%2F__init__.py", "/ui/INDEX.HTML"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"] == "application/problem+json"


def test_pages_need_no_token_but_the_data_does(
    make_client: ClientFactory, token_file: Path
) -> None:
    client = make_client(auth="token-file", token_file=token_file)
    assert client.get("/ui/").status_code == 200
    assert client.get("/ui/capacity.js").status_code == 200
    assert client.get("/v1/capacity").status_code == 401
    assert client.get("/v1/capacity", headers={"X-Auth-Token": "reader-token"}).status_code == 200


def test_an_installed_package_carries_every_asset() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = setup["package-data"]["flavorsmith"]
    for path in STATIC.iterdir():
        relative = str(path.relative_to(ROOT / "src/flavorsmith"))
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative
