"""Settings: every knob of the atlas in one object, read once from the environment.

:class:`Settings` is built by :meth:`Settings.from_env` (variables prefixed
``COMPUTEATLAS_``, e.g. ``COMPUTEATLAS_DATA``) and passed to the app, the CLI and the
static build; nothing else reads the environment. Tests build one directly:
``Settings(data=path, form_min_seconds=0)``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PREFIX = "COMPUTEATLAS_"
"""The prefix of every setting's environment variable."""

RESERVED_PREFIX = PREFIX + "TEST_"
"""Variables under this prefix belong to the test suite (e.g. ``COMPUTEATLAS_TEST_POSTGRES_URL``), not to the atlas."""


class UnknownSetting(ValueError):
    """A ``COMPUTEATLAS_*`` variable that names no setting (a misspelling is otherwise silently ignored).

    ``variable`` is the variable's name; ``nearest`` the closest setting's variable, or ``None``.
    """

    def __init__(self, variable: str, nearest: str | None) -> None:
        self.variable, self.nearest = variable, nearest
        hint = f"; did you mean {nearest}?" if nearest else "; the README's 'Settings and serving' lists them"
        super().__init__(f"{variable} names no setting{hint}")


BUNDLED_DATA = Path(__file__).resolve().parent.parent.parent / "data"
"""The bundled data folder of a source checkout (``<repo>/data``)."""


