"""AWS EC2 Capacity Blocks for ML prices, as koyakimu/ec2-capacity-blocks-for-ml-pricing-json
scraped them from https://aws.amazon.com/ec2/capacityblocks/pricing/ (MIT licence).

One JSON file is one collection of the page::

    {"metadata": {"last_updated": "2026-07-22T07:14:56Z", "source_url": "https://aws.amazon.com/…"},
     "instance_types": {"p5.48xlarge": {"accelerator_count": 8, "pricing": [
         {"region": "US East (N. Virginia)", "region_code": "us-east-1",
          "hourly_rate_usd": 41.528, "accelerator_hourly_rate_usd": 5.191}, …]}, …}}

Each offer is one observation: pricing kind ``capacity_block`` (capacity booked ahead for a
fixed period), ``hourly_rate_usd`` USD per instance-hour, collected at
``metadata.last_updated``, ``source_url`` the page the scraper read. The page's per-accelerator
rate is kept as ``stated_per_accelerator`` and its accelerator count as
``stated_accelerators``, so the rules hold an offer whose figures disagree with each other
(``per_accelerator_mismatch``: the early GB200 rows give 10.582 per instance-hour beside 0.0
per accelerator-hour) or with our instance table (``count_mismatch``). The region is
``region_code``; where the scraper wrote ``unknown`` (Local Zones, March 2026) the region is
``unknown (<the page's region text>)``, never an invented code.

Errors: a file that is not JSON, or whose structure changed (a missing or mistyped key),
raises :class:`~computeatlas.cloud.observations.InputFailed` naming the file, the line and
the JSON path (``$.instance_types['p5.48xlarge'].pricing[0].hourly_rate_usd``); nothing of
it is stored. A price that is not a non-negative number rejects its offer with the same.
"""

from __future__ import annotations

import datetime as dt
import json
import json.decoder
import json.scanner
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from computeatlas.cloud.importers.cells import CLOCK_SKEW, Reading
from computeatlas.cloud.observations import InputFailed, Observation, PricingKind
from computeatlas.core.tabular import TableError

UNKNOWN = "unknown"
TITLE = "Amazon EC2 Capacity Blocks for ML pricing (as scraped by koyakimu/ec2-capacity-blocks-for-ml-pricing-json)"


class _Located(dict[str, Any]):
    """A JSON object with the 1-based line it starts on."""

    line: int = 1


def _load(path: Path) -> Any:
    """The JSON of ``path``, each object a :class:`_Located` (raises InputFailed for bad JSON)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFailed([TableError(str(path), 1, "(file)", f"not UTF-8 text: {exc.reason}")]) from None
    decoder = json.JSONDecoder()

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[_Located, int]:
        s, end = s_and_end
        obj, after = json.decoder.JSONObject(s_and_end, *args)  # type: ignore[attr-defined]  # json's pure-Python hooks: not in typeshed
        located = _Located(obj)
        located.line = s.count("\n", 0, end) + 1
        return located, after

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise InputFailed([TableError(str(path), exc.lineno, "(json)", f"not JSON: {exc.msg} (column {exc.colno})")]) from None


class _Shape:
    """Checks of the file's structure, each failure an TableError naming the JSON path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.errors: list[TableError] = []

    def get(self, parent: _Located, where: str, key: str, kind: type | tuple[type, ...]) -> Any:
        """``parent[key]`` when it is a ``kind``; otherwise None, with an error naming ``where.key``."""
        value = parent.get(key) if isinstance(parent, dict) else None
        if value is None or not isinstance(value, kind) or isinstance(value, bool):
            names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            found = "missing" if value is None else f"a {type(value).__name__}"
            self.errors.append(
                TableError(
                    str(self.path),
                    getattr(parent, "line", 1),
                    f"{where}.{key}",
                    f"expected a {names}, found {found}",
                    None if value is None else str(value),
                )
            )
            return None
        return value


