"""Rebuild the bundled price history (data/prices/) and token prices (data/tokens/) from the
public sources in ``../shared/prices`` — every importer, one run per source, in one go.

Developer-time only (the product never reads ``../shared`` at run time):

    PYTHONPATH=$PWD .venv/bin/python scripts/bundle_prices.py ../shared/prices [--prices data/prices] [--tokens data/tokens]

The target stores are emptied first (their observations and run manifests; the README, the
rate table, the inputs and the licence files stay), then each source is imported with
``computeatlas prices import`` exactly as a user would, and each upstream licence is copied
beside the store as ``LICENSE-<Name>`` (the price dataset's notice carries every one). A run
that rejects rows (exit 1: a bad cell, named by file, line and column) is reported and the
build goes on; a source that cannot be read at all (exit 2) stops it. The summaries are
printed as JSON lines, one per run (the import report in data/prices/README.md and the
CHANGELOG is taken from them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

from computeatlas.cli import main
from computeatlas.cloud.store import Store

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bundle_opencomputeprices import select  # noqa: E402

GPUHUNT_COMMITS = {  # ../shared/prices/gpuhunt-tpu-2024-12/README.md: the file's commit dates
    "tpu_pricing-2024-06-11.json": "2024-06-11T00:00:00Z",
    "tpu_pricing-2024-12-20.json": "2024-12-20T00:00:00Z",
    "tpu_pricing-2024-12-23.json": "2024-12-23T00:00:00Z",
}
LICENCES = {  # LICENSE-<Name> beside the store: the name the rows' `via` carries
    "OpenComputePrices": "opencomputeprices-2026-03/LICENSE",
    "Cyclenerd": "cyclenerd-gcp-2026-07/LICENSE",
    "azure-pricing-radar": "azure-pricing-radar-2026-08/LICENSE",
    "ec2-capacity-blocks": "aws-capacity-blocks-2026-07/LICENSE",
    "gpuhunt": "gpuhunt-tpu-2024-12/LICENSE",
    "the-full-stack-website": "fullstack-cloud-gpus-2025-03/LICENSE",
}
TOKEN_LICENCES = {
    "genai-prices": "genai-prices-2026-08/LICENSE",
    "tokencost": "tokencost-litellm-2025-09/LICENSE-tokencost",
    "litellm": "tokencost-litellm-2025-09/LICENSE-litellm",
}


def run(argv: list[str]) -> dict[str, object]:
    """``computeatlas ARGV --json``; the summary it printed. Exit 1 (rows rejected) is
    reported; any other failure raises SystemExit."""
    printed = io.StringIO()
    code: int | str | None = 0
    with contextlib.redirect_stdout(printed):
        try:
            main([*argv, "--json"])
        except SystemExit as exc:
            code = exc.code
    if code not in (0, 1, None):
        print(printed.getvalue(), file=sys.stderr)
        raise SystemExit(f"{' '.join(argv[:3])}: exit {code}")
    summary = json.loads(printed.getvalue())
    summary["exit"] = code or 0
    summary["errors"] = summary.get("errors", [])[:5]
    return summary


def empty(store: Path) -> None:
    """Remove a store's observations and run manifests (everything an import writes)."""
    for name in ("observations", "runs", ".staging"):
        shutil.rmtree(store / name, ignore_errors=True)


def build(shared: Path, prices: Path, tokens: Path) -> list[dict[str, object]]:
    """Rebuild both stores from ``shared``; return every run's summary."""
    empty(prices)
    empty(tokens)
    p = ["--prices", str(prices)]
    out: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as folder:
        select(shared / "opencomputeprices-2026-03", Path(folder))
        out.append(run(["prices", "import", "opencomputeprices", *map(str, sorted(Path(folder).glob("*.csv"))), *p]))
    out.append(run(["prices", "import", "offers", *map(str, sorted(Path("data/offers").glob("*.csv"))), *p]))
    out.append(run(["prices", "import", "atlas", "data/prices/inputs/late-2026-hyperscalers.csv", *p]))
    out.append(run(["prices", "import", "cyclenerd-gcp", str(shared / "cyclenerd-gcp-2026-07" / "gcp_gpu_machine_prices.csv"), *p]))
    for name, when in GPUHUNT_COMMITS.items():
        out.append(run(["prices", "import", "gpuhunt-tpu", str(shared / "gpuhunt-tpu-2024-12" / name), "--collected", when, *p]))
    out.append(
        run(["prices", "import", "azure-pricing-radar", str(shared / "azure-pricing-radar-2026-08" / "azure_gpu_vm_prices.csv"), *p])
    )
    out.append(
        run(
            [
                "prices",
                "import",
                "aws-capacity-blocks",
                *map(str, sorted((shared / "aws-capacity-blocks-2026-07").glob("pricing-*.json"))),
                *p,
            ]
        )
    )
    out.append(
        run(["prices", "import", "fullstack-cloud-gpus", str(shared / "fullstack-cloud-gpus-2025-03" / "cloud-gpus-history.csv"), *p])
    )
    for name, source in LICENCES.items():
        shutil.copyfile(shared / source, prices / f"LICENSE-{name}")
    # One file per month, sorted by accelerator and time, with its monthly roll-up (the same answers).
    out += [{"compacted": c.period, "rows": c.rows, "files": c.files} for c in Store(prices).compact()]
    t = ["--tokens", str(tokens)]
    out.append(
        run(
            [
                "prices",
                "import",
                "tokens",
                *(str(shared / "opencomputeprices-2026-03" / f) for f in ("openrouter.csv", "deepinfra.csv", "novita.csv", "together.csv")),
                *t,
            ]
        )
    )
    out.append(
        run(["prices", "import", "litellm", *map(str, sorted((shared / "tokencost-litellm-2025-09").glob("model_prices-*.json"))), *t])
    )
    out.append(run(["prices", "import", "genai-prices", *map(str, sorted((shared / "genai-prices-2026-08").glob("data-*.json"))), *t]))
    for name, source in TOKEN_LICENCES.items():
        shutil.copyfile(shared / source, tokens / f"LICENSE-{name}")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shared", type=Path, help="the folder of public price sources (../shared/prices)")
    parser.add_argument("--prices", type=Path, default=Path("data/prices"))
    parser.add_argument("--tokens", type=Path, default=Path("data/tokens"))
    args = parser.parse_args()
    for summary in build(args.shared, args.prices, args.tokens):
        print(json.dumps(summary, sort_keys=True))
