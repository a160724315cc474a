"""Full Stack Deep Learning's hand-kept cloud GPU table (MIT licence, © 2023 Full Stack Deep
Learning, LLC): ``docs/cloud-gpus/cloud-gpus.csv`` of the-full-stack/the-full-stack-website.

Columns read: ``Cloud, GPU Type, GPU Arch, GPUs, GPU RAM, vCPUs, RAM, On-demand, Per-GPU,
Spot, Name``. ``On-demand`` and ``Spot`` are instance prices and ``Per-GPU`` a per-GPU
figure, all USD per hour. Two shapes of file:

- the history (``cloud-gpus-history.csv``): every version of the table, each row prefixed
  with ``snapshot_commit`` (40 hex digits) and ``commit_date_utc`` (ISO 8601 UTC);
- one version as upstream publishes it (no date columns): the caller gives ``collected``
  (the version's commit date, UTC) and may give ``commit`` (its SHA).

Dates: a commit date is when someone edited the table, not when a price was observed (an
untouched row may be months older), so ``collected`` is the commit date and ``via`` says
"published by YYYY-MM-DD (commit abc1234)". A row repeated unchanged by a later version is
stored once per version: it is what the table published at that date (the run drops only
identical keys, so importing the history twice adds nothing).

Names: the provider's instance type is ``Name`` where given. Where it is empty the name is
built from the row's own fields, ``<GPUs>x <GPU Type>, <vCPUs> vCPU, <RAM> GB RAM``
(``1x H100 (80 GB), 26 vCPU, 200 GB RAM``: the vCPUs and RAM tell a provider's sizes apart,
which its documentation lists), and placed, like every row, only through our instance
table: the ``GPU Type`` text (written several ways: ``H100 (80 GB)``, ``H100 HGX (80GB)``)
never places a row. Google Cloud's N1 machine types carry no GPU of their own (the table
lists one ``n1-highmem-8`` with a V100, a P100, a K80 or a T4 attached), so those rows are
named ``<Name> + <GPUs>x <GPU Type>``.

Figures: ``GPUs`` is the stated accelerator count (``count_mismatch`` checks it),
``Per-GPU`` the stated per-accelerator price (``per_accelerator_mismatch`` checks it),
``GPU RAM`` the stated memory per instance (GB) where it is a plain number (the table
sometimes gives one GPU's memory for a multi-GPU row; ``memory_mismatch`` holds those).
``vCPUs`` and ``RAM`` are free text for some providers (``20-26``) and are only kept, as
text, in ``raw_extra``. A row with neither an ``On-demand`` nor a ``Spot`` price is rejected
(the ``Per-GPU`` figure alone is not used as a price); a copy of the header inside the
data is skipped.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path

from computeatlas.cloud.importers.cells import CLOCK_SKEW, Reading, Skip, count, price, provider_id, rows, timestamp
from computeatlas.cloud.observations import InputFailed, Observation
from computeatlas.core.tabular import CellError, TableError, read_table

COLUMNS = ("Cloud", "GPU Type", "GPU Arch", "GPUs", "GPU RAM", "vCPUs", "RAM", "On-demand", "Per-GPU", "Spot", "Name")
"""The upstream table's columns (every version since 2023-09-27)."""
HISTORY_COLUMNS = ("snapshot_commit", "commit_date_utc")
"""The columns the history file puts before them."""
REPOSITORY = "https://github.com/the-full-stack/the-full-stack-website"
TABLE_PATH = "docs/cloud-gpus/cloud-gpus.csv"
_SHA = re.compile(r"[0-9a-f]{40}")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _header(path: Path) -> list[str]:
    """The first line's column names, read by :func:`~computeatlas.core.tabular.read_table`
    (an unreadable file is left for :func:`rows` to refuse)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            first = handle.readline()
        return [c.strip() for c in read_table(path, text=first).header]
    except (OSError, UnicodeDecodeError, TableError):
        return []


def _name(raw: dict[str, str], provider: str) -> str:
    gpu, n = raw["GPU Type"].strip(), raw["GPUs"].strip()
    name = raw["Name"].strip()
    if not name:
        if not gpu:
            raise CellError("Name", "no instance name and no GPU Type to name the row by", "")
        return f"{n}x {gpu}, {raw['vCPUs'].strip()} vCPU, {raw['RAM'].strip()} GB RAM"
    if provider == "google-cloud" and name.startswith("n1-"):
        return f"{name} + {n}x {gpu}"
    return name


def read(
    path: Path, collected: dt.datetime | None = None, commit: str | None = None, now: dt.datetime | None = None, **_: object
) -> Iterator[Reading]:
    """Observations of one file of the table: its history (dated by the commit columns) or
    one version (dated by ``collected``, UTC, not in the future; ``commit`` its SHA, optional).

    Yields on-demand and spot observations (USD per instance-hour). Raises
    :class:`InputFailed` for a missing column, or a single version without ``collected``.
    """
    now = now or dt.datetime.now(dt.UTC)
    history = "snapshot_commit" in _header(path)
    if not history:
        if collected is None:
            raise InputFailed(
                [
                    TableError(
                        str(path),
                        1,
                        "(file)",
                        "one version of the Full Stack table carries no date: give its commit date as the collection time (--collected)",
                    )
                ]
            )
        if collected.tzinfo is None or collected > now + CLOCK_SKEW:
            raise InputFailed([TableError(str(path), 1, "(file)", "the collection time must be UTC and not in the future", str(collected))])
        if commit is not None and not _SHA.fullmatch(commit):
            raise InputFailed([TableError(str(path), 1, "(file)", "a commit is 40 hex digits", commit)])

    def parse(raw: dict[str, str]) -> list[Observation | Skip]:
        if all(raw[c].strip().replace("-", " ") == c.replace("-", " ") for c in COLUMNS):
            return [Skip("a copy of the header row inside the data")]
        sha, when = commit, collected
        if history:
            sha = raw["snapshot_commit"].strip()
            if not _SHA.fullmatch(sha):
                raise CellError("snapshot_commit", "not a commit SHA (40 hex digits)", sha)
            when = timestamp(raw, "commit_date_utc", now)
        if when is None:  # unreachable: a single version without a time is refused above
            raise CellError("(file)", "no collection time", None)
        provider = provider_id(raw["Cloud"])
        if provider == "unknown":
            raise CellError("Cloud", "no cloud named", raw["Cloud"])
        n = count(raw, "GPUs")
        if n is None:
            raise CellError("GPUs", "the GPU count is required", "")
        memory = raw["GPU RAM"].strip()
        short = f" (commit {sha[:7]})" if sha else ""
        extra = {
            k: raw[k].strip()
            for k in ("Cloud", "GPU Type", "GPU Arch", "GPUs", "GPU RAM", "vCPUs", "RAM", "Per-GPU", "Name")
            if raw[k].strip()
        }
        if sha:
            extra["snapshot_commit"] = sha
        common = dict(
            provider=provider,
            instance_type=_name(raw, provider),
            region="",
            term="",
            currency="USD",
            unit="hour",
            price_basis="instance",
            stated_accelerators=n,
            stated_memory_gb=float(memory) if _NUMBER.fullmatch(memory) else None,
            collected=when,
            source_url=f"{REPOSITORY}/blob/{sha or 'main'}/{TABLE_PATH}",
            source_title=f"Full Stack Deep Learning cloud GPU table ({TABLE_PATH}){short}",
            via=f"the-full-stack-website {path.name} (Full Stack Deep Learning, MIT), published by {when:%Y-%m-%d}{short}",
            raw_extra=json.dumps(extra, ensure_ascii=False, sort_keys=True),
        )
        on_demand, spot = price(raw, "On-demand", required=False), price(raw, "Spot", required=False)
        per_gpu = price(raw, "Per-GPU", required=False)  # stated beside the on-demand price only
        if on_demand is None and spot is None:
            raise CellError("On-demand", "no instance price (On-demand and Spot are empty; Per-GPU alone is not used)", "")
        out: list[Observation | Skip] = []
        if on_demand is not None:
            out.append(Observation(pricing="on_demand", amount=on_demand, stated_per_accelerator=per_gpu, **common))
        if spot is not None:
            out.append(Observation(pricing="spot", amount=spot, **common))
        return out

    yield from rows(path, (*HISTORY_COLUMNS, *COLUMNS) if history else COLUMNS, parse)


__all__ = ["COLUMNS", "HISTORY_COLUMNS", "read"]
