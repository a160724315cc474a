"""The hand-typed offers of earlier releases (``data/offers/*.csv``) as observations.

Each offer row was checked by hand against its cited page, so its ``accelerator`` is kept
as the placement (the offer row is its own sourced placement record). The variant key is
taken only from what the row's ``variant`` text states (form and memory per accelerator),
never from the accelerator record; the text itself, the original file and row are kept in
``raw_extra`` so that nothing is lost. ``seen`` (a date) becomes the collection time at
00:00 UTC. ``pricing``: on-demand → on_demand, spot → spot, reserved → reserved, or
capacity_block when the term is a Capacity Block.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import Reading, count, currency, price, rows, timestamp
from computeatlas.cloud.observations import Observation
from computeatlas.core.tabular import CellError

COLUMNS = (
    "provider",
    "accelerator",
    "variant",
    "instance_type",
    "accelerators_per_instance",
    "price_basis",
    "pricing",
    "term",
    "price_per_hour",
    "currency",
    "region",
    "seen",
    "source_url",
    "note",
)
_FORMS = (("nvl", r"\bNVL\b"), ("sxm", r"SXM\d*|\bHGX\b"), ("pcie", r"\bPCIe\b"), ("oam", r"\bOAM\b"))
_PRICING = {"on-demand": "on_demand", "spot": "spot", "reserved": "reserved"}


def stated_variant(text: str, accelerators: int) -> str:
    """The variant key the text states (``"SXM5 80GB"`` → ``sxm-80gb``), '' when it states neither
    form nor memory. Memory written "per instance" is divided by the count."""
    form = next((key for key, pattern in _FORMS if re.search(pattern, text, re.I)), None)
    found = re.search(r"(\d+(?:\.\d+)?)\s*GB\b", text)
    memory = None
    if found:
        gb = float(found.group(1)) / (accelerators if "per instance" in text.lower() else 1)
        memory = f"{gb:g}gb"
    return "-".join(p for p in (form, memory) if p)


def read(path: Path, now: dt.datetime | None = None, **_: object) -> Iterator[Reading]:
    """Observations of a legacy offers CSV."""
    now = now or dt.datetime.now(dt.UTC)

    def parse(raw: dict[str, str]) -> Observation:
        if raw["price_basis"] not in ("instance", "accelerator"):
            raise CellError("price_basis", "only instance or accelerator prices become observations", raw["price_basis"])
        if raw["pricing"] not in _PRICING:
            raise CellError("pricing", "must be one of on-demand | spot | reserved", raw["pricing"])
        n = count(raw, "accelerators_per_instance")
        if n is None:
            raise CellError("accelerators_per_instance", "required", "")
        term = raw["term"].strip()
        pricing = "capacity_block" if "capacity block" in term.lower() else _PRICING[raw["pricing"]]
        extra = {"variant_published": raw["variant"], "offers_file": path.name, "offers_row": None}
        return Observation(
            provider=raw["provider"],
            instance_type=raw["instance_type"],
            region=raw["region"].strip(),
            pricing=pricing,
            term=term,
            amount=price(raw, "price_per_hour"),
            currency=currency(raw, "currency"),
            unit="hour",
            price_basis=raw["price_basis"],
            stated_accelerators=n,
            collected=timestamp(raw, "seen", now),
            source_url=raw["source_url"],
            source_title=f"the page cited by data/offers/{path.name}",
            via=f"data/offers/{path.name}",
            note=raw["note"],
            raw_extra=json.dumps(extra),
            accelerator=raw["accelerator"],
            variant=stated_variant(raw["variant"], n),
            accelerators=n,
            billing="all_in",
        )

    for reading in rows(path, COLUMNS, parse):
        if isinstance(reading.result, Observation):
            extra = json.loads(reading.result.raw_extra)
            extra["offers_row"] = reading.line
            reading = Reading(reading.line, reading.result.model_copy(update={"raw_extra": json.dumps(extra, ensure_ascii=False)}))
        yield reading
