"""The app's one in-memory cache: a least-recently-used map bounded in bytes, shared by
namespaces, with hits, misses, entries and bytes counted per namespace.

Everything the site keeps between requests lives here: rendered pages (``page``), the page
data a page and its JSON twin share (``page data``), the price store's answers
(``store answers``), its file listings (``store listings``) and the DuckDB views bound over
its files (``store views``), the cheapest prices of a minute (``cheapest prices``) and the
rendered charts (``charts``). One bound (:attr:`~computeatlas.core.settings.Settings.page_cache_bytes`)
covers them all, so memory is one figure for the operator, and ``/healthz`` shows each
namespace's share and hit rate.

A key says what the value depends on: a namespace's keys carry the data version, the price
store's version and the date (or the files read, which a new import changes) wherever the
value depends on them, so a new import or a new day is never served an old answer; old
entries are simply never asked for again and age out.

**Who owns it.** The app makes one (:func:`computeatlas.web.app.create_app`) and activates it
for each request (:func:`use`); a CLI run makes its own. Domain code asks :func:`active`,
which is a cache that keeps nothing when none is active (a library call, a test), so every
function works without one, only slower.

**Sizes** are estimates (:func:`size_of`: ``sys.getsizeof`` summed over the contents, a long
sequence measured on a sample of its items), or given by the caller where it knows better
(a body's length).

``functools.cache`` and ``lru_cache`` stay on small pure functions (parsing a unit, a route's
declared parameters): they memoise a function of its arguments, hold no data that changes,
and are bounded by the code, not by traffic; they are not data caches and do not belong here.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import sys
import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import cachetools

T = TypeVar("T")

SAMPLE = 8
"""How many items of a long sequence or mapping :func:`size_of` measures (the rest are taken to be alike)."""


def size_of(value: object, _depth: int = 0) -> int:
    """An estimate of the bytes ``value`` holds (B): ``sys.getsizeof`` of it and, recursively,
    of what it contains (items of sequences, sets and mappings, an object's ``__dict__`` or
    slots); a sequence or mapping of more than ``2 * SAMPLE`` items is measured on its first
    :data:`SAMPLE` and scaled. Shared objects are counted each time they are met, so the
    figure errs high. Never raises."""
    size = sys.getsizeof(value, 64)
    if _depth > 12 or isinstance(value, (str, bytes, bytearray, int, float, bool, type(None))):
        return size
    depth = _depth + 1
    if isinstance(value, dict):
        items = list(value.items()) if len(value) <= 2 * SAMPLE else [kv for kv, _ in zip(value.items(), range(SAMPLE), strict=False)]
        inner = sum(size_of(k, depth) + size_of(v, depth) for k, v in items)
        return size + (inner * len(value) // len(items) if items else 0)
    if isinstance(value, (list, tuple, set, frozenset)):
        seq = list(value) if len(value) <= 2 * SAMPLE else [v for v, _ in zip(value, range(SAMPLE), strict=False)]
        inner = sum(size_of(v, depth) for v in seq)
        return size + (inner * len(value) // len(seq) if seq else 0)
    fields = getattr(value, "__dict__", None)
    if isinstance(fields, dict):
        size += size_of(fields, depth)
    for name in getattr(type(value), "__slots__", ()):
        size += size_of(getattr(value, name, None), depth)
    return size


@dataclass(frozen=True, slots=True)
class Stats:
    """One namespace's figures: ``entries`` kept, their ``bytes`` (estimated, B), ``hits`` and
    ``misses`` since the cache was made or cleared, and ``hit_rate`` (hits ÷ lookups; 0 with none)."""

    entries: int = 0
    bytes: int = 0
    hits: int = 0
    misses: int = 0

    @property
    def hit_rate(self) -> float:
        """Hits ÷ (hits + misses), 0.0 before any lookup."""
        looked = self.hits + self.misses
        return self.hits / looked if looked else 0.0

    def as_dict(self) -> dict[str, int | float]:
        """The figures as JSON-ready numbers (``hit_rate`` rounded to 4 places)."""
        return {"entries": self.entries, "bytes": self.bytes, "hits": self.hits, "misses": self.misses, "hit_rate": round(self.hit_rate, 4)}


@dataclass(frozen=True, slots=True)
class _Held:
    value: Any
    size: int
    on_evict: Callable[[Any], None] | None


class _Counts:
    __slots__ = ("bytes", "entries", "hits", "misses")

    def __init__(self) -> None:
        self.entries = self.bytes = self.hits = self.misses = 0


class _Lru(cachetools.LRUCache[tuple[str, Hashable], _Held]):
    """cachetools' LRU, telling its owner what it evicts (``popitem`` is its one way out when full)."""

    def __init__(self, maxsize: int, evicted: Callable[[tuple[str, Hashable], _Held], None]) -> None:
        super().__init__(maxsize, getsizeof=lambda held: held.size)
        self._evicted = evicted

    def popitem(self) -> tuple[tuple[str, Hashable], _Held]:
        key, held = super().popitem()
        self._evicted(key, held)
        return key, held


_MISSING = object()
_serials = itertools.count(1)


