"""The matrix's node groups are made once per index, however many threads ask at once (a page
request beside the warming thread), and a request still on the previous index neither groups
the newest again nor evicts it."""

from __future__ import annotations

import random
import threading

from flavorsmith.matching import matrix
from flavorsmith.matching.index import Index
from flavorsmith.matching.snapshot import NodeInfo, Snapshot

TRAITS = [f"CUSTOM_T{i}" for i in range(16)]


def _index(seed: int, size: int = 20_000) -> Index:
    rng = random.Random(seed)
    nodes = tuple(
        NodeInfo(
            uuid=f"u-{seed}-{i}",
            name=f"n-{seed}-{i}",
            resource_class=rng.choice(["baremetal", "gpu", None]),
            traits=frozenset(rng.sample(TRAITS, rng.randint(0, 5))),
            provisioned=rng.random() < 0.3,
        )
        for i in range(size)
    )
    return Index.build(Snapshot(nodes, seed))


def test_threads_asking_at_once_group_an_index_once() -> None:
    index = _index(1)
    start = threading.Barrier(8)
    answers: list[matrix.Groups] = []

    def ask() -> None:
        start.wait()
        answers.append(matrix.groups(index))

    before = matrix.builds
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert matrix.builds == before + 1
    assert len(answers) == 8 and all(a is answers[0] for a in answers)
    assert sum(g.counts(None)[0] for g in answers[0].groups) == 20_000


def test_the_previous_index_s_groups_are_kept_beside_the_newest() -> None:
    old, new = _index(2, 2_000), _index(3, 2_000)
    before = matrix.builds
    first = matrix.groups(old)
    newest = matrix.groups(new)
    assert matrix.groups(old) is first  # a request still on the previous index
    assert matrix.groups(new) is newest
    assert matrix.builds == before + 2
    matrix.groups(_index(4, 100))  # a third: the oldest goes
    assert matrix.groups(new) is newest
    assert matrix.builds == before + 3
