"""Every command of the CLI at 80 columns, on the bundled data: no line wider than 80 (a URL
may stand alone on its own line, whole), no docstring markup in any help, and the
machine-readable outputs (``--json``, JSON lines, CSV) parse, with numbers as JSON numbers.
``list --sort`` sorts by any column, the price included."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from computeatlas.catalog import Catalog
from computeatlas.cli import app
from tests.conftest import CliRunner, command_of

runner = CliRunner()
WIDTH = 80


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group of the click tree under ``command``, as its words."""
    found = [path]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(command_of(app))


def _runs(tmp: Path) -> dict[tuple[str, ...], list[list[str]]]:
    """Representative arguments per command (besides ``--help``), read-only on the bundled
    data; a command that writes runs into ``tmp``. Commands that change the bundled store or
    start a server are run with ``--help`` only (listed with no runs)."""
    ledger = f"sqlite:///{tmp / 'ledger.db'}"
    return {
        (): [],
        ("compare",): [["nvidia-h100-sxm", "amd-instinct-mi300x", "google-tpu-v7"], ["H200 SXM", "B200", "MI300X"]],
        ("coverage",): [[], ["--parts"]],
        ("export",): [["--format", "csv", "--out", str(tmp / "silicon.csv")]],
        ("estimate",): [["nvidia-h100-sxm", "--model", "llama-3-1-70b", "--format", "FP8", "--utilisation", "1"]],
        ("claims",): [[]],
        ("tokens",): [["llama-3-1-70b"], ["deepseek-r1"]],
        ("validate",): [[], ["--review"]],
        ("serve",): [],
        ("list",): [[], ["--sort=price"], ["--sort=-memory"]],
        ("show",): [["nvidia-h100-sxm"], ["Trn3"]],
        ("schema",): [["--out", str(tmp / "schema")]],
        ("build",): [],
        ("prices",): [["nvidia-h100-sxm"]],
        ("prices", "show"): [["amd-instinct-mi300x"], ["nvidia-h100-sxm", "--pricing", "spot"]],
        ("prices", "runs"): [[]],
        ("prices", "status"): [[]],
        ("prices", "repair"): [[]],  # without --yes it only lists
        ("prices", "compact"): [],
        ("prices", "import"): [],
        ("prices", "collect"): [],
        ("prices", "held"): [["--limit", "40"], ["--summary"]],
        ("prices", "history"): [],  # CSV: see test_machine_outputs_parse
        ("requests",): [],
        ("requests", "list"): [["--database", ledger]],
        ("requests", "export"): [["--email", "nobody@example.org", "--database", ledger]],
        ("requests", "erase"): [["--email", "nobody@example.org", "--dry-run", "--database", ledger]],
        ("requests", "purge"): [["--older-than", "400", "--dry-run", "--database", ledger]],
        ("requests", "purge-expired"): [["--dry-run", "--database", ledger]],
    }


def _too_wide(text: str) -> list[str]:
    """The lines of ``text`` wider than :data:`WIDTH`, except a URL (or a file's path) alone on its line."""
    return [line for line in text.splitlines() if len(line) > WIDTH and not re.fullmatch(r"\s*(https?://|/)\S+", line)]


def test_the_walk_covers_every_command(tmp_path: Path) -> None:
    # A new command fails here until it is given representative arguments (or none) above.
    assert sorted(_runs(tmp_path)) == sorted(COMMANDS)
    assert ("prices", "held") in COMMANDS and ("requests", "purge-expired") in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "computeatlas")
def test_every_command_fits_80_columns(words: tuple[str, ...], tmp_path: Path) -> None:
    for args in [["--help"], *_runs(tmp_path)[words]]:
        result = runner.invoke(app, [*words, *args], env={"COLUMNS": str(WIDTH)})
        shown = " ".join([*words, *args])
        assert result.exit_code == 0, f"{shown}: {result.output}"
        assert result.stdout.strip(), shown
        assert _too_wide(result.stdout) == [], shown
        if args == ["--help"]:
            # Help reads as prose: no Sphinx roles (":meth:") and no doubled backquotes.
            assert not re.search(r":(meth|func|class|mod|attr|data):|``", result.stdout), f"{shown}: {result.stdout}"


def test_urls_are_never_broken_across_lines() -> None:
    from computeatlas.catalog import load

    catalog = load(Path("data"))
    shown = runner.invoke(app, ["show", "nvidia-h100-sxm"], env={"COLUMNS": str(WIDTH)})
    tokens = set(shown.stdout.split())
    cited = {s.url for s in catalog.accelerators["nvidia-h100-sxm"].sources.values()}
    used = [url for url in cited if url in shown.stdout.replace("\n", " ")]
    assert used and all(url in tokens for url in used)
    # e.g. the MLCommons system description NVIDIA submitted: 117 characters, on a line of its own.
    assert "https://github.com/mlcommons/inference_results_v4.1/blob/main/closed/NVIDIA/systems/DGX-H100_H100-SXM-80GBx8_TRT.json" in tokens
    prices = runner.invoke(app, ["prices", "nvidia-h100-sxm"], env={"COLUMNS": str(WIDTH)})
    assert "https://raw.githubusercontent.com/datareceipts/data-receipts/main/109-gpu-pricing/vendors.json" in prices.stdout.split()


