"""Shared fixtures: one app over a small deterministic catalog, an app factory, and a record factory.

The catalog is immutable, so what only reads it is built once per session: ``catalog`` (the
small catalog), ``app`` (the app serving it) and ``real_catalog``/``real_client`` (the
bundled data). ``client`` is a fresh test client (own cookies) over ``app`` with the page
cache emptied, so no test sees another's cached pages or cache counts. A test that needs
its own data or settings writes a folder (``data_dir``, a fresh copy per test, or
``write_data``) and asks ``make_client(catalog, settings)`` for a client over a new app; so
does a test that changes an app's state (``app.state.ledger``, an added route), which on
the shared ``app`` would reach every later test.

``make_record(id, **overrides)`` returns a complete, valid accelerator record (a dict, as a
TOML file holds it); ``write_data(folder, records)`` writes a data folder.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import functools
import gc
import os
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import tomli_w
import typer.main
import typer.testing

from tests.scheduler import GroupScheduler

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from computeatlas.catalog import Catalog
    from computeatlas.core.settings import Settings

# The app and the catalog are imported by the fixtures that use them, not here: under
# pytest-xdist the controller process loads this file too, runs no test, and starts the
# workers only once it has (importing the web app is most of a second).

TODAY = dt.date(2026, 11, 30)

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist's workers are given COLUMNS=80 and LINES=24; rich would fix the CLI's
    # width from them when the CLI is imported, so a test's own COLUMNS would not count.
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

VENDORS = {
    "acme": {"id": "acme", "name": "Acme Silicon", "url": "https://acme.example/"},
    "globex": {"id": "globex", "name": "Globex", "url": "https://globex.example/"},
}


def _published(value: str, **extra: Any) -> dict[str, Any]:
    return {"state": "published", "value": value, "basis": "chip", "source": "sheet", **extra}


def make_record(ident: str, **overrides: Any) -> dict[str, Any]:
    """A valid accelerator record; ``overrides`` replace top-level keys, and
    ``specs__memory=...`` style keys replace one spec (``None`` deletes it)."""
    record: dict[str, Any] = {
        "id": ident,
        "name": ident.replace("-", " ").title(),
        "vendor": "acme",
        "family": "Test",
        "summary": "A test part.",
        "workload": "both",
        "form_factor": "PCIe card",
        "availability": "buy",
        "availability_note": "Sold by resellers.",
        "audience": "Testers.",
        "catch": "None known.",
        "economics": "Priced per test.",
        "verified": "2026-11-01",
        "sources": {
            "sheet": {
                "title": "Acme datasheet",
                "url": "https://acme.example/sheet.pdf",
                "publisher": "Acme",
                "kind": "vendor",
                "accessed": "2026-11-01",
            }
        },
        "specs": {
            "memory": _published("80 GB", memory_type="HBM3"),
            "memory_bandwidth": _published("3.35 TB/s"),
            "compute": {
                "FP8": _published("1979 TFLOPS", sparsity="dense", sparse="3958 TFLOPS", sparse_pattern="2:4"),
                "BF16": _published("989.5 TFLOPS", sparsity="dense", sparse="1979 TFLOPS", sparse_pattern="2:4"),
            },
            "power": _published("700 W"),
            "interconnect": {
                "state": "published",
                "text": "AcmeLink",
                "value": "900 GB/s",
                "direction": "bidirectional",
                "basis": "chip",
                "source": "sheet",
            },
            "software": {"state": "published", "text": "AcmeSDK", "source": "sheet"},
        },
    }
    for key, value in overrides.items():
        if key.startswith("specs__"):
            path = key.split("__")[1:]
            node = record["specs"]
            for part in path[:-1]:
                node = node[part]
            if value is None:
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
        else:
            record[key] = value
    sheet = record["sources"].get("sheet")
    if sheet is not None and sheet["url"] == "https://acme.example/sheet.pdf" and record["vendor"] != "acme":
        # the maker's datasheet is on the maker's own host
        record["sources"] = {**record["sources"], "sheet": {**sheet, "url": f"https://{record['vendor']}.example/sheet.pdf"}}
    return copy.deepcopy(record)


SMALL_CATALOG = [
    make_record("acme-a1", name="Acme A1", generation=1),
    make_record(
        "acme-a2",
        name="Acme A2",
        generation=2,
        predecessor="acme-a1",
        availability="cloud-only",
        specs__memory=_published("144 GB", memory_type="HBM3e"),
        specs__memory_bandwidth=_published("4.9 TB/s"),
        specs__power={"state": "not_published", "source": "sheet", "note": "Acme withholds it."},
    ),
    make_record(
        "globex-g1",
        name="Globex G1",
        vendor="globex",
        workload="inference",
        specs__memory=_published("24 GB", memory_type="GDDR6"),
        specs__memory_bandwidth=_published("300 GB/s"),
        specs__compute__FP8={"state": "not_applicable", "note": "No FP8 units."},
        specs__power=_published("72 W"),
    ),
]


def write_data(folder: Path, records: Iterable[dict[str, Any]], vendors: dict[str, dict[str, Any]] | None = None) -> Path:
    """Write vendors and accelerator records as TOML files under ``folder``; return it."""
    (folder / "vendors").mkdir(parents=True, exist_ok=True)
    (folder / "accelerators").mkdir(parents=True, exist_ok=True)
    for ident, vendor in (vendors or VENDORS).items():
        (folder / "vendors" / f"{ident}.toml").write_text(tomli_w.dumps(vendor), encoding="utf-8")
    for record in records:
        (folder / "accelerators" / f"{record['id']}.toml").write_text(tomli_w.dumps(record), encoding="utf-8")
    return folder


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A small deterministic data folder: two Acme parts and one Globex part (a fresh copy per test)."""
    return write_data(tmp_path / "data", SMALL_CATALOG)


