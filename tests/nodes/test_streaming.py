"""A streamed node import holds one batch at a time: its memory does not grow with the file."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from flavorsmith.catalog import plain_yaml
from flavorsmith.db import migrate
from flavorsmith.db.engine import make_engine, writer
from flavorsmith.nodes import importer


def inventory(path: Path, count: int) -> Path:
    with path.open("w") as out:
        out.write("nodes:\n")
        for i in range(count):
            out.write(
                f"  - name: n{i:06d}\n    driver: ipmi\n    resource_class: m1\n"
                f"    properties: {{cpus: {i % 64}, memory_mb: 131072, cpu_arch: x86_64}}\n"
                f"    traits: [CUSTOM_A, HW_CPU_X86_AVX2]\n"
            )
    return path


def peak_kib(tmp_path: Path, count: int) -> int:
    """Peak Python memory (KiB, as tracemalloc counts it) of importing ``count`` nodes."""
    file = inventory(tmp_path / f"{count}.yaml", count)
    engine = make_engine(f"sqlite:///{tmp_path / f'{count}.db'}")
    migrate.upgrade(engine)
    tracemalloc.start()
    try:
        with writer(engine).begin() as connection:
            stream = plain_yaml.Stream(file)
            outcome = importer.import_entries(
                connection,
                stream,
                lambda: (stream.top, stream.prefix),
                labels=False,
                batch=500,
            )
        peak = tracemalloc.get_traced_memory()[1] >> 10
    finally:
        tracemalloc.stop()
        engine.dispose()
    assert (outcome.problems, outcome.report.counts["created"]) == ([], count)
    return peak


def test_import_memory_does_not_grow_with_the_number_of_nodes(tmp_path: Path) -> None:
    """Batches of 500 here (the command's are larger), so both imports hold full ones."""
    small = peak_kib(tmp_path, 1_000)
    large = peak_kib(tmp_path, 4_000)
    # 3,000 nodes more: under 500 bytes a node (what is kept of each is its name, to find
    # one listed twice; about 100 bytes), where holding every node took about 5 KB each.
    assert large - small < 3_000 * 500 >> 10, (small, large)
