"""The one interface of a price collector: a class per public price source.

Modelled on dstack's gpuhunt ``providers/base.py`` (a provider has a ``NAME`` and one
``get()``): a :class:`Collector` has a :attr:`~Collector.name` (``aws``, ``skypilot-lambda``),
what it :attr:`~Collector.reads` (the documented URLs), what it :attr:`~Collector.needs`
(settings such as an API key; without them :meth:`Collector.missing` says why it is skipped)
and one :meth:`Collector.collect` turning the source's own response into
:class:`~computeatlas.cloud.observations.Observation` readings for the import path
(:func:`computeatlas.cloud.runs.import_readings`: instance table, integrity rules, one atomic run).

Every collector's base URL is a constructor argument (a mirror, or a loopback server in the
tests); a next-page link the source returns is followed on that base URL's scheme and host,
so a mirror serves every page and no link leads the collector elsewhere.

Bounds: at most :attr:`Collector.max_pages` requests per collection and at most
:attr:`Collector.max_rows` source rows read (:data:`MAX_ROWS` unless a collector sets its own);
past the bound the collection stops, keeps what it read and says so in
:attr:`Collected.warnings`. Nothing is read into memory whole where the source is a file
(AWS, SkyPilot): it is streamed.

Errors: a response that is not what the source documents (an HTTP error status after the
retries, a transport failure, HTML instead of JSON, a missing field, a price as text, a body
cut short) raises :class:`CollectorError` naming the source, the URL and the field; the
caller imports nothing of that collection.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar
from urllib.parse import urlsplit, urlunsplit

from computeatlas.cloud.instances import InstanceType
from computeatlas.cloud.observations import Observation

T = TypeVar("T")

if TYPE_CHECKING:
    import httpx  # imported where it is used: `computeatlas serve` loads these modules and never collects

MAX_ROWS = 1_000_000
"""The default bound on source rows one collection reads (an API's items, a file's lines)."""

MAX_PAGES = 1000
"""The default bound on requests of one collection (pages followed, files read)."""

SECRET = re.compile(r"([?&](?:key|api_key)=)[^&\s]*")
"""An API key in a URL's query, never shown in a message."""

Progress = Callable[[int], None]
"""Told the number of source rows read since it was last called."""


class CollectorError(Exception):
    """A source's response is not what it documents, or could not be read.

    ``source`` is the collector's name, ``url`` the request, ``field`` the field or column at
    fault ('' when the whole response is); the message names all three.
    """

    def __init__(self, source: str, url: str, problem: str, field: str = "") -> None:
        self.source, self.url, self.field, self.problem = source, url, field, problem
        where = f" (field {field!r})" if field else ""
        super().__init__(f"{source}: {url}{where}: {problem}")


@dataclass
class Collected:
    """What one collection read: the readings, the rows skipped (counted by reason), how many
    source rows were read and how many requests made, and warnings (a bound reached)."""

    observations: list[Observation] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    rows_read: int = 0
    pages: int = 0
    warnings: list[str] = field(default_factory=list)

    def skip(self, reason: str, n: int = 1) -> None:
        """Count ``n`` skipped rows under ``reason``."""
        self.skipped[reason] = self.skipped.get(reason, 0) + n


