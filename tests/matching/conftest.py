"""A fresh database per backend holding the example inventory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from flavorsmith.catalog.document import parse
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.nodes import importer
from tests.conftest import EXAMPLES
from tests.database import throwaway_postgres


def load_examples(engine: Engine) -> None:
    migrate.upgrade(engine)
    doc, _ = parse((EXAMPLES / "nodes.yaml").read_bytes(), "nodes.yaml", max_bytes=None)
    assert doc is not None
    parsed = importer.parse(doc.data)
    assert parsed.problems == []
    with writer(engine).begin() as connection:
        importer.store_nodes(connection, parsed.specs)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def example_engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('m') / 'examples.db'}")
        load_examples(engine)
        yield engine
        engine.dispose()
        return
    with throwaway_postgres() as url:
        engine = make_engine(url)
        load_examples(engine)
        yield engine
        engine.dispose()


@pytest.fixture(scope="module")
def example_db_url(example_engine: Engine) -> str:
    return example_engine.url.render_as_string(hide_password=False)


__all__ = ["Path"]
