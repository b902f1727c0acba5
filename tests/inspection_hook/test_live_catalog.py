"""The catalog the inspection hook keeps loaded: reloaded when a file changes, never used
while it has errors, and each load logged."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from flavorsmith.inspection_hook.live_catalog import LiveCatalog
from tests.conftest import EXAMPLES
from tests.support.catalogs import repository

LOG = logging.getLogger("tests.live_catalog")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES / "hardware", tmp_path / "hardware")
    return tmp_path


def test_loaded_once_while_nothing_changes(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    live = LiveCatalog(repository(root), LOG)
    with caplog.at_level(logging.INFO, logger=LOG.name):
        first = live.current()
        assert first is not None and live.current() is first
    assert live.loads == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"loaded the catalog at {root}: 5 device type(s), 5 trait rule file(s)"
    ]


def test_a_changed_file_is_loaded_again(root: Path) -> None:
    live = LiveCatalog(repository(root), LOG)

    def cpu_traits() -> set[str]:
        catalog = live.current()
        assert catalog is not None
        (cpu,) = (r for r in catalog.trait_rules if r.name == "cpu")
        return {t for rule in cpu.rules for t in rule.add}

    assert cpu_traits() == {"CUSTOM_CPU_AVX512", "CUSTOM_CPU_SGX"}
    rules = root / "hardware" / "trait-rules" / "cpu.yaml"
    rules.write_text(rules.read_text().replace("CUSTOM_CPU_SGX", "CUSTOM_CPU_SGX2"))
    assert cpu_traits() == {"CUSTOM_CPU_AVX512", "CUSTOM_CPU_SGX2"}
    assert live.loads == 2


def test_a_catalog_with_errors_is_not_used_until_fixed(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = LiveCatalog(repository(root), LOG)
    rules = root / "hardware" / "trait-rules" / "cpu.yaml"
    good = rules.read_text()
    rules.write_text(good.replace("prefix: CUSTOM_CPU_", "prefix: 42"))
    with caplog.at_level(logging.ERROR, logger=LOG.name):
        assert live.current() is None
        assert live.current() is None  # the same broken files: not loaded (nor logged) again
    assert live.problem == f"the catalog at {root} has 1 error(s); it is not used"
    (record,) = caplog.records
    assert record.getMessage().startswith(f"{live.problem} until they are fixed:\n  ")
    assert "cpu.yaml:4:" in record.getMessage()
    rules.write_text(good + "\n")
    assert live.current() is not None and live.problem is None


def test_a_missing_hardware_folder_is_a_problem_not_an_empty_catalog(root: Path) -> None:
    live = LiveCatalog(repository(root), LOG)
    shutil.rmtree(root / "hardware")
    assert live.current() is None
    assert live.problem is not None and "has 1 error(s)" in live.problem