@pytest.fixture(scope="session")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The small catalog (``data_dir``'s records), validated as of 2026-11-30; loaded once."""
    from computeatlas.catalog import load

    return load(write_data(tmp_path_factory.mktemp("small") / "data", SMALL_CATALOG), today=TODAY)


@pytest.fixture(scope="session")
def app(catalog: Catalog) -> FastAPI:
    """The app serving the small catalog, built once; tests reach it through ``client``."""
    from computeatlas.web.app import create_app

    return create_app(catalog)


def fresh_client(app: FastAPI, **options: Any) -> TestClient:
    """A new test client over a shared ``app``, its page cache emptied first."""
    from fastapi.testclient import TestClient

    app.state.pages.clear()
    return TestClient(app, **options)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """A test client over the app serving the small catalog (fresh cookies, empty page cache).
    It is open for the whole test, so its requests share one event loop instead of starting
    one each (about half of a small request's CPU)."""
    with fresh_client(app) as opened:
        yield opened


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    """``make_client(catalog, settings=None, **options)``: a test client over a new app serving
    ``catalog`` with ``settings``, for tests that need their own data or settings; ``options``
    go to the TestClient. Each is open until the test ends."""
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    with contextlib.ExitStack() as opened:

        def make(catalog: Catalog, settings: Settings | None = None, **options: Any) -> TestClient:
            return opened.enter_context(TestClient(create_app(catalog, settings), **options))

        yield make


@pytest.fixture(scope="session")
def real_catalog() -> Catalog:
    """The bundled data folder, loaded once per test session."""
    from computeatlas.catalog import load

    return load()


@pytest.fixture(scope="session")
def real_client(real_catalog: Catalog) -> Iterator[TestClient]:
    """A test client over the app serving the bundled data, open for the session."""
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    with TestClient(create_app(real_catalog)) as opened:
        yield opened


def pytest_configure(config: pytest.Config) -> None:
    """Fewer full garbage collections in the test process. A test session keeps a large heap
    alive (the bundled catalog, the real build's answers, apps and their caches), and with
    Python's default thresholds (700, 10, 10) the collections that rescan it took 5 to 16%
    of a worker's CPU; at (10,000, 20, 20) they take about a third of that. Only when and
    how often cycles are collected changes, not what is collected."""
    gc.set_threshold(10_000, 20, 20)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> GroupScheduler | None:
    """``make test`` runs ``-n 2 --dist loadgroup``: the work units are
    :func:`tests.scheduler.xdist_group`'s, longest first (pytest-xdist's ``xdist_group``
    marker groups nothing under pytest 9; see :mod:`tests.scheduler`). Serially (no ``-n``)
    this is not called; another ``--dist`` keeps pytest-xdist's own scheduler."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.workermanage import parse_tx_spec_config

    return GroupScheduler(config, len(parse_tx_spec_config(config)))


class CliRunner(typer.testing.CliRunner):
    """typer's test runner, with each Typer app's click command built once per session.

    typer builds the command tree from every command's signature on each ``invoke`` (about
    an eighth of the CPU of the tests that are not browser, build or server tests); the tree
    depends only on the app's code, so one per app (``typer.main.get_command``) serves every
    invocation. Only typer's public testing API is used: the runner's ``isolation`` (its
    streams, environment and input, as ``invoke`` sets them up) and :class:`typer.testing.Result`."""

    def invoke(
        self,
        app: typer.Typer,
        args: str | Sequence[str] | None = None,
        input: bytes | str | None = None,
        env: Mapping[str, str | None] | None = None,
        catch_exceptions: bool = True,
        color: bool = False,
        **extra: Any,
    ) -> typer.testing.Result:
        """As :meth:`typer.testing.CliRunner.invoke` (the same exit codes, output and
        exception), over the app's one command tree."""
        command = command_of(app)
        prog_name = extra.pop("prog_name") if "prog_name" in extra else self.get_default_prog_name(command)
        return_value: Any = None
        exception: BaseException | None = None
        exit_code, exc_info = 0, None
        with self.isolation(input=input, env=env, color=color) as (stdout, stderr, output):
            try:
                return_value = command.main(args=shlex.split(args) if isinstance(args, str) else args or (), prog_name=prog_name, **extra)
            except SystemExit as exc:
                exc_info = sys.exc_info()
                code = 0 if exc.code is None else exc.code
                if code != 0:
                    exception = exc
                if not isinstance(code, int):
                    sys.stdout.write(f"{code}\n")
                    code = 1
                exit_code = code
            except Exception as exc:
                if not catch_exceptions:
                    raise
                exception, exit_code, exc_info = exc, 1, sys.exc_info()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                written = stdout.getvalue(), stderr.getvalue(), output.getvalue()
        return typer.testing.Result(self, *written, return_value, exit_code, exception, exc_info)  # type: ignore[arg-type]


@functools.cache
def command_of(app: typer.Typer) -> Any:
    """``app``'s click command (``typer.main.get_command``), built once per session."""
    return typer.main.get_command(app)
