"""The integrity rules on real rows of the March 2026 snapshot, placed through the project's own
instance table (data/instances): term totals, placeholders, the band and the floor.

Fixtures (copied unchanged; tests/fixtures/prices/README.md names every line):
``skypilot-rules-excerpt.csv`` (OpenComputePrices skypilot.csv) and
``azure-term-totals-excerpt.csv`` (OpenComputePrices azure.csv lines 3751–3754).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from computeatlas.cloud import rules
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation, Status
from computeatlas.cloud.rates import RateTable, load_rates
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store, observation_of

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "prices"
TABLE = load_instances(ROOT / "data" / "instances", today=dt.date(2026, 12, 4))
NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def decided(tmp_path_factory: pytest.TempPathFactory) -> list[Observation]:
    store = Store(tmp_path_factory.mktemp("rules") / "prices")
    summary = import_readings(
        "opencomputeprices",
        [FIXTURES / "skypilot-rules-excerpt.csv", FIXTURES / "azure-term-totals-excerpt.csv"],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=NOW,
    )
    assert summary.rejected == 0 and summary.read == 34
    return [observation_of(r) for r in store.query("SELECT * FROM obs ORDER BY provider, instance_type, region, amount")]


def pick(rows: list[Observation], instance: str, **where: object) -> list[Observation]:
    return [o for o in rows if o.instance_type == instance and all(getattr(o, k) == v for k, v in where.items())]


def test_aws_p5_regional_list_prices_are_accepted_not_held_as_outside_the_band(decided: list[Observation]) -> None:
    """skypilot.csv lines 3611–3633: p5.48xlarge in six regions, 105.2024 to 127.816 USD an hour
    (13.15 to 15.98 per GPU), beside RunPod 2.99, Lambda 3.29 and Vast.ai 1.93. The old 4× band held
    all six; regional spread is not an error."""
    p5 = pick(decided, "p5.48xlarge")
    assert len(p5) == 6 and all(o.status is Status.ACCEPTED and o.accelerators == 8 for o in p5)
    assert {round(o.amount, 4) for o in p5} == {123.195, 117.984, 127.816, 113.068, 105.2024}
    assert max(o.per_accelerator_hour or 0 for o in p5) == pytest.approx(127.816 / 8)


def test_the_band_still_holds_an_error_of_scale() -> None:
    """A price 100× the providers' median (a cents/dollars or unit slip) is held; 9× is not."""
    names = {"runpod": "1x_H100-SXM_SECURE", "vast-ai": "1x-H100_SXM-32-65536", "lambda": "gpu_1x_h100_sxm5"}
    rows = [
        Observation(
            provider=p,
            instance_type=names[p],
            region=r,
            pricing="on_demand",
            amount=a,
            currency="USD",
            unit="hour",  # type: ignore[arg-type]
            collected=NOW,
        )
        for p, r, a in (
            ("runpod", "CA", 2.99),
            ("runpod", "CZ", 2.99),
            ("vast-ai", "FR", 1.93),
            ("runpod", "US", 299.0),
            ("lambda", "us", 3.29 * 9),
        )
    ]
    out = rules.apply(rows, TABLE, RateTable([]), rules.Limits())
    assert [o.rules for o in out] == [(), (), (), ("outside_band",), ()]
    assert "0.1–10 × the median" in out[3].reasons[0]


def test_a_tpu_v6e_slice_at_700_for_every_size_is_a_placeholder(decided: list[Observation]) -> None:
    """skypilot.csv lines 8261–8555: every v6e slice, 1 to 256 chips, at 700.0 in asia-east1;
    us-central1 prices the same slices 2.70 per chip. The 700 rows of the two largest slices were
    inside any band (700 ÷ 128 = 5.47, 700 ÷ 256 = 2.73 per chip): the placeholder rule holds them."""
    asia = [o for o in decided if o.accelerator == "google-tpu-v6e" and o.region.startswith("asia-east1")]
    assert len(asia) == 8 and {o.amount for o in asia} == {700.0}
    assert all(o.rules == ("placeholder",) for o in asia)
    assert "8 sizes of google-tpu-v6e (1, 4, 8, 16, 32, 64, 128, 256 per instance)" in asia[0].reasons[0]
    us = [o for o in decided if o.accelerator == "google-tpu-v6e" and o.region.startswith("us-central1")]
    assert len(us) == 8 and all(o.status is Status.ACCEPTED and o.per_accelerator_hour == pytest.approx(2.7) for o in us)


def test_two_sizes_at_one_amount_are_not_yet_a_placeholder() -> None:
    two = rules.apply(
        [
            Observation(
                provider="google-cloud",
                instance_type=f"tpu-v6e-{n}",
                region="asia-east1",
                pricing="on_demand",  # type: ignore[arg-type]
                amount=700.0,
                currency="USD",
                unit="hour",
                collected=NOW,
            )
            for n in (1, 4)
        ],
        TABLE,
        RateTable([]),
        rules.Limits(),
    )
    assert all("placeholder" not in o.rules for o in two)


def test_azure_reservation_totals_given_as_hourly_prices_are_held_and_the_hourly_price_stands(decided: list[Observation]) -> None:
    """azure.csv lines 3751–3754: Standard_ND96isr_H100_v5, eastus, Linux, on_demand, 'per hour':
    98.32, 551,221, 1,134,310 and 1,722,566 — the hourly price and 1-, 3- and 5-year totals."""
    rows = pick(decided, "Standard_ND96isr_H100_v5", region="eastus")
    assert [o.amount for o in rows] == [98.32, 551221.0, 1134310.0, 1722566.0]
    assert rows[0].status is Status.ACCEPTED and rows[0].per_accelerator_hour == pytest.approx(12.29)
    assert all(o.rules[0] == "term_total" for o in rows[1:])
    assert "5,606 × the price 98.32" in rows[1].reasons[0]


def test_a_first_generation_inferentia_spot_price_is_above_the_floor(decided: list[Observation]) -> None:
    """skypilot.csv lines 2809–2810: inf1.24xlarge (16 Inferentia devices) in eu-north-1, on-demand
    5.016 and spot 0.5093: 0.0318 per device-hour, a real price the old floor of 0.05 held."""
    spot = [o for o in pick(decided, "inf1.24xlarge") if o.pricing.value == "spot"]
    assert len(spot) == 1 and spot[0].status is Status.ACCEPTED and spot[0].accelerators == 16
    assert spot[0].accelerator == "aws-inferentia" and spot[0].per_accelerator_hour == pytest.approx(0.5093 / 16)


def test_every_snapshot_price_is_usd_and_the_rate_table_is_empty_and_refuses_an_unknown_code(tmp_path: Path) -> None:
    assert load_rates(ROOT / "data" / "prices" / "rates.csv").rate("EUR", dt.date(2026, 12, 1)) is None
    bad = tmp_path / "rates.csv"
    bad.write_text(
        "date,currency,usd_per_unit,source_url,source_title\n2026-03-20,EUX,1.08,https://www.ecb.europa.eu/,ECB\n", encoding="utf-8"
    )
    with pytest.raises(InputFailed, match="line 2: column currency: not an ISO 4217 currency code"):
        load_rates(bad)
