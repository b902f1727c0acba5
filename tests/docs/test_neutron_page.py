"""The network flavors how-to (docs/how-to/network-flavors.md) prints what it shows against the
real Neutron 29 of the test support (tests/support/neutron_api.py): the page declares it on its
first line, and its ``--endpoint http://127.0.0.1:9696`` is that Neutron (the runner maps the
page's port to the one Neutron listens on, and shows it as the page's in the output). The page
runs in a folder of its own holding a copy of the project's examples/, as its reader is told
to make."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.docs.pages import Session, environment, run_page, services
from tests.support.neutron_api import running_neutron

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "how-to" / "network-flavors.md"
PAGE_PORT = "9696"  # Neutron's own port, as the page writes it


def test_the_network_flavors_page_prints_what_it_shows(tmp_path: Path) -> None:
    assert services(PAGE.read_text()) == ["neutron"]
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    with running_neutron() as neutron:
        session = Session(tmp_path, environment(tmp_path))
        session.ports[PAGE_PORT] = str(urlsplit(neutron.url).port)
        try:
            problems = run_page(PAGE, session)
        finally:
            session.close()
    assert not problems, "\n\n".join(problems)
