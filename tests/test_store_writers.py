"""One writer at a time, and recovery: two imports at once never duplicate a row or accept a
conflict; a busy store refuses after the timeout; a killed writer's lock is released and its
leftovers are listed, repaired and never read."""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.conftest import CliRunner

ROOT = Path(__file__).parent.parent
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"
REGIONS = ("us", "eu", "asia", "sa", "af")
TRIALS = 5
"""Trials of each race (two imports of the same file; two of conflicting prices)."""


def _file(folder: Path, name: str, amount: str) -> Path:
    """Five observations of examplecloud's 8x L4 (nvidia-l4), one per region, at ``amount`` an hour."""
    path = folder / name
    path.write_text(
        HEADER
        + "".join(
            f"examplecloud,8x L4,{region},on_demand,,{amount},USD,hour,8,instance,2026-11-29T09:00:00Z,"
            "https://examplecloud.example/pricing,Example pricing,test,,\n"
            for region in REGIONS
        ),
        encoding="utf-8",
    )
    return path


def _writer(mode: str, store: Path, file: Path, *sync: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store_writer", mode, str(store), str(file), *map(str, sync)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(writer: subprocess.Popen[str]) -> tuple[int, str]:
    """Wait for ``writer``; its exit status and what it printed (its pipes closed)."""
    said, _ = writer.communicate(timeout=300)
    return writer.returncode, said


def _run(mode: str, store: Path, file: Path) -> int:
    """Run one writer to its end; its exit status."""
    return _finish(_writer(mode, store, file))[0]


def _race(folder: Path, first: Path, second: Path, mode: str = "import") -> list[tuple[int, str]]:
    """Start two writers, let them go at the same moment, and wait for both."""
    store = folder / "prices"
    ready, go = [folder / "ready-1", folder / "ready-2"], folder / "go"
    writers = [_writer(mode, store, file, flag, go) for file, flag in ((first, ready[0]), (second, ready[1]))]
    deadline = time.monotonic() + 120
    while not all(flag.exists() for flag in ready) and time.monotonic() < deadline and all(w.poll() is None for w in writers):
        time.sleep(0.01)
    go.write_text("go", encoding="utf-8")
    ended = []
    for w in writers:
        said, complaint = w.communicate(timeout=300)
        ended.append((w.returncode, (said + complaint)[-2000:]))
    return ended


def _problems(store: Store) -> tuple[int, int]:
    """(rows stored twice with the same price and decision, keys with two accepted prices)."""
    twice = store.query(
        "SELECT count(*) AS n FROM (SELECT provider, instance_type, region, pricing, term, collected, amount, status "
        "FROM obs GROUP BY ALL HAVING count(*) > 1)"
    )[0]["n"]
    accepted = store.query(
        "SELECT count(*) AS n FROM (SELECT provider, instance_type, region, pricing, term, collected FROM obs "
        "WHERE status = 'accepted' GROUP BY ALL HAVING count(DISTINCT amount) > 1)"
    )[0]["n"]
    return twice, accepted


@pytest.mark.parametrize("conflicting", [False, True], ids=["same-file-twice", "conflicting-prices"])
def test_two_imports_at_once_never_duplicate_or_accept_a_conflict(tmp_path: Path, conflicting: bool) -> None:
    for trial in range(TRIALS):
        folder = tmp_path / f"trial-{trial}"
        folder.mkdir()
        first = _file(folder, "a.csv", "3.20")
        second = _file(folder, "b.csv", "4.00") if conflicting else first
        ended = _race(folder, first, second)
        assert [code for code, _ in ended] == [0, 0], ended
        store = Store(folder / "prices")
        assert _problems(store) == (0, 0), trial
        rows = store.query("SELECT amount, status, rules FROM obs ORDER BY status, amount")
        if conflicting:  # whichever came first stands; the other is held as a conflict against it
            assert sorted(r["status"] for r in rows) == ["accepted"] * 5 + ["held"] * 5
            assert {tuple(r["rules"]) for r in rows if r["status"] == "held"} == {("conflict",)}
            assert len({r["amount"] for r in rows if r["status"] == "accepted"}) == 1
        else:
            assert [(r["amount"], r["status"]) for r in rows] == [(3.2, "accepted")] * 5
        assert len(store.runs()) == (2 if conflicting else 1)
        assert store.leftovers().removable == ()


def test_a_store_locked_longer_than_the_timeout_refuses_with_a_clear_message(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    with store.writing():
        code, said = _finish(_writer("busy", store.root, _file(tmp_path, "a.csv", "3.20")))
    assert code == 3 and "another import or collection is writing to the price store" in said and "nothing was stored" in said
    assert store.runs() == []


def test_a_writer_is_told_why_it_waits_and_another_thread_waits_too(tmp_path: Path) -> None:
    import threading

    from computeatlas.cloud.writers import StoreBusy

    store, told, holding, done = Store(tmp_path / "prices"), [], threading.Event(), threading.Event()

    def hold() -> None:
        with store.writing():
            holding.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(30)
    with pytest.raises(StoreBusy, match=r"waited 0\.2 s: nothing was stored"), store.writing(timeout=0.2, on_wait=told.append):
        pass
    done.set()
    holder.join()
    assert told == [str((store.root / ".lock").resolve())]
    with store.writing(timeout=1, on_wait=told.append), store.writing(timeout=1):  # free again, and taken twice by one thread
        pass
    assert len(told) == 1


def test_a_killed_writers_lock_is_released_by_the_system(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    held = tmp_path / "held"
    assert _run("hold-and-die", store.root, held) == -9 and held.read_text() == "locked"
    with store.writing(timeout=5):  # would raise StoreBusy if the dead process still held it
        pass


def _baseline(tmp_path: Path) -> Store:
    store = Store(tmp_path / "prices")
    assert _run("import", store.root, _file(tmp_path, "good.csv", "3.20")) == 0
    return store


@pytest.mark.parametrize("mode", ["die-before-manifest", "die-in-staging"])
def test_a_killed_import_leaves_nothing_visible_and_status_and_repair_find_its_leftovers(
    tmp_path: Path,
    mode: str,
    real_catalog,  # type: ignore[no-untyped-def]
    make_client,
) -> None:
    store = _baseline(tmp_path)
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    before = store.current("nvidia-l4", now, 90)
    client = make_client(real_catalog, Settings(prices=store.root))
    answer = client.get("/api/prices/nvidia-l4/current").json()["prices"]
    assert _run(mode, store.root, _file(tmp_path, "killed.csv", "4.00")) == 9
    found = store.leftovers()
    if mode == "die-before-manifest":
        assert len(found.orphans) == 1 and len(found.runs_without_manifest) == 1 and len(found.staging) == 1
    else:
        assert found.orphans == () and len(found.staging) == 1
    # A half-written Parquet file of a run that never committed is as invisible as a whole one.
    half = store.observations_dir / "date=2026-11-29" / "part-20261129T000000000000Z-deadbeef-0.parquet"
    half.write_bytes(store.files()[0].read_bytes()[:300])
    assert store.current("nvidia-l4", now, 90) == before and store.count() == {"accepted": 5}
    assert client.get("/api/prices/nvidia-l4/current").json()["prices"] == answer and len(answer) == 5
    assert client.get("/cloud/prices/nvidia-l4").status_code == 200 and client.get("/data/prices/observations.csv").status_code == 200
    runner = CliRunner()
    status = runner.invoke(cli, ["prices", "status", "--prices", str(store.root)])
    assert status.exit_code == 1 and "runs without a manifest: " + str(len(found.runs_without_manifest) + 1) in status.stdout
    assert "part-20261129T000000000000Z-deadbeef-0.parquet" in status.stdout and "staging leftovers: 1" in status.stdout
    dry = runner.invoke(cli, ["prices", "repair", "--prices", str(store.root)])
    assert dry.exit_code == 0 and dry.stdout.count("would remove") == len(found.removable) + 1 and "--yes" in dry.stdout
    assert len(store.leftovers().removable) == len(found.removable) + 1  # a dry run removes nothing
    done = runner.invoke(cli, ["prices", "repair", "--yes", "--prices", str(store.root)])
    assert done.exit_code == 0 and len(re.findall(r"^removed\b", done.stdout, re.M)) == len(found.removable) + 1
    assert runner.invoke(cli, ["prices", "status", "--prices", str(store.root)]).exit_code == 0
    assert store.current("nvidia-l4", now, 90) == before and store.count() == {"accepted": 5}


def test_the_next_import_removes_a_killed_imports_leftovers_and_a_broken_manifest_is_only_reported(tmp_path: Path) -> None:
    store = _baseline(tmp_path)
    assert _run("die-before-manifest", store.root, _file(tmp_path, "killed.csv", "4.00")) == 9
    assert store.leftovers().removable
    assert _run("import", store.root, _file(tmp_path, "next.csv", "3.20")) == 0  # already stored: adds nothing
    assert store.leftovers().removable == () and len(store.runs()) == 1
    (store.runs_dir / "20261201T000000000000Z-0badf00d.json").write_text('{"run": "20261201T0', encoding="utf-8")
    assert len(store.runs()) == 1 and store.count() == {"accepted": 5}
    status = CliRunner().invoke(cli, ["prices", "status", "--prices", str(store.root)])
    assert status.exit_code == 1 and "unreadable manifests: 1" in status.stdout
    os.remove(store.files()[0])
    assert store.leftovers().missing[0].startswith(store.runs()[0]["run"] + ": observations/date=2026-11-29/")