class Collector(ABC):
    """One public price source. Subclasses set the class attributes and :meth:`collect`.

    ``base_url`` (default :attr:`BASE_URL`) is where the source is asked (scheme and host,
    optionally a path prefix, no trailing slash); ``settings`` are the values of
    :attr:`needs` (e.g. ``{"gcp_api_key": "…"}``); ``now`` the clock of the collection times
    (UTC). ``max_rows`` and ``max_pages`` override the bounds. ``instance_types`` are the
    provider's instance types in our instance table, for a source that is asked (or filtered)
    per instance type (Azure, AWS).
    """

    name: ClassVar[str]
    """The collector's name (:data:`computeatlas.cloud.collection_log.SOURCE_NAME`)."""
    provider: ClassVar[str]
    """Our provider id of the prices it reads."""
    title: ClassVar[str]
    """The source's own title, as each observation's ``source_title``."""
    reads: ClassVar[tuple[str, ...]]
    """The documented URLs (or URL patterns) it reads."""
    needs: ClassVar[tuple[str, ...]] = ()
    """Names of the settings it cannot run without (e.g. ``gcp_api_key``)."""
    BASE_URL: ClassVar[str]
    """The source's own base URL."""
    MAX_ROWS: ClassVar[int] = MAX_ROWS
    MAX_PAGES: ClassVar[int] = MAX_PAGES

    def __init__(
        self,
        base_url: str | None = None,
        settings: Mapping[str, str] | None = None,
        now: Callable[[], dt.datetime] | None = None,
        max_rows: int | None = None,
        max_pages: int | None = None,
        instance_types: Iterable[str] = (),
    ) -> None:
        self.instance_types = frozenset(instance_types)
        self.base_url = (base_url or self.BASE_URL).rstrip("/")
        self.settings = dict(settings or {})
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.max_rows = self.MAX_ROWS if max_rows is None else max_rows
        self.max_pages = self.MAX_PAGES if max_pages is None else max_pages

    @classmethod
    def table_options(cls, rows: Iterable[InstanceType]) -> dict[str, Any]:
        """Constructor arguments a collector takes from its provider's instance-table ``rows``
        beyond their names (e.g. the machines Google bills in parts); none by default."""
        return {}

    def missing(self) -> str | None:
        """Why the collector cannot run (a setting in :attr:`needs` is not set), or None."""
        unset = [n for n in self.needs if not self.settings.get(n)]
        if not unset:
            return None
        names = ", ".join(f"COMPUTEATLAS_{n.upper()}" for n in unset)
        return f"needs the setting {names}, which is not set; skipped"

    @abstractmethod
    def collect(self, client: httpx.Client, progress: Progress | None = None) -> Collected:
        """Read the source through ``client`` (:func:`computeatlas.cloud.collectors.http.client`).

        Raises :class:`CollectorError` for a response the source does not document."""

    # -- helpers for subclasses ------------------------------------------------------------

    def error(self, url: str, problem: str, field: str = "") -> CollectorError:
        """A :class:`CollectorError` of this collector (an API key in the URL shown as ``<key>``)."""
        return CollectorError(self.name, SECRET.sub(r"\1<key>", url), SECRET.sub(r"\1<key>", problem), field)

    def on_base(self, url: str) -> str:
        """``url`` (absolute, or a path) moved onto :attr:`base_url`'s scheme and host."""
        base, got = urlsplit(self.base_url), urlsplit(url)
        path = got.path if got.netloc else url.split("?", 1)[0]
        query = got.query if got.netloc else (url.split("?", 1)[1] if "?" in url else "")
        return urlunsplit((base.scheme, base.netloc, path, query, ""))

    def get(self, client: httpx.Client, url: str, params: Mapping[str, str] | None = None) -> httpx.Response:
        """GET ``url`` (read whole); a transport failure or a status other than 200 is a :class:`CollectorError`."""
        import httpx

        try:
            response = client.get(url, params=params)
        except httpx.TimeoutException as exc:
            raise self.error(url, f"timed out ({type(exc).__name__})") from None
        except httpx.HTTPError as exc:
            raise self.error(url, f"{type(exc).__name__}: {exc or 'the connection failed'}") from None
        if response.status_code != 200:
            raise self.error(str(response.url), f"HTTP {response.status_code} {response.reason_phrase}")
        return response

    def get_json(self, client: httpx.Client, url: str, params: Mapping[str, str] | None = None) -> tuple[str, Any]:
        """GET ``url`` and parse its JSON: the URL asked (with the query) and the body.

        HTML or another non-JSON body is a :class:`CollectorError` saying what came instead."""
        response = self.get(client, url, params)
        asked = str(response.url)
        try:
            return asked, response.json()
        except ValueError:
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            start = response.text[:40].strip().replace("\n", " ")
            raise self.error(asked, f"not JSON ({kind}, starting {start!r})") from None

    def need(self, item: Mapping[str, Any] | Any, key: str, kind: type | tuple[type, ...], url: str, where: str = "") -> Any:
        """``item[key]``, which must be of ``kind``; else a :class:`CollectorError` naming the field."""
        name = f"{where}.{key}" if where else key
        if not isinstance(item, Mapping):
            raise self.error(url, f"expected an object, got {type(item).__name__}", where or key)
        if key not in item:
            raise self.error(url, "missing", name)
        value = item[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _kinds(kind)):
            raise self.error(url, f"expected {_kind_words(kind)}, got {type(value).__name__} {value!r:.40}", name)
        return value

    def price(self, value: Any, url: str, field: str) -> float:
        """A published price: a JSON number (never text, never a boolean), finite and not negative."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(url, f"a price must be a number, got {type(value).__name__} {value!r:.40}", field)
        if not math.isfinite(value) or value < 0:
            raise self.error(url, f"a price must be finite and not negative, got {value!r}", field)
        return float(value)

    def bounded(self, out: Collected, url: str) -> bool:
        """Whether :attr:`max_rows` is reached; the first time, a warning naming the bound and the URL."""
        if out.rows_read < self.max_rows:
            return False
        if not any("row bound" in w for w in out.warnings):
            out.warnings.append(f"{self.name}: stopped at the row bound ({self.max_rows} rows read) at {url}; the rest was not read")
        return True

    def counted(self, out: Collected, items: Iterable[T], url: str) -> Iterator[tuple[int, T]]:
        """Each of ``items`` with its index, counted in ``out.rows_read``, until :attr:`max_rows`
        is reached (:meth:`bounded` warns once, naming ``url``)."""
        for n, item in enumerate(items):
            if self.bounded(out, url):
                return
            out.rows_read += 1
            yield n, item

    def page(self, out: Collected, url: str) -> None:
        """Count one request; past :attr:`max_pages` a :class:`CollectorError` (a next link that never ends)."""
        if out.pages >= self.max_pages:
            raise self.error(url, f"more than {self.max_pages} requests; stopped (a next-page link that never ends?)")
        out.pages += 1


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_words(kind: type | tuple[type, ...]) -> str:
    words = {str: "text", int: "a number", float: "a number", list: "a list", dict: "an object", bool: "true or false"}
    return " or ".join(dict.fromkeys(words.get(k, k.__name__) for k in _kinds(kind)))


__all__ = ["MAX_PAGES", "MAX_ROWS", "SECRET", "Collected", "Collector", "CollectorError", "Progress"]
