"""The bundled observation store (data/prices): what the import report states, and history never current."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings

ROOT = Path(__file__).parent.parent
STORE = Store(ROOT / "data" / "prices")


def test_every_row_read_is_stored_accepted_or_held_or_counted_as_a_repeat() -> None:
    """scripts/bundle_prices.py: one run per source, as data/prices/README.md reports them."""
    runs = {}
    for manifest in STORE.runs():
        runs.setdefault(manifest["format"], []).append(manifest["counts"])
    assert sorted(runs) == [
        "atlas",
        "aws-capacity-blocks",
        "azure-pricing-radar",
        "cyclenerd-gcp",
        "fullstack-cloud-gpus",
        "gpuhunt-tpu",
        "offers",
        "opencomputeprices",
    ]
    (ocp,), (offers,), (atlas,), (gcp,) = runs["opencomputeprices"], runs["offers"], runs["atlas"], runs["cyclenerd-gcp"]
    # a row gives one observation in these formats: every row read is accepted, held, rejected or a repeat
    for counts in (ocp, offers, atlas, *runs["aws-capacity-blocks"]):  # (Azure: a savings-plan price is a second observation)
        assert counts["read"] == counts["accepted"] + counts["held"] + counts["already_stored"] + counts["rejected"] + counts["skipped"]
    assert (ocp["read"], ocp["rejected"]) == (10811, 0) and offers | {"read": 60, "accepted": 60, "held": 0} == offers
    # the two late-2026 rows that had no instance row (p4de.24xlarge, a3-megagpu-8g) are placed now
    assert atlas | {"read": 11, "accepted": 11, "held": 0} == atlas
    # Cyclenerd: 98,213 rows of Google machine types, each on-demand, spot, 1- and 3-year committed; the monthly
    # copies of the hourly prices skipped; G4 (a share of one RTX PRO 6000) unplaced; a2-ultragpu "committed" = on-demand
    assert (gcp["read"], gcp["skipped"], gcp["rejected"]) == (98213, 192295, 0)
    assert gcp["held_by_rule"] == {"unplaced": 8750, "committed_equals_on_demand": 6712}
    assert STORE.count()["accepted"] == sum(c["accepted"] for rs in runs.values() for c in rs)  # one decision per observation
    assert len(STORE.held()) == sum(c["held"] for rs in runs.values() for c in rs)  # every held row is kept for the operator


def test_held_rows_carry_their_reasons_and_google_components_are_held_as_split_bills() -> None:
    assert STORE.query("SELECT count(*) AS n FROM obs WHERE status = 'held' AND (len(rules) = 0 OR len(reasons) < len(rules))") == [
        {"n": 0}
    ]
    assert STORE.query(
        "SELECT count(*) AS n FROM obs WHERE status = 'accepted' AND (accelerator = '' OR per_accelerator_hour IS NULL)"
    ) == [{"n": 0}]
    first = next(m["run"] for m in STORE.runs() if m["format"] == "opencomputeprices")
    split = STORE.query(
        "SELECT count(*) AS n FROM obs WHERE provider = 'google-cloud' AND list_contains(rules, 'split_bill') AND run = ?", [first]
    )  # the first import's rows
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
    assert (s.price_band_low, s.price_band_high, s.price_band_min_observations, s.hours_per_month, s.freshness_days) == (
        0.1,
        10.0,
        5,
        730.0,
        90,
    )
    assert s.price_floor_per_accelerator_hour > 0 and s.prices_dir == s.data / "prices"


def test_the_band_counts_each_provider_once() -> None:
    """Azure lists the H100 in dozens of regions at ~12–16 USD per GPU-hour; a median over
    rows would hold RunPod's 2.99 as an outlier. The band's median is over providers' medians."""
    rows = STORE.query(
        "SELECT count(*) AS n FROM obs WHERE status = 'accepted' AND provider = 'runpod' AND "
        "accelerator = 'nvidia-h100-sxm' AND pricing = 'on_demand' AND collected < '2026-04-01'"
    )
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


def test_on_demand_h100_sxm_has_seventeen_providers_the_hyperscalers_on_the_sxm_variant() -> None:
    rows = STORE.query(
        "SELECT provider, variant, min(collected) AS first FROM latest WHERE status = 'accepted' "
        "AND accelerator = 'nvidia-h100-sxm' AND pricing = 'on_demand' GROUP BY ALL"
    )
    providers = {r["provider"] for r in rows}
    assert len(providers) == 17 and {"aws", "azure", "google-cloud", "jarvislabs", "novita", "together", "paperspace"} <= providers
    sxm = {r["provider"]: r["first"] for r in rows if r["variant"] == "sxm-80gb"}
    assert {"aws", "azure", "google-cloud"} <= set(sxm)  # stated by evidence (NVSwitch / "H100 SXM"), so like for like
    assert sxm["google-cloud"] < dt.datetime(2025, 1, 1, tzinfo=dt.UTC)  # Cyclenerd's a3-highgpu-8g from 2024-06-13


def test_no_accepted_h100_sxm_price_is_a_reservation_total_or_a_placeholder() -> None:
    """Azure's 1-, 3- and 5-year reservation totals (551,221 and up for ND96isr_H100_v5) were once
    accepted as hourly prices; the dearest real on-demand H100 SXM price is Azure South Africa West,
    186.608 USD an hour for 8 GPUs."""
    top = STORE.query("SELECT max(per_accelerator_hour) AS top FROM latest WHERE status = 'accepted' AND accelerator = 'nvidia-h100-sxm'")
    assert top[0]["top"] == 186.608 / 8
    placeholders = STORE.query(
        "SELECT count(*) AS n FROM latest WHERE status = 'accepted' AND accelerator = 'google-tpu-v6e' AND amount = 700"
    )
    assert placeholders == [{"n": 0}]


def test_every_tpu_trainium_and_inferentia_row_of_the_snapshot_is_placed() -> None:
    # TPU v4: 52 on-demand rows of the March 2026 snapshot and gpuhunt's "TPU v4 pod" per chip-hour in 2024 (3)
    rows = STORE.query(
        "SELECT accelerator, count(*) AS n FROM latest WHERE status = 'accepted' AND (accelerator LIKE 'google-tpu-%' "
        "OR accelerator LIKE 'aws-%') AND pricing = 'on_demand' GROUP BY accelerator ORDER BY accelerator"
    )
    assert {r["accelerator"]: r["n"] for r in rows} == {
        "aws-inferentia": 201,
        "aws-inferentia-2": 122,
        "aws-trainium": 15,
        "google-tpu-v3": 19,
        "google-tpu-v4": 55,
        "google-tpu-v5e": 136,
        "google-tpu-v5p": 1034,
        "google-tpu-v6e": 128,
    }
    unplaced = STORE.query(
        "SELECT count(*) AS n FROM obs WHERE list_contains(rules, 'unplaced') AND (instance_type LIKE 'tpu-v%' "
        "OR instance_type LIKE 'inf%' OR instance_type LIKE 'trn%') AND instance_type NOT LIKE 'tpu-v2-%' "
        "AND via LIKE 'OpenComputePrices%'"
    )
    assert unplaced == [{"n": 0}]