def test_tokens_prints_numbers_as_people_read_them() -> None:
    result = runner.invoke(app, ["tokens", "llama-3-1-70b"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    assert not re.search(r"\de[+-]\d", result.stdout)  # no "1.003e+04"
    # as a table or as one block per row, whichever fits: the decode rates are grouped in thousands
    decode = re.findall(r"^decode tokens/s: +([\d,.]+)$", result.stdout, re.M) or re.findall(r"\d ×\s+([\d,.]+)\s", result.stdout)
    assert decode and all(re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d+)?", d) for d in decode)
    assert any("," in d for d in decode)  # thousands separated: 10,031 tokens/s on an MI300X


def _prices_by_row(output: str) -> list[tuple[str, str]]:
    rows = []
    for line in output.replace("│", " ").splitlines():
        found = re.match(r"^ *([a-z0-9][a-z0-9-]+) .*? (none observed|not current: [\d,.]+|[\d,.]+) +\S+ *$", line)
        if found:
            rows.append((found.group(1), found.group(2)))
    return rows


def test_list_sorts_by_price_either_way_and_refuses_an_unknown_column(real_catalog: Catalog) -> None:
    up = runner.invoke(app, ["list", "--sort=price", "--wide"])
    assert up.exit_code == 0, up.output
    rows = _prices_by_row(up.stdout)
    assert len(rows) == len(real_catalog.accelerators) >= 135, up.stdout  # every part of the bundled catalog
    priced = [float(p.replace(",", "")) for _, p in rows if re.fullmatch(r"[\d,.]+", p)]
    assert len(priced) >= 5 and priced == sorted(priced)
    first_unpriced = next(i for i, (_, p) in enumerate(rows) if not re.fullmatch(r"[\d,.]+", p))
    assert first_unpriced == len(priced)  # parts without a current price come after every price
    assert rows[0][0] != "amd-instinct-mi100"  # not the alphabetical order it used to keep
    down = runner.invoke(app, ["list", "--sort=-price", "--wide"])
    priced_down = [float(p.replace(",", "")) for _, p in _prices_by_row(down.stdout) if re.fullmatch(r"[\d,.]+", p)]
    assert priced_down == sorted(priced, reverse=True)
    bad = runner.invoke(app, ["list", "--sort=cost"])
    assert bad.exit_code == 2
    assert "no column 'cost'" in bad.stderr and "price" in bad.stderr and "memory_bandwidth" in bad.stderr


def test_list_json_holds_numbers() -> None:
    result = runner.invoke(app, ["list", "--json", "--sort=price"])
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in json.loads(result.stdout)}
    mi300x = rows["amd-instinct-mi300x"]
    # AMD's MI300X: 192 GB, 5.3 TB/s, 2,614.9 dense FP8 TFLOPS, 750 W: numbers, not "2,614.9".
    assert mi300x["memory"] == {"number": 192, "unit": "GB", "state": "published", "text": "192"}
    assert mi300x["fp8"]["number"] == 2614.9 and mi300x["fp8"]["text"] == "2,614.9"
    assert mi300x["power"]["number"] == 750 and mi300x["vendor"] == "amd"
    assert mi300x["price"]["unit"] == "USD per accelerator-hour"
    priced = [r["price"]["number"] for r in rows.values() if r["price"]["number"] is not None]
    assert priced and all(isinstance(p, float) for p in priced)
    assert [r["price"]["number"] for r in json.loads(result.stdout)][: len(priced)] == sorted(priced)
    assert rows["amd-instinct-mi100"]["fp8"] == {"number": None, "unit": "TFLOPS", "state": "not_applicable", "text": "not applicable"}


def test_held_json_is_json_lines() -> None:
    result = runner.invoke(app, ["prices", "held", "--json", "--limit", "3"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    rows = [json.loads(line) for line in lines]
    assert all(isinstance(r["amount"], int | float) and r["status"] == "held" and r["rules"] for r in rows)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.*", r["collected"]) for r in rows)


def test_machine_outputs_parse(tmp_path: Path) -> None:
    for args in (
        ["show", "nvidia-h100-sxm", "--json"],
        ["compare", "nvidia-h100-sxm", "amd-instinct-mi300x", "--json"],
        ["coverage", "--json"],
    ):
        result = runner.invoke(app, args, env={"COLUMNS": str(WIDTH)})
        assert result.exit_code == 0 and isinstance(json.loads(result.stdout), dict), args
    history = runner.invoke(app, ["prices", "history", "nvidia-h100-sxm", "--provider", "lambda"])
    table = list(csv.DictReader(io.StringIO(history.stdout)))
    assert history.exit_code == 0 and table and {r["provider"] for r in table} == {"lambda"}
    assert all(float(r["per_accelerator_hour"]) > 0 for r in table)
