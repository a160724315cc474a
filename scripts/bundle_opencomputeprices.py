"""Build the bundled price history (data/prices/) from the OpenComputePrices snapshot.

Developer-time only (the product never reads the snapshot at run time):

    PYTHONPATH=$PWD python scripts/bundle_opencomputeprices.py /path/to/opencomputeprices-2026-03

1. selects the rows whose collector GPU name is a part the catalog has (H100, H200, A100,
   B200, B300, GB200, L4, L40S, MI300X/MI325X/MI355X, Inferentia2, Trainium, Gaudi 2/3,
   TPU v4/v5e/v5p/v6e). The collector's name only *selects* what to bundle; placement is
   decided by our instance table, and a row the table lacks is held as unplaced;
2. writes the selection to a temporary folder and imports it with
   ``computeatlas prices import opencomputeprices`` into ``--prices`` (default data/prices),
   together with today's hand-typed offers (``data/offers/*.csv``) as a second run;
3. prints both summaries (the import report in changes/prices.md is taken from them).
"""

from __future__ import annotations

import csv
import re
import sys
import tempfile
from pathlib import Path

from computeatlas.cli import main

CATALOG_GPUS = re.compile(
    r"^(H100|H200|A100|B200|B300|GB200|L4|L40S|MI300X|MI325X|MI355X|Inferentia2?|Trainium\d?|gaudi2|Gaudi2|Gaudi 3|Gaudi3"
    r"|tpu-v3-\d+|tpu-v4-\d+|tpu-v5litepod-\d+|tpu-v5p-\d+|tpu-v6e-\d+)$"
)


def select(source: Path, target: Path) -> int:
    """Copy the rows of every CSV in ``source`` whose gpu_name is a catalog part; return the count."""
    kept = 0
    for path in sorted(source.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            rows = [r for r in reader if CATALOG_GPUS.match((r.get("gpu_name") or "").strip())]
        if rows:
            with (target / path.name).open("w", encoding="utf-8", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=reader.fieldnames or [], lineterminator="\n")
                writer.writeheader()
                writer.writerows(rows)
            kept += len(rows)
    return kept


if __name__ == "__main__":
    source = Path(sys.argv[1])
    prices = sys.argv[2] if len(sys.argv) > 2 else "data/prices"
    with tempfile.TemporaryDirectory() as folder:
        print(f"selected {select(source, Path(folder))} rows of catalog parts", file=sys.stderr)
        files = [str(p) for p in sorted(Path(folder).glob("*.csv"))]
        try:
            main(["prices", "import", "opencomputeprices", *files, "--prices", prices])
        except SystemExit as exc:
            if exc.code:
                raise
    try:
        main(["prices", "import", "offers", *map(str, sorted(Path("data/offers").glob("*.csv"))), "--prices", prices])
    except SystemExit as exc:
        if exc.code:
            raise
