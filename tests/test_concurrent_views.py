"""Requests arriving together on a cold cache (after a start, after every import) each ask for
the store's views: they are created once, never twice at the same time (DuckDB refuses two
creations of one view as a write-write conflict on its catalog, which a visitor saw as a 500)."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from computeatlas.cloud.store import Store
from computeatlas.core.cache import Cache, use

BUNDLED = Path(__file__).parent.parent / "data" / "prices"
PARTS = ("nvidia-h100-sxm", "aws-trainium-3", "nvidia-a100-sxm-80gb", "google-tpu-v5p")


def test_sixteen_requests_at_once_on_a_cold_cache_all_get_their_answer() -> None:
    store = Store(BUNDLED)
    alone = {part: len(store.history(part, dt.date(2025, 12, 4), None)) for part in PARTS}  # no cache: temporary views
    for _ in range(3):  # three cold starts
        cache, start = Cache(64 * 2**20), threading.Barrier(16)

        def ask(i: int, cache: Cache = cache, start: threading.Barrier = start) -> tuple[str, int]:
            part = PARTS[i % len(PARTS)]
            with use(cache):
                start.wait()  # all sixteen at once
                return part, len(store.history(part, dt.date(2025, 12, 4), None))

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(ask, range(16)))
        assert all(n == alone[part] for part, n in answers), answers
    assert alone["nvidia-h100-sxm"] > 0