class Settings(BaseSettings):
    """Every setting, with its default; each is also ``COMPUTEATLAS_<NAME>`` in the environment.

    Raises :class:`pydantic.ValidationError` (naming the variable) for a malformed value.
    """

    model_config = SettingsConfigDict(env_prefix="COMPUTEATLAS_", frozen=True, extra="forbid")

    data: Path = Field(BUNDLED_DATA, description="the data folder (the catalog's TOML and CSV files)")
    prices: Path | None = Field(
        None,
        description="the price-observation store (a folder of date-partitioned files); default: data/prices",
    )
    var: Path = Field(Path("var"), description="folder for writable state: the SQLite ledger, the form secret")
    database_url: str = Field("", description="the ledger's SQLAlchemy URL; default: SQLite in var/")
    secret: str = Field("", description="the form-token signing secret (16+ characters); default: var/secret.key")
    public_origin: str = Field(
        "http://127.0.0.1:8000",
        description="scheme and host of the public site, for canonical links, feeds and the sitemap "
        "(never taken from a request's Host header)",
    )
    base_path: str = Field("", description="the path the site is served under, e.g. '/atlas' ('' for the root)")
    page_cache: bool = Field(True, description="cache rendered pages in memory")
    page_cache_bytes: int = Field(
        256 * 1024 * 1024,
        ge=0,
        description="the bound in bytes (estimated) of the app's one in-memory cache: rendered pages, page data, "
        "price-store answers and charts (0 keeps nothing)",
    )
    rate_limit: str = Field("10/minute;100/day", description="form posts allowed per client (the limits library's syntax)")
    rate_limit_storage: str = Field(
        "",
        description="where rate-limit counts live: empty for the ledger's database (shared by every worker and instance "
        "using it), memory:// (each process counts alone), or another limits storage URI such as redis://host:6379",
    )
    trusted_proxies: tuple[str, ...] = Field((), description="addresses or networks whose X-Forwarded-For is believed; none by default")
    form_min_seconds: float = Field(
        1.0,
        ge=0,
        description="minimum time between serving the request form and accepting it: sooner, the post is a bot's "
        "(no page renders and is filled in that fast; a person using autofill takes about two seconds)",
    )
    contact: str = Field("", description="an e-mail address for licence enquiries, shown on /data/")
    keep_alive_seconds: float = Field(
        5.0, gt=0, le=300, description="seconds an idle keep-alive connection is held open (uvicorn's timeout_keep_alive)"
    )
    max_connections: int = Field(
        1000, ge=1, description="concurrent connections per worker before new ones get a 503 (uvicorn's limit_concurrency)"
    )
    freshness_days: int = Field(
        90, ge=1, le=36_500, description="a price observation older than this is stale (history, not current); at most a century"
    )
    collection_schedule_hours: float = Field(
        6.0,
        gt=0,
        le=8_760,
        description="hours between scheduled collections (`prices collect --all`): a source whose last successful collection "
        "is older says it is overdue (/cloud/status, `prices status`)",
    )
    collection_median_factor: float = Field(
        3.0,
        gt=1,
        description="a collection whose median USD price per accelerator-hour is more than this many times (or less than one "
        "over this many times) its source's previous run's is held whole for the operator",
    )
    price_band_low: float = Field(
        0.1, gt=0, lt=1, description="a price below this times the median of its accelerator and pricing kind is held"
    )
    price_band_high: float = Field(
        10.0, gt=1, description="a price above this times the median of its accelerator and pricing kind is held"
    )
    price_band_min_observations: int = Field(
        5, ge=1, description="the band applies only where at least this many observations make the median"
    )
    price_floor_per_accelerator_hour: float = Field(
        0.02, ge=0, description="a USD price per accelerator-hour below this is held, whatever the median"
    )
    price_ceiling_per_accelerator_hour: float = Field(
        1000.0, gt=0, description="a USD price per accelerator-hour above this is held, whatever the median"
    )
    price_first_date: dt.date = Field(
        dt.date(2015, 1, 1), description="a price collected before this date is held (an importer may set its source's own FIRST_DATE)"
    )
    hours_per_month: float = Field(730.0, gt=0, description="hours in a month, for the hourly equivalent of a monthly term")
    gcp_api_key: str = Field(
        "",
        repr=False,
        description="a Google Cloud API key for the Cloud Billing Catalog collector (gcp); without it that collector is skipped. "
        "Give it in the environment, never in a file in git",
    )
    collector_urls: dict[str, str] = Field(
        default_factory=dict,
        description="base URLs that replace collectors' own, by collector name, as JSON "
        '(\'{"aws": "https://mirror.example.org"}\'): for a mirror of a price source',
    )
    collector_timeout: float = Field(60.0, gt=0, description="seconds a collector waits to connect or between two reads of a response")

    @field_validator("base_path")
    @classmethod
    def _base_path(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value and not value.startswith("/"):
            raise ValueError("base_path must start with '/' (e.g. '/atlas') or be empty")
        return value

    @field_validator("rate_limit")
    @classmethod
    def _rate_limit(cls, value: str) -> str:
        from limits import parse_many  # the form guard's own parser: what it accepts, this accepts

        try:
            parse_many(value)
        except ValueError:
            raise ValueError(
                f"{value!r} is not a rate limit; write one or more of N/second, N/minute, N/hour or N/day joined by ';' (e.g. '10/minute;100/day')"
            ) from None
        return value

    @field_validator("public_origin")
    @classmethod
    def _origin(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")) or "/" in value.split("://", 1)[1]:
            raise ValueError("public_origin must be a scheme and host, e.g. 'https://atlas.example.org'")
        return value

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """The settings from ``COMPUTEATLAS_*`` variables, with ``overrides`` (e.g. from CLI options) on top.

        Raises :class:`UnknownSetting` for a ``COMPUTEATLAS_*`` variable that names no setting
        (``COMPUTEATLAS_TEST_*`` is left to the test suite), and :class:`pydantic.ValidationError`
        for a malformed value.
        """
        cls.check_environment(os.environ)
        given: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        return cls(**given)

    @classmethod
    def check_environment(cls, environ: Mapping[str, str]) -> None:
        """Raise :class:`UnknownSetting` for the first (in name order) ``COMPUTEATLAS_*`` variable of
        ``environ`` that names no field; the variable names are compared case-insensitively, as
        pydantic-settings reads them."""
        known = sorted(name.upper() for name in cls.model_fields)
        for variable in sorted(environ):
            upper = variable.upper()
            if upper.startswith(PREFIX) and not upper.startswith(RESERVED_PREFIX) and upper.removeprefix(PREFIX) not in known:
                nearest = difflib.get_close_matches(upper.removeprefix(PREFIX), known, n=1, cutoff=0.6)
                raise UnknownSetting(variable, PREFIX + nearest[0] if nearest else None)

    @property
    def prices_dir(self) -> Path:
        """The price-observation store: :attr:`prices`, else ``prices/`` inside the data folder."""
        return self.prices if self.prices is not None else self.data / "prices"
