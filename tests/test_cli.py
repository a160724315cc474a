"""The CLI: a thin layer over the library, with help on every command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from computeatlas.cli import app
from tests.conftest import CliRunner
from tests.serving import free_port

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
    assert rows[0]["power"] == {"number": 700, "unit": "W", "state": "published", "text": "700"}  # a JSON number, with its text


def test_list_bad_filter_is_a_clear_error(data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--min", "memory=5 W", "--data", str(data_dir)])
    assert result.exit_code == 2
    assert "--min memory: '5 W' is not a memory size" in result.output and "memory_min" not in result.output
    result = runner.invoke(app, ["list", "--min", "memory", "--data", str(data_dir)])
    assert result.exit_code == 2 and "COLUMN=VALUE" in result.output


# --- bad output paths, serve's start-up check, option names in messages (tester findings) ---

PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not (PROC / "self").exists(), reason="needs Linux /proc (a folder nobody can create files in)")


def test_an_os_error_from_any_command_is_one_line_naming_the_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import computeatlas.publish.schema

    def refuse(out_dir: Path) -> list[Path]:
        raise PermissionError(13, "Permission denied", str(out_dir / "accelerator.schema.json"))

    monkeypatch.setattr(computeatlas.publish.schema, "write_schemas", refuse)
    result = runner.invoke(app, ["schema", "--out", str(tmp_path / "s")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.stderr == f"Error: cannot use {tmp_path / 's' / 'accelerator.schema.json'}: Permission denied\n"


def test_main_turns_an_os_error_into_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from computeatlas import cli

    def boom(*args: object, **kwargs: object) -> None:
        raise FileNotFoundError(2, "No such file or directory", "/nowhere/x")

    monkeypatch.setattr(cli, "app", boom)  # an OSError raised outside any command
    with pytest.raises(SystemExit) as exited:
        cli.main(["schema"])
    assert exited.value.code == 1
    assert capsys.readouterr().err == "Error: cannot use /nowhere/x: No such file or directory\n"


@needs_proc
@pytest.mark.parametrize(
    ("args", "path"),
    [
        (["export", "--format", "json", "--out", "/proc/atlas-x.json"], "/proc/atlas-x.json"),
        (["export", "--format", "csv", "--out", "/proc/atlas-x.csv"], "/proc/atlas-x.csv"),
        (["export", "--format", "sqlite", "--out", "/proc/atlas-x.sqlite"], "/proc/atlas-x.sqlite"),
        (["export", "--format", "datapackage", "--out", "/proc/atlas-pkg"], "/proc/atlas-pkg"),
        (["schema", "--out", "/proc/atlas-schema"], "/proc/atlas-schema"),
        (["build", "/proc/atlas-site", "--no-check"], "/proc/atlas-site"),
    ],
)
def test_an_unwritable_out_path_is_one_line_exit_1(args: list[str], path: str, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from computeatlas.cli import main

    extra = [] if args[0] == "schema" else ["--data", str(data_dir)]
    with pytest.raises(SystemExit) as exited:
        main([*args, *extra])
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and path in err and "Traceback" not in err and "╭" not in err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["export", "--format", "csv", "--out", "{file}/x.csv"], "{file} is a file, not a folder"),
        (["export", "--format", "huggingface", "--out", "{file}/hf"], "{file} is a file, not a folder"),
        (["schema", "--out", "{file}"], "this is a file; give a folder"),
        (["schema", "--out", "{file}/s"], "{file} is a file, not a folder"),
        (["build", "{file}/site"], "{file} is a file, not a folder"),
    ],
)
def test_an_out_path_under_a_file_is_a_clear_exit_2(args: list[str], words: str, data_dir: Path, tmp_path: Path) -> None:
    file = tmp_path / "a-file"
    file.write_text("x")
    extra = [] if args[0] == "schema" else ["--data", str(data_dir)]
    result = runner.invoke(app, [a.format(file=file) for a in args] + extra)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()  # one message, wrapped at 80 columns (a path longer than a line stands whole)
    assert words.format(file=file) in " ".join(lines) and all(len(line) <= 80 or " " not in line for line in lines)


def test_list_messages_name_the_cli_options(data_dir: Path) -> None:
    result = runner.invoke(app, ["list", "--min", "memory=100", "--max", "memory=10", "--data", str(data_dir)])
    assert result.exit_code == 2 and "--min memory: is above --max memory (100 > 10)" in result.stderr
    result = runner.invoke(app, ["list", "--max", "bogus=1", "--data", str(data_dir)])
    assert result.exit_code == 2 and "--max bogus: no numeric column 'bogus'; choose one of memory," in result.stderr
    result = runner.invoke(app, ["list", "--form-factor", "nope", "--data", str(data_dir)])
    assert result.exit_code == 2 and result.stderr.startswith("--form-factor: no part has form_factor 'nope'")
    result = runner.invoke(app, ["list", "--sort", "nope", "--data", str(data_dir)])
    assert result.exit_code == 2 and result.stderr.startswith("--sort: no column 'nope'")
    assert "query parameter" not in result.stderr


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Calls to uvicorn.run (replaced: nothing is served); a clean ledger environment."""
    import uvicorn

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append(kwargs))
    for name in ("COMPUTEATLAS_DATABASE_URL", "COMPUTEATLAS_SECRET", "COMPUTEATLAS_RATE_LIMIT", "COMPUTEATLAS_RATE_LIMIT_STORAGE"):
        monkeypatch.delenv(name, raising=False)
    return calls