def _time(shape: _Shape, metadata: _Located, now: dt.datetime) -> dt.datetime | None:
    text = shape.get(metadata, "$.metadata", "last_updated", str)
    if text is None:
        return None
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None or when > now + CLOCK_SKEW:
        shape.errors.append(
            TableError(
                str(shape.path),
                metadata.line,
                "$.metadata.last_updated",
                "not an ISO 8601 UTC time in the past (e.g. 2026-07-22T07:14:56Z)",
                text,
            )
        )
        return None
    return when.astimezone(dt.UTC)


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of one Capacity Blocks ``pricing.json`` collection (see the module docstring)."""
    now = now or dt.datetime.now(dt.UTC)
    data = _load(path)
    shape = _Shape(path)
    if not isinstance(data, _Located):  # every JSON object is read as one
        raise InputFailed([TableError(str(path), 1, "$", "expected an object with metadata and instance_types")])
    metadata = shape.get(data, "$", "metadata", dict)
    types = shape.get(data, "$", "instance_types", dict)
    collected = _time(shape, metadata, now) if metadata is not None else None
    url = shape.get(metadata, "$.metadata", "source_url", str) if metadata is not None else None
    if url is not None and not url.startswith(("https://", "http://")):
        shape.errors.append(TableError(str(path), metadata.line, "$.metadata.source_url", "not an http(s) URL", url))
    offers: list[tuple[str, _Located, _Located, str]] = []
    for name, info in (types or {}).items():
        where = f"$.instance_types[{name!r}]"
        if not isinstance(info, _Located):
            shape.errors.append(TableError(str(path), types.line, where, "expected an object", str(info)))
            continue
        count = shape.get(info, where, "accelerator_count", int)
        if count is not None and count < 1:
            shape.errors.append(TableError(str(path), info.line, f"{where}.accelerator_count", "not a positive whole number", str(count)))
        for i, offer in enumerate(shape.get(info, where, "pricing", list) or []):
            if not isinstance(offer, _Located):
                shape.errors.append(TableError(str(path), info.line, f"{where}.pricing[{i}]", "expected an object", str(offer)))
                continue
            for key in ("region", "region_code"):
                shape.get(offer, f"{where}.pricing[{i}]", key, str)
            offers.append((name, info, offer, f"{where}.pricing[{i}]"))
    if shape.errors:
        raise InputFailed(shape.errors)
    assert collected is not None and url is not None
    for name, info, offer, where in offers:
        yield Reading(offer.line, _observation(path, name, info, offer, where, collected, url))


def _observation(
    path: Path, name: str, info: _Located, offer: _Located, where: str, collected: dt.datetime, url: str
) -> Observation | TableError:
    amounts = []
    for key in ("hourly_rate_usd", "accelerator_hourly_rate_usd"):
        value = offer.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            return TableError(str(path), offer.line, f"{where}.{key}", "not a non-negative number (USD per hour)", str(value))
        amounts.append(float(value))
    code, text = offer["region_code"].strip(), offer["region"].strip()
    region = code if code and code != UNKNOWN else f"{UNKNOWN} ({text})"
    extra = {
        "instance_family": info.get("instance_family"),
        "accelerator_type": info.get("accelerator_type"),
        "accelerator_count": info.get("accelerator_count"),
        "region": text,
        "region_code": code,
    }
    return Observation(
        provider="aws",
        instance_type=name,
        region=region,
        pricing=PricingKind.CAPACITY_BLOCK,
        term="",
        amount=amounts[0],
        currency="USD",
        unit="hour",
        price_basis="instance",
        stated_accelerators=info["accelerator_count"],
        stated_per_accelerator=amounts[1],
        collected=collected,
        source_url=url,
        source_title=TITLE,
        via=f"ec2-capacity-blocks-for-ml-pricing-json {path.name} (MIT), collected {collected:%Y-%m-%d}",
        raw_extra=json.dumps({k: v for k, v in extra.items() if v not in (None, "")}, ensure_ascii=False, sort_keys=True),
    )


__all__ = ["read"]