class Cache:
    """A least-recently-used map of ``(namespace, key)`` to values, bounded at ``max_bytes``
    (B, estimated; 0 keeps nothing), with per-namespace counts (:meth:`stats`). Thread-safe.

    A value larger than the whole bound is not kept. A value kept with ``on_evict`` has it
    called with the value when it leaves (evicted, replaced or cleared), outside the lock.
    Values are shared between callers: read them, do not change them."""

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"a cache bound is at least 0 bytes, not {max_bytes}")
        self.max_bytes = max_bytes
        self.serial = next(_serials)
        """A number no other cache of this process has (for names of things it owns outside Python)."""
        self._lock = threading.Lock()
        self._counts: dict[str, _Counts] = {}
        self._gone: list[_Held] = []  # evicted under the lock, told after it
        self._lru = _Lru(max(max_bytes, 1), self._evicted)

    def _evicted(self, key: tuple[str, Hashable], held: _Held) -> None:
        counts = self._counts[key[0]]
        counts.entries -= 1
        counts.bytes -= held.size
        if held.on_evict is not None:
            self._gone.append(held)

    def _count(self, namespace: str) -> _Counts:
        counts = self._counts.get(namespace)
        if counts is None:
            counts = self._counts[namespace] = _Counts()
        return counts

    def _tell(self) -> None:
        with self._lock:
            gone, self._gone = self._gone, []
        for held in gone:
            assert held.on_evict is not None
            held.on_evict(held.value)

    def get(self, namespace: str, key: Hashable, default: Any = None) -> Any:
        """The value kept for ``key`` in ``namespace`` (now the most recently used), counting a
        hit; else ``default``, counting a miss."""
        with self._lock:
            held = self._lru.get((namespace, key))
            counts = self._count(namespace)
            if held is None:
                counts.misses += 1
                return default
            counts.hits += 1
            return held.value

    def put(
        self, namespace: str, key: Hashable, value: object, size: int | None = None, on_evict: Callable[[Any], None] | None = None
    ) -> bool:
        """Keep ``value`` for ``key`` in ``namespace``, its size ``size`` bytes (default
        :func:`size_of`), the least recently used entries of any namespace going until it fits.
        Returns whether it was kept (not when it alone exceeds :attr:`max_bytes`)."""
        if self.max_bytes == 0:
            return False
        size = size_of(value) if size is None else size
        if size > self.max_bytes:
            return False
        held = _Held(value, size, on_evict)
        with self._lock:
            old = self._lru.pop((namespace, key), None)
            counts = self._count(namespace)
            if old is not None:
                counts.entries -= 1
                counts.bytes -= old.size
                if old.on_evict is not None and old.value is not value and old.value != value:
                    self._gone.append(old)
            self._lru[(namespace, key)] = held
            counts.entries += 1
            counts.bytes += size
        self._tell()
        return True

    def get_or_build(self, namespace: str, key: Hashable, build: Callable[[], T], size: Callable[[T], int] | None = None) -> T:
        """The value kept for ``key`` in ``namespace``, or ``build()`` kept (sized by ``size``
        of it, default :func:`size_of`) and returned. Two threads missing at once may both build."""
        found = self.get(namespace, key, _MISSING)
        if found is not _MISSING:
            return found
        value = build()
        self.put(namespace, key, value, size(value) if size is not None else None)
        return value

    def clear(self, namespace: str | None = None) -> None:
        """Forget every entry of ``namespace`` (None: of all) and reset its hit and miss counts."""
        with self._lock:
            doomed = [k for k in self._lru if namespace is None or k[0] == namespace]
            for key in doomed:
                held = self._lru.pop(key)
                if held.on_evict is not None:
                    self._gone.append(held)
            for name in [namespace] if namespace is not None else list(self._counts):
                self._counts[name] = _Counts()
        self._tell()

    def stats(self, namespace: str) -> Stats:
        """The figures of ``namespace`` (all zero for one never used)."""
        with self._lock:
            counts = self._counts.get(namespace)
            return Stats(counts.entries, counts.bytes, counts.hits, counts.misses) if counts else Stats()

    def namespaces(self) -> dict[str, Stats]:
        """Every namespace used so far and its figures, by name in alphabetical order."""
        with self._lock:
            names = sorted(self._counts)
        return {name: self.stats(name) for name in names}

    @property
    def size(self) -> int:
        """Bytes held in all (estimated, B)."""
        with self._lock:
            return int(self._lru.currsize)

    def __len__(self) -> int:
        with self._lock:
            return len(self._lru)

    def report(self) -> dict[str, Any]:
        """The operator's view: the bound, bytes and entries held in all, and each namespace's
        :meth:`Stats.as_dict`."""
        spaces = self.namespaces()
        return {
            "max_bytes": self.max_bytes,
            "bytes": sum(s.bytes for s in spaces.values()),
            "entries": sum(s.entries for s in spaces.values()),
            "namespaces": {name: s.as_dict() for name, s in spaces.items()},
        }


NO_CACHE = Cache(0)
"""The cache :func:`active` gives when none is active: it keeps nothing (every lookup misses)."""

_active: contextvars.ContextVar[Cache | None] = contextvars.ContextVar("computeatlas_cache", default=None)


def active() -> Cache:
    """The cache of the app request or CLI run in progress (:func:`use`), else :data:`NO_CACHE`."""
    found = _active.get()
    return found if found is not None else NO_CACHE  # not `or`: an empty cache is falsy (it has a length)


@contextlib.contextmanager
def use(cache: Cache) -> Iterator[Cache]:
    """Make ``cache`` the :func:`active` one inside the ``with`` block (this thread or task and
    what it starts: a request handler run in a thread pool sees it too)."""
    token = _active.set(cache)
    try:
        yield cache
    finally:
        _active.reset(token)


__all__ = ["NO_CACHE", "SAMPLE", "Cache", "Stats", "active", "size_of", "use"]
