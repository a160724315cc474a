"""The CLI: a thin layer over the library, with help on every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from computeatlas.cli import app

runner = CliRunner()


@pytest.mark.parametrize("command", ["validate", "serve", "show", "list", "schema"])
def test_every_command_has_help(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_show_prints_states_and_sources(data_dir: Path) -> None:
    result = runner.invoke(app, ["show", "acme-a2", "--data", str(data_dir)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "not published" in result.output
    assert "144 GB HBM3e" in result.output
    assert "https://acme.example/sheet.pdf" in result.output


def test_show_json_is_the_api_view(data_dir: Path) -> None:
    result = runner.invoke(app, ["show", "acme-a1", "--json", "--data", str(data_dir)])
    body = json.loads(result.output)
    assert body["id"] == "acme-a1" and body["specs"][0]["key"] == "memory"


def test_show_unknown_id_suggests(data_dir: Path) -> None:
    result = runner.invoke(app, ["show", "acme-a3", "--data", str(data_dir)])
    assert result.exit_code == 2
    assert "No accelerator with id 'acme-a3'" in result.output and "acme-a1" in result.output


def test_list_filters_like_the_web_table(data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--json", "--sort=-power", "--max", "memory=100 GB", "--data", str(data_dir)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["id"] for r in rows] == ["acme-a1", "globex-g1"]
    assert rows[0]["power"] == "700"


def test_list_bad_filter_is_a_clear_error(data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--min", "memory=5 W", "--data", str(data_dir)])
    assert result.exit_code == 2
    assert "query parameter 'memory_min': '5 W' is not a memory size" in result.output
    result = runner.invoke(app, ["list", "--min", "memory", "--data", str(data_dir)])
    assert result.exit_code == 2 and "COLUMN=VALUE" in result.output
