"""The work units of ``make test``'s scheduler (tests/scheduler.py): groups kept whole, longest first."""

from __future__ import annotations

from typing import Any

from tests.scheduler import GroupScheduler, work_units

COLLECTION = [
    "tests/test_api.py::test_one",
    "tests/test_ledger.py::test_erase[postgresql]",
    "tests/browser/test_pages.py::test_home",
    "tests/test_site.py::test_small_build",
    "tests/test_ledger.py::test_erase[sqlite]",
    "tests/browser/test_forms.py::test_form",
    "tests/test_site.py::test_real_build_links",
    "tests/test_ledger.py::test_vacuum[postgresql]",
    "tests/test_durability.py::test_burst[sqlite]",
    "tests/test_durability.py::test_burst[postgresql]",
    "tests/test_durability.py::test_restart[sqlite]",
    "tests/test_site.py::test_small_feed",
]


def test_groups_stay_whole_and_the_longest_go_first() -> None:
    assert work_units(COLLECTION) == [
        [6],  # real-build
        [2, 5],  # browser
        [1, 7, 9],  # postgresql, the durability one too
        [8, 10],  # durability-sqlite
        [3, 11],  # site
        [0],
        [4],
    ]


class Worker:
    """A stand-in for pytest-xdist's WorkerController: records what it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.append(list(indices))

    def shutdown(self) -> None:
        self.shutting_down = True


def test_two_workers_get_every_test_once_and_stop_when_none_is_left() -> None:
    config: Any = None
    scheduler = GroupScheduler(config, 2)
    first, second = Worker("gw0"), Worker("gw1")
    for worker in (first, second):
        scheduler.add_node(worker)
        assert not scheduler.collection_is_completed
        scheduler.add_node_collection(worker, COLLECTION)
    assert scheduler.collection_is_completed and not scheduler.has_pending
    scheduler.schedule()
    assert first.sent[0] == [6] and second.sent[0] == [2, 5]
    while not scheduler.tests_finished or scheduler.has_pending:
        for worker in (first, second):
            if scheduler.pending[worker]:
                scheduler.mark_test_complete(worker, scheduler.pending[worker][0])
    handed = sorted(i for worker in (first, second) for unit in worker.sent for i in unit)
    assert handed == list(range(len(COLLECTION)))
    assert first.shutting_down and second.shutting_down
    assert [1, 7, 9] in first.sent + second.sent  # the PostgreSQL tests went to one worker together
