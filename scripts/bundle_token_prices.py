"""Build the bundled market prices per million tokens (data/tokens/) from the OpenComputePrices snapshot.

Developer-time only (the product never reads the snapshot at run time):

    PYTHONPATH=$PWD python scripts/bundle_token_prices.py ../shared/prices/opencomputeprices-2026-03 [data/tokens]

Imports the per-token rows of openrouter.csv (three days), deepinfra.csv, novita.csv and
together.csv as one run, placing product names through the model records' alias table
(data/models/), and prints the summary (the report in data/tokens/README.md is taken from it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from computeatlas.core.catalog import load
from computeatlas.economics.token_import import import_token_files
from computeatlas.economics.token_prices import token_store

FILES = ("openrouter.csv", "deepinfra.csv", "novita.csv", "together.csv")

if __name__ == "__main__":
    source = Path(sys.argv[1])
    target = Path(sys.argv[2] if len(sys.argv) > 2 else "data/tokens")
    summary = import_token_files([source / name for name in FILES], token_store(target), load().models.values())
    print(json.dumps({"run": summary.run, **summary.counts(), "errors": [str(e) for e in summary.errors[:20]]}, indent=1))