def test_serve_refuses_to_start_when_the_ledger_folder_cannot_be_created(
    served: list[dict[str, object]], data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(blocker / "var"))
    result = runner.invoke(app, ["serve", "--data", str(data_dir)])
    assert result.exit_code == 1 and served == []
    said = " ".join(result.stderr.split())  # one message, wrapped at 80 columns
    assert said.startswith(f"Not starting: the request ledger at folder {blocker / 'var'} cannot be opened or created:")
    assert "COMPUTEATLAS_VAR" in said


def test_serve_refuses_a_short_secret_and_starts_with_a_writable_folder(
    served: list[dict[str, object]], data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("COMPUTEATLAS_SECRET", "short")
    result = runner.invoke(app, ["serve", "--data", str(data_dir)])
    assert result.exit_code == 1 and "COMPUTEATLAS_SECRET must be at least 16 characters" in result.stderr and served == []
    monkeypatch.delenv("COMPUTEATLAS_SECRET")
    port = free_port()
    result = runner.invoke(app, ["serve", "--data", str(data_dir), "--port", str(port)])
    assert result.exit_code == 0, result.output
    assert len(served) == 1 and served[0]["port"] == port
    assert (tmp_path / "var" / "ledger.sqlite3").is_file() and (tmp_path / "var" / "secret.key").is_file()


def test_serve_hands_its_settings_to_the_workers_not_the_environment(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import pickle

    import uvicorn

    calls: list[tuple[tuple[object, ...], dict[str, object]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: calls.append((args, kwargs)))
    monkeypatch.delenv("COMPUTEATLAS_DATA", raising=False)
    monkeypatch.delenv("COMPUTEATLAS_SECRET", raising=False)
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(tmp_path / "var"))
    result = runner.invoke(app, ["serve", "--data", str(data_dir), "--port", str(free_port())])
    assert result.exit_code == 0, result.output
    assert "COMPUTEATLAS_DATA" not in os.environ
    (factory,), options = calls[0]
    assert options["factory"] is True and options["timeout_keep_alive"] == 5.0 and options["limit_concurrency"] == 1000
    worker_copy = pickle.loads(pickle.dumps(factory))  # what a spawned worker receives
    served = worker_copy()
    assert served.state.settings.data == data_dir and served.state.settings.var == tmp_path / "var"
    assert sorted(served.state.catalog.accelerators) == ["acme-a1", "acme-a2", "globex-g1"]


def test_a_malformed_setting_is_one_line_naming_it(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPUTEATLAS_BASE_PATH", "atlas")
    result = runner.invoke(app, ["list", "--data", str(data_dir)])
    assert result.exit_code == 2
    assert result.stderr.startswith("setting base_path (COMPUTEATLAS_BASE_PATH): base_path must start with '/'")


def test_build_takes_its_defaults_from_the_settings(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPUTEATLAS_PUBLIC_ORIGIN", "https://atlas.example.org")
    monkeypatch.setenv("COMPUTEATLAS_BASE_PATH", "/atlas")
    result = runner.invoke(app, ["build", str(tmp_path / "out"), "--data", str(data_dir), "--no-check"])  # the links are test_site's
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "robots.txt").read_text().endswith("Sitemap: https://atlas.example.org/atlas/sitemap.xml\n")
    result = runner.invoke(
        app,
        ["build", str(tmp_path / "out"), "--data", str(data_dir), "--base-path", "/", "--site-url", "https://other.example", "--no-check"],
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "robots.txt").read_text().endswith("Sitemap: https://other.example/sitemap.xml\n")


# --- tables at 80 columns, piped -------------------------------------------------------


def _over(text: str, width: int = 80) -> list[str]:
    """Lines wider than ``width``, except a URL alone on its line (whole, never folded)."""
    return [line for line in text.splitlines() if len(line) > width and not re.fullmatch(r"\s*(\[\d+\] )?https?://\S+", line)]


def test_tables_read_at_80_columns_when_piped() -> None:
    # CliRunner's output is not a terminal: rich takes $COLUMNS, as it does for `| less`.
    listed = runner.invoke(app, ["list"], env={"COLUMNS": "80"})
    assert listed.exit_code == 0, listed.output
    assert _over(listed.output) == [] and "…" not in listed.output
    # AMD's MI300X: 2614.9 dense FP8 TFLOPS, printed whole (it was cut to "2614…").
    row = next(line for line in listed.output.splitlines() if line.startswith("amd-instinct-mi300x "))
    assert row.split()[1:5] == ["192", "5.3", "2,614.9", "1,307.4"]  # AMD's MI300X figures, separators as on the page
    assert "FP4 dense (TFLOPS), Power (W), Availability left" in " ".join(listed.output.split())
    shown = runner.invoke(app, ["show", "Trn3"], env={"COLUMNS": "80"})
    assert shown.exit_code == 0 and _over(shown.output) == [] and "…" not in shown.output
    assert "4.9 TB/s" in shown.output  # AWS's Trainium3 page; its power is "not published", wrapped in its column
    assert re.search(r"^ *Power +not +.*\n +published ", shown.output.replace("│", " "), re.M), shown.output
    compared = runner.invoke(app, ["compare", "H200 SXM", "B200", "MI300X"], env={"COLUMNS": "80"})
    assert compared.exit_code == 0 and _over(compared.output) == [] and "…" not in compared.output


def test_wide_prints_every_column_on_one_line() -> None:
    wide = runner.invoke(app, ["list", "--wide"], env={"COLUMNS": "80"})
    assert wide.exit_code == 0, wide.output
    header = next(line for line in wide.output.splitlines() if " id " in line)
    assert "Memory bandwidth (TB/s)" in header and "Availability" in header and "FP4 dense (TFLOPS)" in header
    row = next(line for line in wide.output.splitlines() if "aws-trainium-3 " in line)
    assert "cloud-only" in row and "2,517" in row  # AWS: "2,517 MXFP8 TFLOPS"
    assert "…" not in wide.output


def test_version() -> None:
    import computeatlas

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"computeatlas {computeatlas.__version__}\n"


def test_serve_reports_a_busy_port_before_claiming_to_serve(
    served: list[dict[str, object]], data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.setenv("COMPUTEATLAS_VAR", str(tmp_path / "var"))
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = runner.invoke(app, ["serve", "--data", str(data_dir), "--port", str(port)])
    assert result.exit_code == 1 and served == []
    assert (
        " ".join(result.stderr.split())
        == f"Not starting: port {port} on 127.0.0.1 is already in use (another server is listening there); choose another with --port."
    )
    assert "Serving" not in result.stdout


def test_serve_warns_when_every_address_is_a_trusted_proxy(
    served: list[dict[str, object]], data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("COMPUTEATLAS_TRUSTED_PROXIES", '["10.0.0.0/8", "0.0.0.0/0"]')
    result = runner.invoke(app, ["serve", "--data", str(data_dir), "--port", str(free_port())])
    assert result.exit_code == 0 and len(served) == 1
    assert result.stderr.startswith("Warning: COMPUTEATLAS_TRUSTED_PROXIES includes 0.0.0.0/0, which trusts every client")
    monkeypatch.setenv("COMPUTEATLAS_TRUSTED_PROXIES", '["127.0.0.1", "10.0.0.0/8"]')
    quiet = runner.invoke(app, ["serve", "--data", str(data_dir), "--port", str(free_port())])
    assert quiet.exit_code == 0 and quiet.stderr == ""
