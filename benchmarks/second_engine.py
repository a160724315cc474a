"""A second engine for the current prices, run by hand: the store read with ``pyarrow.dataset``
only (no DuckDB, no computeatlas store code), compared with the product's answer.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/second_engine.py [STORE]     # default data/prices

What it reads: the current table when the newest run manifest in ``runs/`` names one (key
``"current"``); otherwise the history, every Parquet file of a committed run
(``observations/date=…/part-<run>-<n>.parquet`` whose run has a manifest) and every compacted
file (``compacted/**/*.parquet``; a row in both a run file and a compacted one is the same row
twice and counts once). From the history, the newest decision per observation key (provider,
instance_type, region, pricing, term, collected): rows with ``conflict`` in ``rules`` left
out, the highest ``run`` wins and within one run an accepted row before a held one (then the
lower amount); of those, the accepted rows collected up to now; of each offer (provider,
instance_type, region, pricing, term) the newest. The product's answer is
``computeatlas.cloud.store.Store(root).newest(None, now)``.

Prints, per accelerator, the offers both engines list that agree (collected, amount,
currency, price per accelerator-hour, run) and those that do not or that only one lists;
exits 1 on any mismatch, 2 when the store folder does not exist.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

OFFER = ("provider", "instance_type", "region", "pricing", "term")
KEY = (*OFFER, "collected")
COMPARED = ("accelerator", "collected", "amount", "currency", "per_accelerator_hour", "run")
COLUMNS = (*KEY, "accelerator", "amount", "currency", "per_accelerator_hour", "run", "status", "rules")


def current_table(root: Path) -> Path | None:
    """The file the newest manifest in ``runs/`` names under ``"current"`` (relative to the
    store folder), or None; raises ``FileNotFoundError`` when it names a file that is not there."""
    manifests = sorted((root / "runs").glob("*.json"))
    if not manifests:
        return None
    named = json.loads(manifests[-1].read_text(encoding="utf-8")).get("current")
    if not named:
        return None
    path = Path(named) if Path(named).is_absolute() else root / named
    if not path.is_file() and (root / "current" / Path(named).name).is_file():
        path = root / "current" / Path(named).name
    if not path.is_file():
        raise FileNotFoundError(f"{manifests[-1]} names the current table {named}, which is not in {root}")
    return path


def history_files(root: Path) -> list[Path]:
    """The committed runs' Parquet files and the compacted ones."""
    committed = {p.stem for p in (root / "runs").glob("*.json")}
    runs = [
        p for p in sorted((root / "observations").glob("date=*/part-*.parquet")) if p.stem[len("part-") :].rsplit("-", 1)[0] in committed
    ]
    return runs + sorted((root / "compacted").glob("**/*.parquet"))


def read(files: list[Path], columns: tuple[str, ...]) -> pa.Table:
    """``columns`` of ``files`` as one table (schemas unified; a column a file lacks is null there)."""
    schema = pa.unify_schemas([ds.dataset(f, format="parquet").schema for f in files], promote_options="permissive")
    present = [c for c in columns if c in schema.names]
    return ds.dataset([str(f) for f in files], schema=schema, format="parquet").to_table(columns=present)


def first_of(table: pa.Table, by: tuple[str, ...], order: list[tuple[str, str]]) -> pa.Table:
    """The first row of each group of ``by`` once ``table`` is sorted by ``order``."""
    table = table.take(pc.sort_indices(table, sort_keys=order))
    table = table.append_column("_pos", pa.array(range(table.num_rows), pa.int64()))
    chosen = table.group_by(list(by)).aggregate([("_pos", "min")]).column("_pos_min")
    return table.take(chosen.take(pc.sort_indices(chosen))).drop_columns(["_pos"])


def newest_from_history(files: list[Path], now: dt.datetime) -> pa.Table:
    """The newest accepted row of each offer collected up to ``now``, from the newest decision per key."""
    table = read(files, COLUMNS)
    rules = table.column("rules").combine_chunks()
    conflicted = pc.list_parent_indices(rules).filter(pc.equal(pc.list_flatten(rules), "conflict"))
    keep = pc.invert(pc.is_in(pa.array(range(table.num_rows), pa.int64()), value_set=pc.unique(conflicted).cast(pa.int64())))
    table = table.filter(keep)
    table = table.append_column("_held", pc.not_equal(table.column("status"), "accepted"))
    decided = first_of(table, KEY, [("run", "descending"), ("_held", "ascending"), ("amount", "ascending")])
    accepted = decided.filter(
        pc.and_(
            pc.equal(decided.column("status"), "accepted"),
            pc.less_equal(decided.column("collected"), pa.scalar(now, pa.timestamp("us", "UTC"))),
        )
    )
    return first_of(accepted, OFFER, [("collected", "descending")])


def _row(row: dict[str, Any]) -> tuple[object, ...]:
    values = []
    for name in COMPARED:
        value = row.get(name)
        values.append(value.astimezone(dt.UTC) if isinstance(value, dt.datetime) else value)
    return tuple(values)


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "data/prices")
    if not root.is_dir():
        print(f"no store folder at {root}", file=sys.stderr)
        return 2
    now = dt.datetime.now(dt.UTC)
    table = current_table(root)
    if table is not None:
        ours = read([table], COLUMNS)
        ours = ours.filter(pc.less_equal(ours.column("collected"), pa.scalar(now, pa.timestamp("us", "UTC"))))
        print(f"second engine: the current table {table.relative_to(root)} ({ours.num_rows:,} offers)")
    else:
        files = history_files(root)
        ours = newest_from_history(files, now) if files else pa.table({c: [] for c in COLUMNS})
        print(f"second engine: no current table; the history's {len(files):,} files ({ours.num_rows:,} offers)")
    mine = {tuple(r[c] for c in OFFER): _row(r) for r in ours.to_pylist()}

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from computeatlas.cloud.store import Store  # the product, only to compare with

    product = {tuple(r[c] for c in OFFER): _row(r) for r in Store(root).newest(None, now)}
    matches: Counter[str] = Counter()
    mismatches: list[tuple[str, tuple[object, ...], object, object]] = []
    for offer in sorted(set(mine) | set(product), key=str):
        a, b = mine.get(offer), product.get(offer)
        part = str((a or b or ("?",))[0])
        if a == b:
            matches[part] += 1
        else:
            mismatches.append((part, offer, a, b))
    wrong = Counter(part for part, *_ in mismatches)
    print("| accelerator | offers that match | mismatches |\n|---|---|---|")
    for part in sorted(set(matches) | set(wrong)):
        print(f"| {part} | {matches[part]:,} | {wrong[part]:,} |")
    for part, offer, a, b in mismatches[:20]:
        print(f"MISMATCH {part} {offer}: second engine {a} / product {b}")
    print(
        f"{sum(matches.values()):,} offers match, {len(mismatches):,} mismatch ({len(mine):,} listed by the second engine, "
        f"{len(product):,} by the product)"
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
