"""The bundled observation store (data/prices): what the import report states, and history never current."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings

ROOT = Path(__file__).parent.parent
STORE = Store(ROOT / "data" / "prices")


def test_every_row_read_is_stored_accepted_or_held_or_counted_as_a_repeat() -> None:
    manifests = STORE.runs()
    ocp_runs = [m["counts"] for m in manifests if m["format"] == "opencomputeprices"]
    offers = next(m["counts"] for m in manifests if m["format"] == "offers")
    atlas = next(m["counts"] for m in manifests if m["format"] == "atlas")
    first, again = ocp_runs[0], ocp_runs[-1]
    assert all(r["read"] == 10811 and r["rejected"] == 0 for r in ocp_runs)
    assert all(r["read"] == r["accepted"] + r["held"] + r["already_stored"] for r in ocp_runs)
    # the second import of the same snapshot stored only changed decisions: the 56 H100 NVL rows
    # re-placed on the H100 NVL's own record (runpod 32, azure 16, vast-ai 8), and held rows
    # whose reasons now read differently; nothing new was accepted
    assert len(ocp_runs) == 2 and again["accepted"] == 56
    assert again["accepted_by_provider"] == {"runpod": 32, "azure": 16, "vast-ai": 8}
    assert offers == offers | {"read": 60, "accepted": 60, "held": 0}
    # data/prices/inputs/late-2026-hyperscalers.csv: p4de.24xlarge and a3-megagpu-8g have no instance row yet
    assert atlas == atlas | {"read": 11, "accepted": 9, "held": 2, "held_by_rule": {"unplaced": 2}}
    assert STORE.count()["accepted"] == first["accepted"] + 60 + 9  # a re-placed row is the same observation key
    assert len(STORE.held()) == sum(r["held"] for r in ocp_runs) + 2  # every held row is kept for the operator
    assert STORE.count()["held"] < len(STORE.held())  # count() is per observation key: a key held twice counts once


def test_held_rows_carry_their_reasons_and_google_components_are_held_as_split_bills() -> None:
    assert STORE.query("SELECT count(*) AS n FROM obs WHERE status = 'held' AND (len(rules) = 0 OR len(reasons) < len(rules))") == [{"n": 0}]
    assert STORE.query("SELECT count(*) AS n FROM obs WHERE status = 'accepted' AND (accelerator = '' OR per_accelerator_hour IS NULL)") == [{"n": 0}]
    first = next(m["run"] for m in STORE.runs() if m["format"] == "opencomputeprices")
    split = STORE.query("SELECT count(*) AS n FROM obs WHERE provider = 'google-cloud' AND list_contains(rules, 'split_bill') AND run = ?",
                        [first])  # the first import's rows
    assert split == [{"n": 640}]


def test_march_2026_is_history_never_current() -> None:
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    current = STORE.current(None, now, Settings().freshness_days)
    assert current and not any(r["via"].startswith("OpenComputePrices") for r in current)
    assert all(r["collected"] >= now - dt.timedelta(days=90) for r in current)
    assert STORE.history("google-tpu-v5p", since=dt.date(2026, 3, 1), until=dt.date(2026, 3, 31))


def test_the_product_never_reads_the_shared_folder() -> None:
    for path in (ROOT / "computeatlas").rglob("*.py"):
        assert "shared/prices" not in path.read_text(encoding="utf-8"), path


def test_price_settings_have_the_documented_defaults() -> None:
    s = Settings()
    assert (s.price_band_low, s.price_band_high, s.price_band_min_observations, s.hours_per_month, s.freshness_days) == (0.1, 10.0, 5, 730.0, 90)
    assert s.price_floor_per_accelerator_hour > 0 and s.prices_dir == s.data / "prices"


def test_the_band_counts_each_provider_once() -> None:
    """Azure lists the H100 in dozens of regions at ~12–16 USD per GPU-hour; a median over
    rows would hold RunPod's 2.99 as an outlier. The band's median is over providers' medians."""
    rows = STORE.query("SELECT count(*) AS n FROM obs WHERE status = 'accepted' AND provider = 'runpod' AND "
                       "accelerator = 'nvidia-h100-sxm' AND pricing = 'on_demand' AND collected < '2026-04-01'")
    assert rows[0]["n"] >= 30


def test_one_tpu_slice_has_one_placement_in_both_google_tables() -> None:
    """google-cloud.csv names TPU slices as Google does (v5p-8), google-cloud-skypilot.csv as
    SkyPilot does (tpu-v5p-8): the same slice must get the same accelerator, chips and billing."""
    import csv

    def rows(name: str) -> dict[str, tuple[str, str, str]]:
        with (ROOT / "data" / "instances" / name).open(encoding="utf-8", newline="") as handle:
            return {r["instance_type"]: (r["accelerator"], r["accelerators"], r["billing"]) for r in csv.DictReader(handle)}

    ours, sky = rows("google-cloud.csv"), rows("google-cloud-skypilot.csv")
    shared = [n for n in ours if f"tpu-{n}" in sky]
    assert len(shared) >= 20
    assert {n: ours[n] for n in shared} == {n: sky[f"tpu-{n}"] for n in shared}


def test_on_demand_h100_sxm_has_sixteen_providers_hyperscalers_included() -> None:
    rows = STORE.query("SELECT DISTINCT provider FROM latest WHERE status = 'accepted' AND accelerator = 'nvidia-h100-sxm' "
                       "AND pricing = 'on_demand'")
    providers = {r["provider"] for r in rows}
    assert len(providers) == 16 and {"aws", "azure", "google-cloud", "jarvislabs", "novita", "together"} <= providers


def test_no_accepted_h100_sxm_price_is_a_reservation_total_or_a_placeholder() -> None:
    """Azure's 1-, 3- and 5-year reservation totals (551,221 and up for ND96isr_H100_v5) were once
    accepted as hourly prices; the dearest real on-demand H100 SXM price is Azure South Africa West,
    186.608 USD an hour for 8 GPUs."""
    top = STORE.query("SELECT max(per_accelerator_hour) AS top FROM latest WHERE status = 'accepted' AND accelerator = 'nvidia-h100-sxm'")
    assert top[0]["top"] == 186.608 / 8
    placeholders = STORE.query("SELECT count(*) AS n FROM latest WHERE status = 'accepted' AND accelerator = 'google-tpu-v6e' AND amount = 700")
    assert placeholders == [{"n": 0}]


def test_every_tpu_trainium_and_inferentia_row_of_the_snapshot_is_placed() -> None:
    rows = STORE.query("SELECT accelerator, count(*) AS n FROM latest WHERE status = 'accepted' AND (accelerator LIKE 'google-tpu-%' "
                       "OR accelerator LIKE 'aws-%') AND pricing = 'on_demand' GROUP BY accelerator ORDER BY accelerator")
    assert {r["accelerator"]: r["n"] for r in rows} == {
        "aws-inferentia": 201, "aws-inferentia-2": 122, "aws-trainium": 15, "google-tpu-v3": 19, "google-tpu-v4": 52,
        "google-tpu-v5e": 136, "google-tpu-v5p": 1034, "google-tpu-v6e": 128}
    unplaced = STORE.query("SELECT count(*) AS n FROM obs WHERE list_contains(rules, 'unplaced') AND (instance_type LIKE 'tpu-v%' "
                           "OR instance_type LIKE 'inf%' OR instance_type LIKE 'trn%') AND instance_type NOT LIKE 'tpu-v2-%'")
    assert unplaced == [{"n": 0}]
