"""The views a query of a dataset reads (``obs``, ``latest`` and, for offers, the roll-ups),
bound once per set of files and kept as a schema of the process's DuckDB database.

Binding the views reads every file's footer, so the questions of a page over the same files
bind them once: the schema's name is kept in the active cache (namespace :data:`VIEWS`,
keyed by the files, the key, the order, the part and the window), and the schema is dropped
when the entry leaves the cache. Each cache names its own schemas, so one cache's eviction
never drops another's. With no cache to keep them (:data:`computeatlas.core.cache.NO_CACHE`),
the views are temporary ones on the query's own cursor.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import threading
from collections.abc import Sequence

import duckdb

from computeatlas.cloud.engine import connection
from computeatlas.cloud.layout import Files
from computeatlas.cloud.views import define
from computeatlas.core.cache import active

VIEWS = "store views"
"""The namespace of the bound view schemas in the active cache."""

SCHEMA_BYTES = 16 * 1024
"""What a kept schema counts for in the cache (B): a nominal figure, since its views live in DuckDB, not in Python."""

RENTAL_KEY = ("provider", "instance_type", "region", "pricing", "term", "collected")
"""The observation key of a store of offers: its views also get the roll-ups (``monthly``, ``daily``, ``lows``)."""


def bind(
    con: duckdb.DuckDBPyConnection,
    files: Files,
    key: Sequence[str],
    order: str,
    accelerator: str | None,
    first: dt.date | None,
    last: dt.date | None,
) -> None:
    """Make the views over ``files`` the ones ``con`` reads: the kept schema's (created on
    first use) set as its search path, or temporary views on ``con`` when the active cache
    cannot keep a schema. Raises ``ValueError`` for an empty ``files``."""
    cache = active()
    ident = (files, tuple(key), order, accelerator, first, last)
    monthly = tuple(key) == RENTAL_KEY
    name = cache.get(VIEWS, ident)
    if name is None:
        if cache.max_bytes < SCHEMA_BYTES:  # a cache that cannot keep one (none active, or tiny)
            define(con, files, key, order, accelerator, first, last, monthly=monthly)
            return
        # One thread creates a schema at a time: requests arriving together after a start or an
        # import would otherwise create the same views at once, which DuckDB refuses as a
        # write-write conflict on its catalog (a 500). The second finds the first's in the cache.
        with _CREATING:
            name = cache.get(VIEWS, ident)
            if name is None:
                digest = hashlib.sha1(f"{cache.serial} {ident!r}".encode(), usedforsecurity=False).hexdigest()[:20]
                name = f"views_{digest}"
                con.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
                define(con, files, key, order, accelerator, first, last, monthly=monthly, schema=name)
                cache.put(VIEWS, ident, name, size=SCHEMA_BYTES, on_evict=_drop)
    con.execute(f"SET search_path = '{name}'")


_CREATING = threading.Lock()
"""Held while a view schema is created (:func:`bind`); reading one never takes it."""


def _drop(name: str) -> None:
    """Drop the schema ``name`` (its entry left the cache)."""
    with connection() as con:
        con.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


__all__ = ["RENTAL_KEY", "SCHEMA_BYTES", "VIEWS", "bind"]
