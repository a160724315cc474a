"""``computeatlas prices collect`` and :func:`collect_sources` end to end, against recorded responses
on a loopback server (every collector's base URL set by COMPUTEATLAS_COLLECTOR_URLS): each source
into its own run, every attempt recorded, a failing source never blocking the others nor
touching what was stored before, a missing key skipped, a run held whole by the check hook."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from computeatlas.catalog import load
from computeatlas.cli import app as cli
from computeatlas.cloud.collection import HELD_RULE, SOURCES, collect_sources
from computeatlas.cloud.collection_log import attempts
from computeatlas.cloud.collectors import http
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.conftest import CliRunner
from tests.loopback import Answer, Server, serving

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.UTC)
ORACLE = "/pls/apex/cetools/api/v1/products/"


def _routes(server: Server) -> None:
    server.route("/api/retail/prices", Answer.file("azure-page1.json"), Answer.file("azure-page2.json"))
    server.route("/offers/v1.0/aws/index.json", Answer.file("aws-offer-index.json"))
    server.route("/offers/v1.0/aws/AmazonEC2/current/region_index.json", Answer.file("aws-region-index.json"))
    for region in ("ap-northeast-1", "ca-central-1"):
        server.route(f"/offers/v1.0/aws/AmazonEC2/20250912225308/{region}/index.csv", Answer.file(f"aws-{region}.csv"))
    server.route("/v1/services/6F81-5844-456A/skus", Answer.file("gcp-page1.json"), Answer.file("gcp-page2.json"))
    server.route(ORACLE, Answer.file("oracle-products.json"))
    for cloud in ("lambda", "runpod"):
        server.route(f"/skypilot-org/skypilot-catalog/master/catalogs/v8/{cloud}/vms.csv", Answer.file(f"skypilot-{cloud}-vms.csv"))


@contextlib.contextmanager
def _loopback() -> Iterator[Server]:
    with serving() as server:
        _routes(server)
        yield server


def _settings(tmp_path: Path, server: Server, key: str = "test-key") -> Settings:
    return Settings(prices=tmp_path / "prices", gcp_api_key=key, collector_urls=dict.fromkeys(SOURCES, server.url))


def _fast() -> contextlib.AbstractContextManager:  # type: ignore[type-arg]
    return http.client(timeout=2.0, attempts=2, backoff=0.01)


def test_collect_all_runs_every_collector_into_its_own_run_and_records_each_attempt(tmp_path: Path) -> None:
    with _loopback() as server:
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps(dict.fromkeys(SOURCES, server.url)), "COMPUTEATLAS_GCP_API_KEY": "test-key"}
        result = CliRunner().invoke(
            cli, ["prices", "collect", "--all", "--prices", str(tmp_path / "prices")], env={**env, "COLUMNS": "200"}
        )
    assert result.exit_code == 0, result.output
    for name in SOURCES:
        assert name in result.stdout
    store = tmp_path / "prices"
    found = {name: attempts(store, name)[0] for name in SOURCES}
    assert {name: [a.result for a in got] for name, got in found.items()} == {name: ["imported"] for name in SOURCES}
    rows = {name: (got[0].rows_read, got[0].accepted + got[0].held) for name, got in found.items()}
    assert rows == {
        "aws": (6, 0),  # the recorded AWS lines are all skipped (see test_collectors), so AWS adds no run
        "azure": (10, 10),  # two requests of ten instance types each: the second is answered with the last page again
        "gcp": (3, 3),
        "oracle": (10, 6),
        "skypilot-lambda": (5, 4),
        "skypilot-runpod": (3, 6),  # on-demand and spot per line
    }
    runs = Store(store).runs()
    assert len(runs) == 5 and {r["format"] for r in runs} == {f"collector:{n}" for n in SOURCES if n != "aws"}
    assert found["aws"][0].run is None and all(found[n][0].run for n in SOURCES if n != "aws")


def test_a_failing_source_stores_nothing_keeps_earlier_runs_and_never_blocks_the_others(tmp_path: Path) -> None:
    catalog = load()
    with _loopback() as server:
        settings = _settings(tmp_path, server)
        first = collect_sources(["oracle"], settings, catalog, client=_fast)
        before = Store(settings.prices_dir).runs()
        server.route(ORACLE, Answer(b"<html>Service Unavailable</html>", 503, "text/html"))
        later = collect_sources(["oracle", "skypilot-lambda"], settings, catalog, client=_fast)
    assert first[0].attempt.result == "imported" and len(before) == 1
    oracle, lambda_ = (o.attempt for o in later)
    assert oracle.result == "failed" and "HTTP 503" in (oracle.error or "") and oracle.run is None
    assert lambda_.result == "imported" and lambda_.accepted + lambda_.held == 4
    after = Store(settings.prices_dir).runs()
    assert len(after) == 2 and before[0] in after  # the earlier Oracle run is still there, as it was
    assert [a.result for a in attempts(settings.prices_dir, "oracle")[0]] == ["failed", "imported"]


def test_without_an_api_key_gcp_is_skipped_and_says_so(tmp_path: Path) -> None:
    with _loopback() as server:
        outcomes = collect_sources(["gcp"], _settings(tmp_path, server, key=""), load(), client=_fast)
    attempt = outcomes[0].attempt
    assert attempt.result == "skipped" and attempt.reason == "needs the setting COMPUTEATLAS_GCP_API_KEY, which is not set; skipped"
    assert server.hits("/v1/services/6F81-5844-456A/skus") == 0
    assert attempts(tmp_path / "prices", "gcp")[0][0].reason == attempt.reason


def test_the_check_hook_holds_a_run_whole_with_its_reason(tmp_path: Path) -> None:
    seen: list[tuple[str, int]] = []

    def check(source: str, collected: object, store: Store) -> str | None:
        seen.append((source, len(collected.observations)))  # type: ignore[attr-defined]
        return "the median price moved 12× since the previous run"

    with _loopback() as server:
        settings = _settings(tmp_path, server)
        outcomes = collect_sources(["oracle"], settings, load(), client=_fast, check=check)
    attempt = outcomes[0].attempt
    assert seen == [("oracle", 6)]
    assert attempt.result == "held" and attempt.reason == "the median price moved 12× since the previous run" and attempt.held == 6
    held = Store(settings.prices_dir).held()
    assert len(held) == 6 and all(HELD_RULE in row["rules"] for row in held)


@pytest.mark.parametrize(
    ("args", "words"),
    [(["prices", "collect"], "name the collectors to run, or give --all"), (["prices", "collect", "nosuch"], "unknown collector 'nosuch'")],
)
def test_cli_collect_without_a_known_collector_is_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    result = CliRunner().invoke(cli, [*args, "--prices", str(tmp_path / "prices")])
    assert result.exit_code == 2 and words in result.stderr
    assert not (tmp_path / "prices").exists()


def test_cli_collect_names_a_failure_and_exits_1(tmp_path: Path) -> None:
    with serving() as server:
        server.route(ORACLE, Answer(b'{"items": "none"}'))
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps({"oracle": server.url}), "COLUMNS": "300"}
        result = CliRunner().invoke(cli, ["prices", "collect", "oracle", "--prices", str(tmp_path / "prices")], env=env)
    assert result.exit_code == 1
    assert "oracle failed, nothing stored from it: oracle: http://127.0.0.1:" in result.stderr and "(field 'items')" in result.stderr
