"""A price import in a process of its own, for the tests of one writer at a time.

``python -m tests.store_writer MODE STORE FILE [READY GO]`` imports the atlas-format FILE into
the store at STORE through the fixtures' instance table (as ``prices import atlas`` does)
and prints the counts as JSON. With READY and GO it first writes the file READY and waits
until GO exists, so that two writers start their imports at the same moment.

MODE: ``import`` (an ordinary import); ``unlocked`` (the same, with the store's write lock
replaced by nothing: only to measure what the lock prevents, never used by a test that
must pass); ``busy`` (an import that waits at most one second for the lock: exit 3 and the
message when refused); ``die-before-manifest`` (killed, ``os._exit(9)``, after its files are
moved into place and before its manifest is written); ``die-in-staging`` (killed before any
file is moved); ``hold-and-die`` (takes the lock, then SIGKILLs itself).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import sys
import time
from pathlib import Path

from computeatlas.cloud import rules
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.cloud.writers import StoreBusy

FIXTURES = Path(__file__).parent / "fixtures" / "prices"


def _die_at(replaces: int) -> None:
    """Kill this process (exit 9, nothing cleaned up) at the ``replaces``-th os.replace."""
    real, seen = os.replace, [0]

    def replace(source: object, target: object) -> None:
        seen[0] += 1
        if seen[0] >= replaces and (replaces == 1 or str(target).endswith(".json")):
            os._exit(9)
        real(source, target)  # type: ignore[arg-type]

    os.replace = replace  # type: ignore[assignment]


def main(mode: str, store_dir: str, file: str, ready: str | None = None, go: str | None = None) -> int:
    """Run one writer (see the module docstring); the exit status says how it ended."""
    store = Store(Path(store_dir))
    if mode == "hold-and-die":
        with store.writing():
            Path(file).write_text("locked", encoding="utf-8")
            os.kill(os.getpid(), signal.SIGKILL)
    if mode == "unlocked":
        Store.writing = lambda self, timeout=0: contextlib.nullcontext()  # type: ignore[method-assign,assignment,misc]
    if mode == "die-before-manifest":
        _die_at(2)
    if mode == "die-in-staging":
        _die_at(1)
    table = load_instances(FIXTURES / "instances")
    if ready and go:
        Path(ready).write_text("ready", encoding="utf-8")
        while not Path(go).exists():
            time.sleep(0.001)
    try:
        summary = import_readings(
            "atlas",
            [Path(file)],
            store,
            table,
            RateTable([]),
            rules.Limits(),
            now=dt.datetime.now(dt.UTC),
            lock_timeout=1.0 if mode == "busy" else 600.0,
        )
    except StoreBusy as exc:
        print(exc)
        return 3
    print(json.dumps(summary.counts()))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
