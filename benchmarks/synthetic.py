"""Synthetic catalogs for the benchmarks: the bundled data folder with N× the accelerators.

Shared by ``run.py``, ``compare_bench.py`` and ``build_bench.py`` (one generator, so every
benchmark grows the catalog the same way)::

    from synthetic import synthetic
    folder = synthetic(10, Path(tmp) / "data")   # 10× the accelerators

The whole bundled data folder is copied (vendors, comparisons, providers, offers, systems,
energy, claims), then every accelerator record is cloned ``factor - 1`` times under a new
id ``{id}-x{n}`` and name ``{name} x{n}``, with its aliases, part numbers and predecessor renamed to
match (``H100 SXM5 80GB x3``, ``nvidia-a100-sxm-x3``), so the clones are valid records
that the alias index, the cross-links and every scan must carry. The other records stay
as they are: the providers, systems and curated comparisons do not grow.
``factor=1`` is an exact copy of the bundled data.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from computeatlas.catalog import DEFAULT_DATA


def clone(record: dict, n: int) -> dict:
    """Accelerator ``record`` as its ``n``-th synthetic copy (new id, name, aliases, predecessor)."""
    copy = dict(record, id=f"{record['id']}-x{n}", name=f"{record['name']} x{n}")
    copy["aliases"] = [f"{alias} x{n}" for alias in record.get("aliases", [])]
    if record.get("part_numbers"):  # one part number naming two ids is a validation error
        copy["part_numbers"] = [f"{number} x{n}" for number in record["part_numbers"]]
    if record.get("predecessor"):
        copy["predecessor"] = f"{record['predecessor']}-x{n}"
    return copy


def synthetic(factor: int, folder: Path, source: Path = DEFAULT_DATA) -> Path:
    """Write to ``folder`` (which must not exist) a copy of ``source`` with ``factor``× its accelerators; return ``folder``."""
    if factor < 1:
        raise ValueError(f"factor {factor}: must be 1 or more")
    shutil.copytree(source, folder)
    accelerators = folder / "accelerators"
    for path in sorted(accelerators.glob("*.toml")):
        record = tomllib.loads(path.read_text(encoding="utf-8"))
        for n in range(1, factor):
            copy = clone(record, n)
            (accelerators / f"{copy['id']}.toml").write_text(tomli_w.dumps(copy), encoding="utf-8")
    return folder


def synthetic_parts(count: int, folder: Path, source: Path = DEFAULT_DATA) -> Path:
    """Write to ``folder`` a copy of ``source`` with exactly ``count`` accelerators: whole
    rounds of clones as in :func:`synthetic`, then clones ``-x{n}`` of a set of records that
    holds each one's predecessor chain, so that every clone's predecessor exists."""
    records = {path.stem: tomllib.loads(path.read_text(encoding="utf-8")) for path in sorted((source / "accelerators").glob("*.toml"))}
    rounds, extra = divmod(count, len(records))
    if rounds < 1:
        raise ValueError(f"count {count}: at least the {len(records)} bundled accelerators")
    synthetic(rounds, folder, source)
    chosen: list[str] = []
    for ident in records:  # take a record with its predecessors, while they fit
        chain = []
        while ident and ident in records and ident not in chosen and ident not in chain:
            chain.append(ident)
            ident = records[ident].get("predecessor")
        if len(chosen) + len(chain) <= extra:
            chosen += chain
        if len(chosen) == extra:
            break
    if len(chosen) != extra:
        raise ValueError(f"count {count}: no set of {extra} records holds its predecessors")
    for ident in chosen:
        copy = clone(records[ident], rounds)
        (folder / "accelerators" / f"{copy['id']}.toml").write_text(tomli_w.dumps(copy), encoding="utf-8")
    return folder


__all__ = ["clone", "synthetic", "synthetic_parts"]
