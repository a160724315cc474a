"""The pytest-xdist scheduler of ``make test`` (``-n 2 --dist loadgroup``): work units kept together.

pytest-xdist 3.8's ``xdist_group`` marker groups nothing under pytest 9 (it renames the item's
``_nodeid``, which pytest 9 no longer reads; pytest-xdist issue 1386), so the units are worked
out here, on the controller, from the test ids (:func:`xdist_group`), and handed out by
:class:`GroupScheduler`, a scheduler of pytest-xdist's documented ``Scheduling`` protocol
returned from its ``pytest_xdist_make_scheduler`` hook (in ``conftest.py``). It uses
pytest-xdist's public names only: the protocol, and a worker's ``send_runtest_some``,
``shutdown``, ``shutting_down`` and ``gateway.id``.

As in pytest-xdist's own ``loadgroup``: a unit goes to one worker whole; a test in no group is a
unit of its own; a worker is given its next unit when it has two tests or fewer left (a worker
runs a test once it knows the next one, so the last test of what it was given stays pending
until it is given more or told to stop). Unlike it, the longest units go first (:data:`LONGEST_FIRST`),
so no worker is left with one long unit while the other has finished.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

import pytest

LONGEST_FIRST = ("real-build", "browser", "postgresql", "durability", "tests/test_durability.py", "site")
"""The work units that take longest (seconds each), in the order they are handed out."""


def xdist_group(nodeid: str) -> str | None:
    """The pytest-xdist work unit a test belongs to (``None``: a unit of its own). The browser
    tests share one worker, so the server and chromium start once; so do the tests of the
    small static build, so it is built once. The test of the real build (the longest single
    fixture) is a unit of its own, free to run beside the browser tests. The PostgreSQL
    tests run one after another on one worker: they share one cluster, and a transaction of
    another worker's test can hold back ``VACUUM FULL``, so the erase tests would see old
    rows. The SQLite burst tests of test_durability.py share one worker, as they share one
    server. Every other test goes wherever a worker is free."""
    path, _, name = nodeid.partition("::")
    if path.startswith("tests/browser/"):
        return "browser"
    if path == "tests/test_site.py":
        return "real-build" if "real_build" in name else "site"
    if "postgresql" in name:
        return "postgresql"
    if path == "tests/test_durability.py" and name.endswith("[sqlite]"):
        return "durability-sqlite"
    return None


def first_by_length(scope: str) -> int:
    """A unit's place in :data:`LONGEST_FIRST` (every other unit after them, in collection order)."""
    for place, prefix in enumerate(LONGEST_FIRST):
        if scope.startswith(prefix):
            return place
    return len(LONGEST_FIRST)


def work_units(collection: Sequence[str]) -> list[list[int]]:
    """The collection's tests (by index) in work units: :func:`xdist_group`'s groups, every
    other test alone, the units ordered by :func:`first_by_length` (stable)."""
    units: dict[str, list[int]] = {}
    for index, nodeid in enumerate(collection):
        units.setdefault(xdist_group(nodeid) or nodeid, []).append(index)
    return [units[scope] for scope in sorted(units, key=first_by_length)]


class GroupScheduler:
    """pytest-xdist's ``Scheduling`` protocol over :func:`work_units` (see the module doc).

    ``numnodes`` is the number of workers started (``-n``); the units are formed once every
    one has collected. Workers that collected different tests fail the run (a collection
    error naming both workers), as with pytest-xdist's own schedulers."""

    def __init__(self, config: pytest.Config, numnodes: int) -> None:
        self.config = config
        self.numnodes = numnodes
        self.collections: dict[Any, list[str]] = {}
        self.pending: dict[Any, list[int]] = {}
        self.queue: deque[list[int]] | None = None

    @property
    def nodes(self) -> list[Any]:
        """The workers that are up."""
        return list(self.pending)

    @property
    def collection_is_completed(self) -> bool:
        """Whether every worker has reported its collection."""
        return len(self.collections) >= self.numnodes

    @property
    def tests_finished(self) -> bool:
        """Whether nothing is left to hand out and no worker has more than its last test."""
        return self.collection_is_completed and not self.queue and all(len(left) < 2 for left in self.pending.values())

    @property
    def has_pending(self) -> bool:
        """Whether any test is not yet handed out or not yet finished."""
        return bool(self.queue) or any(self.pending.values())

    def add_node(self, node: Any) -> None:
        """A worker is up."""
        self.pending[node] = []

    def add_node_collection(self, node: Any, collection: Sequence[str]) -> None:
        """A worker's collected test ids."""
        self.collections[node] = list(collection)

    def mark_test_complete(self, node: Any, item_index: int, duration: float = 0) -> None:
        """A worker finished a test: top it up (:meth:`reschedule`)."""
        self.pending[node].remove(item_index)
        self.reschedule(node)

    def mark_test_pending(self, item: str) -> None:
        """Not supported (as in pytest-xdist's ``loadscope``): tests are not re-queued one by one."""
        raise NotImplementedError

    def remove_pending_tests_from_node(self, node: Any, indices: Sequence[int]) -> None:
        """Not supported (as in pytest-xdist's ``loadscope``)."""
        raise NotImplementedError

    def remove_node(self, node: Any) -> str | None:
        """A worker went down: the id of the test it was running (``None`` if it had none);
        the rest of what it was given goes back to the front of the queue."""
        left = self.pending.pop(node)
        if not left:
            return None
        collection = self.collections[node]
        if self.queue is not None and left[1:]:
            self.queue.appendleft(left[1:])
        for other in self.nodes:
            self.reschedule(other)
        return collection[left[0]]

    def schedule(self) -> None:
        """Form the units once every worker has collected and hand out one to each worker
        (a worker then given its last tests gets a second); later, top every worker up."""
        if self.queue is None:
            if not self.same_collections():
                return
            self.queue = deque(work_units(next(iter(self.collections.values()))))
            for node in self.nodes:
                if self.queue:
                    self.hand_out(node)
        for node in self.nodes:
            self.reschedule(node)

    def reschedule(self, node: Any) -> None:
        """Give ``node`` the next unit when it has two tests or fewer left (as pytest-xdist's
        ``loadscope`` does); stop it when no unit is left."""
        if node.shutting_down or self.queue is None:
            return
        if not self.queue:
            node.shutdown()
        elif len(self.pending[node]) <= 2:
            self.hand_out(node)

    def hand_out(self, node: Any) -> None:
        """Send ``node`` the first unit of the queue."""
        assert self.queue
        unit = self.queue.popleft()
        self.pending[node].extend(unit)
        node.send_runtest_some(unit)

    def same_collections(self) -> bool:
        """Whether every worker collected the same tests; reports each that did not as a failed collection."""
        (first, expected), *others = self.collections.items()
        same = True
        for node, collection in others:
            if collection != expected:
                same = False
                longrepr = f"{node.gateway.id} collected {len(collection)} tests, {first.gateway.id} {len(expected)}: different tests"
                self.config.hook.pytest_collectreport(report=pytest.CollectReport(node.gateway.id, "failed", longrepr, []))
        return same
