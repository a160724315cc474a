"""Prices per accelerator-hour, variants, the spread, and every bad-data case of offers.

The fixed test offers below are priced for the small catalog's parts; every expected
figure is worked by hand from them (e.g. 98.32 USD ÷ 8 = 12.29). "Today" is 2026-11-30,
so an offer seen on or before 2026-08-31 (more than 90 days earlier) is stale.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from typer.testing import CliRunner

from computeatlas.cli import app as cli
from computeatlas.cloud import pricing, variants
from computeatlas.cloud.records import Offer
from computeatlas.core.catalog import Catalog, CatalogError, check, load
from computeatlas.web.app import create_app

from .conftest import SMALL_CATALOG, TODAY, write_data

COLUMNS = ["provider", "accelerator", "variant", "instance_type", "accelerators_per_instance", "price_basis", "pricing",
           "term", "price_per_hour", "currency", "region", "seen", "source_url", "note"]


def provider(ident: str, name: str, kind: str, **extra: Any) -> dict[str, Any]:
    """A valid provider record (as its TOML file holds it)."""
    return {
        "id": ident, "name": name, "kind": kind, "url": f"https://{ident}.example/", "regions": ["US", "EU"],
        "summary": f"{name} rents test accelerators.", "verified": "2026-11-01",
        "sources": {"pricing": {"title": f"{name} pricing", "url": f"https://{ident}.example/pricing",
                                "publisher": name, "kind": "vendor", "accessed": "2026-11-01"}},
        **extra,
    }


PROVIDERS = [
    provider("alpha", "Alpha GPU", "neocloud",
             lock_in=[{"topic": "egress", "text": "Egress is free up to 1 TB a month.", "source": "pricing"}]),
    provider("beta", "Beta Cloud", "hyperscaler",
             lock_in=[{"topic": "exclusive_parts", "text": "Only Beta Cloud rents the Acme A2.", "source": "pricing"},
                      {"topic": "commitment", "text": "Reservations run for one or three years.", "source": "pricing"}]),
    provider("gamma", "Gamma Market", "marketplace"),
]


def offer(provider: str, accelerator: str, variant: str, instance: str, count: int, basis: str, pricing_: str,
          price: str, seen: str, currency: str = "USD", region: str = "", term: str = "", note: str = "") -> dict[str, Any]:
    """One CSV row of an offers file."""
    return {"provider": provider, "accelerator": accelerator, "variant": variant, "instance_type": instance,
            "accelerators_per_instance": count, "price_basis": basis, "pricing": pricing_, "term": term,
            "price_per_hour": price, "currency": currency, "region": region, "seen": seen,
            "source_url": f"https://{provider}.example/pricing", "note": note}


# Rows by their line in offers.csv (the header is line 1): O[2] … O[11] are their offer ids.
OFFERS = [
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1", 8, "instance", "on-demand", "98.32", "2026-11-01", region="us-east"),  # 2: 12.29
    offer("beta", "acme-a1", "A1 80GB", "a1.large", 1, "accelerator", "on-demand", "9.50", "2026-10-15", region="eu-west"),  # 3
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", "4.00", "2026-11-20"),  # 4: cheapest
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1 (old listing)", 1, "accelerator", "on-demand", "1.50", "2026-08-01"),  # 5: stale
    offer("alpha", "acme-a1", "A1 NVL 94GB", "1x A1 NVL", 1, "accelerator", "on-demand", "2.00", "2026-11-10"),  # 6: other variant
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1 spot", 8, "instance", "spot", "20.00", "2026-11-01", region="us-east"),  # 7: 2.50 spot
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1.8x.eu", 8, "instance", "on-demand", "72.00", "2026-11-01", currency="EUR", region="eu-west"),  # 8
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1 pod", 8, "bundle", "on-demand", "150.00", "2026-11-01"),  # 9: not separable
    offer("beta", "acme-a2", "A2", "a2.xlarge", 4, "instance", "on-demand", "30.00", "2026-11-01", region="eu-west"),  # 10: 7.50
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1 reserved", 8, "instance", "reserved", "64.00", "2026-11-01", term="1 year"),  # 11: 8.00
]


def offer_ids(rows: list[dict[str, Any]]) -> dict[int, str]:
    """The offer id of each row, by its line number in the CSV (the header is line 1)."""
    return {line: Offer.model_validate({**row, "file": "offers.csv", "row": line}).id for line, row in enumerate(rows, start=2)}


O = offer_ids(OFFERS)


def write_offers(folder: Path, rows: list[dict[str, Any]], name: str = "offers.csv", columns: list[str] = COLUMNS) -> Path:
    """Write ``rows`` as an offers CSV under ``folder/offers``."""
    (folder / "offers").mkdir(parents=True, exist_ok=True)
    path = folder / "offers" / name
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_cloud(folder: Path, rows: list[dict[str, Any]] = OFFERS, providers: list[dict[str, Any]] = PROVIDERS) -> Path:
    """The small catalog plus providers and offers: a complete data folder."""
    write_data(folder, SMALL_CATALOG)
    (folder / "providers").mkdir(exist_ok=True)
    for p in providers:
        (folder / "providers" / f"{p['id']}.toml").write_text(tomli_w.dumps(p), encoding="utf-8")
    write_offers(folder, rows)
    return folder


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Staleness is measured from 2026-11-30 whatever the machine's date."""
    monkeypatch.setattr(pricing, "today", lambda: TODAY)


@pytest.fixture(scope="module")
def cloud_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The small catalog with three providers and the ten offers above."""
    return load(write_cloud(tmp_path_factory.mktemp("cloud") / "data"), today=TODAY)


def problems(folder: Path) -> list[str]:
    return [str(p) for p in check(folder, today=TODAY)[1]]


# --- price per accelerator-hour ------------------------------------------------------


def test_an_8_accelerator_instance_price_is_divided_by_8(cloud_catalog: Catalog) -> None:
    p = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[2]])
    assert p.state == "derived"
    assert p.per_accelerator_hour == pytest.approx(12.29)  # 98.32 / 8
    assert p.arithmetic == "98.32 USD ÷ 8 = 12.29 USD per accelerator-hour"


def test_inexact_division_says_approximately_and_rounds_half_up(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data", [offer("alpha", "acme-a1", "A1", "12x", 12, "instance", "on-demand", "12.981", "2026-11-01")])
    catalog = load(folder, today=TODAY)
    p = pricing.offer_price(catalog, next(iter(catalog.offers.values())))
    assert p.arithmetic == "12.981 USD ÷ 12 ≈ 1.0818 USD per accelerator-hour"  # 1.08175 exactly


def test_per_accelerator_prices_are_kept_as_published(cloud_catalog: Catalog) -> None:
    p = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[3]])
    assert (p.state, p.per_accelerator_hour) == ("as published", 9.5)
    assert "as published" in p.arithmetic and "÷" not in p.arithmetic


def test_a_bundle_is_not_separable(cloud_catalog: Catalog) -> None:
    p = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[9]])
    assert p.state == "not separable" and p.per_accelerator_hour is None and p.display == "not separable"
    assert not p.usd_comparable


def test_non_usd_is_shown_in_its_currency_and_never_converted(cloud_catalog: Catalog) -> None:
    p = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[8]])
    assert p.arithmetic == "72.00 USD ÷ 8 = 9.00 USD per accelerator-hour".replace("USD", "EUR")
    assert not p.usd_comparable and "no exchange rate" in (p.currency_note or "")


def test_gpu_parts_are_priced_per_gpu_hour() -> None:
    catalog = load()
    coreweave = next(o for o in catalog.offers.values() if o.provider == "coreweave" and o.accelerator == "nvidia-h100-sxm" and o.pricing.value == "on-demand")
    assert pricing.offer_price(catalog, coreweave).arithmetic == "49.24 USD ÷ 8 = 6.155 USD per GPU-hour"


def test_stale_means_more_than_90_days(cloud_catalog: Catalog) -> None:
    stale = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[5]])
    assert (stale.age_days, stale.stale) == (121, True)  # 2026-08-01 → 2026-11-30
    fresh = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[3]])
    assert (fresh.age_days, fresh.stale) == (46, False)
    exactly_90 = pricing.offer_price(cloud_catalog, cloud_catalog.offers[O[3]], on=dt.date(2027, 1, 13))
    assert (exactly_90.age_days, exactly_90.stale) == (90, False)


# --- variants ------------------------------------------------------------------------


def test_variant_text_gives_form_and_memory_and_the_record_fills_the_rest(cloud_catalog: Catalog) -> None:
    acc = cloud_catalog.accelerators["acme-a1"]  # a "PCIe card" with 80 GB per the record
    assert variants.variant_of(cloud_catalog.offers[O[2]], acc).key == "pcie-80gb"
    filled = variants.variant_of(cloud_catalog.offers[O[3]], acc)  # "A1 80GB": no form stated
    assert (filled.label, filled.from_record) == ("PCIe 80 GB", ["form"])
    assert variants.variant_of(cloud_catalog.offers[O[6]], acc).label == "NVL 94 GB"


def test_memory_per_instance_is_divided_per_accelerator(cloud_catalog: Catalog) -> None:
    row = Offer.model_validate({**offer("alpha", "acme-a1", "H100, 640 GB HBM3 per instance", "p5", 8, "instance", "on-demand", "98.32", "2026-11-01"),
                                "file": "data/offers/x.csv", "row": 2}, context={"today": TODAY})
    assert variants.variant_of(row, cloud_catalog.accelerators["acme-a1"]).label == "PCIe 80 GB"  # 640 / 8


# --- the spread ----------------------------------------------------------------------


def test_spread_names_both_ends_and_their_ratio(cloud_catalog: Catalog) -> None:
    view = pricing.price_view(cloud_catalog, cloud_catalog.accelerators["acme-a1"])
    s = view.spread
    assert s.state == "computed" and s.variant and s.variant.key == "pcie-80gb"
    assert (s.cheapest.offer_id, s.cheapest.provider_name, s.cheapest.per_accelerator_hour, s.cheapest.seen) == (O[4], "Gamma Market", 4.0, dt.date(2026, 11, 20))
    assert (s.dearest.offer_id, s.dearest.provider_name, s.dearest.per_accelerator_hour) == (O[2], "Alpha GPU", pytest.approx(12.29))
    assert s.dearest.source_url == "https://alpha.example/pricing" and s.dearest.url == f"/cloud/alpha#offer-{O[2]}"
    assert s.ratio == pytest.approx(12.29 / 4.0)  # 3.0725
    assert s.ratio_text == "12.29 ÷ 4.00 ≈ 3.07×"
    assert s.counted == 3  # offers 2, 3 and 4


def test_every_left_out_offer_says_why(cloud_catalog: Catalog) -> None:
    rows = {r.offer.id: r for r in pricing.price_view(cloud_catalog, cloud_catalog.accelerators["acme-a1"]).rows}
    assert {i for i, r in rows.items() if r.in_spread} == {O[2], O[3], O[4]}
    assert rows[O[5]].excluded_because == "stale: seen 121 days ago (more than 90)"
    assert rows[O[6]].excluded_because == "another variant (NVL 94 GB)"
    assert rows[O[7]].excluded_because.startswith("spot price")
    assert rows[O[8]].excluded_because.startswith("priced in EUR")
    assert rows[O[9]].excluded_because.startswith("not separable")
    assert rows[O[11]].excluded_because.startswith("reserved price")


def test_stale_offers_are_excluded_unless_asked(cloud_catalog: Catalog) -> None:
    acc = cloud_catalog.accelerators["acme-a1"]
    with_stale = pricing.price_view(cloud_catalog, acc, pricing.PriceQuery(include_stale=True)).spread
    assert with_stale.cheapest.offer_id == O[5] and with_stale.cheapest.per_accelerator_hour == 1.5
    assert with_stale.ratio == pytest.approx(12.29 / 1.5)


def test_variants_are_not_mixed_unless_asked(cloud_catalog: Catalog) -> None:
    acc = cloud_catalog.accelerators["acme-a1"]
    mixed = pricing.price_view(cloud_catalog, acc, pricing.PriceQuery(variant="all")).spread
    assert mixed.all_variants and mixed.variant is None
    assert mixed.cheapest.offer_id == O[6] and mixed.ratio == pytest.approx(12.29 / 2.0)
    nvl = pricing.price_view(cloud_catalog, acc, pricing.PriceQuery(variant="nvl-94gb")).spread
    assert nvl.state == "single offer" and nvl.cheapest.offer_id == O[6] and nvl.ratio is None


def test_window_and_region_narrow_the_spread(cloud_catalog: Catalog) -> None:
    acc = cloud_catalog.accelerators["acme-a1"]
    window = pricing.price_view(cloud_catalog, acc, pricing.PriceQuery(since=dt.date(2026, 10, 1), until=dt.date(2026, 11, 10))).spread
    assert (window.cheapest.offer_id, window.dearest.offer_id) == (O[3], O[2])
    assert window.ratio == pytest.approx(12.29 / 9.5)
    region = pricing.price_view(cloud_catalog, acc, pricing.PriceQuery(region="eu-west")).spread
    assert region.state == "single offer" and region.cheapest.offer_id == O[3]


def test_unknown_variant_and_bad_parameters_are_named(cloud_catalog: Catalog) -> None:
    with pytest.raises(pricing.PricingQueryError, match="no variant 'sxm-80gb'; choose one of nvl-94gb, pcie-80gb"):
        pricing.price_view(cloud_catalog, cloud_catalog.accelerators["acme-a1"], pricing.PriceQuery(variant="sxm-80gb"))
    for params, words in (({"since": "2026-02-30"}, "'since'"), ({"pricing": "free"}, "'pricing'"),
                          ({"region": "mars"}, "'region'"), ({"provider": "nobody"}, "'provider'"),
                          ({"include_stale": "maybe"}, "'include_stale'"),
                          ({"since": "2026-11-02", "until": "2026-11-01"}, "is after")):
        with pytest.raises(pricing.PricingQueryError, match=words):
            pricing.parse_query(params, cloud_catalog)


def test_dot_positions_are_percent_of_the_scale(cloud_catalog: Catalog) -> None:
    view = pricing.price_view(cloud_catalog, cloud_catalog.accelerators["acme-a1"])
    assert view.scale_max == 13.0  # 12.29 rounded up
    positions = {r.offer.id: r.position for r in view.rows}
    assert positions[O[2]] == 95 and positions[O[4]] == 31  # 12.29/13, 4/13
    assert positions[O[8]] is None and positions[O[9]] is None  # EUR, bundle: not plotted


# --- bad data ------------------------------------------------------------------------


def bad(tmp_path: Path, **changes: str) -> list[str]:
    folder = write_cloud(tmp_path / "data", [{**OFFERS[0], **changes}])
    return problems(folder)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"provider": "nobody"}, "data/offers/offers.csv: row 2: provider: no such provider in data/providers/ (found 'nobody')"),
        ({"accelerator": "acme-z9"}, "data/offers/offers.csv: row 2: accelerator: no such accelerator in data/accelerators/ (found 'acme-z9')"),
        ({"price_per_hour": "0"}, "data/offers/offers.csv: row 2: price_per_hour: Input should be greater than 0"),
        ({"price_per_hour": "-4.5"}, "data/offers/offers.csv: row 2: price_per_hour: Input should be greater than 0 (found '-4.5')"),
        ({"price_per_hour": "inf"}, "data/offers/offers.csv: row 2: price_per_hour: a price must be a finite number (found 'inf')"),
        ({"price_per_hour": "$98.32"}, "row 2: price_per_hour: Input should be a valid number"),
        ({"accelerators_per_instance": ""}, "data/offers/offers.csv: row 2: accelerators_per_instance: Input should be a valid integer"),
        ({"accelerators_per_instance": "0"}, "row 2: accelerators_per_instance: Input should be greater than or equal to 1"),
        ({"seen": "2026-12-01"}, "row 2: (record): seen date 2026-12-01 is in the future (today is 2026-11-30)"),
        ({"currency": "usd"}, "row 2: currency: String should match pattern"),
        ({"pricing": "reserved"}, "a reserved price needs its term"),
    ],
)
def test_every_bad_offer_is_a_problem_naming_file_row_and_field(tmp_path: Path, changes: dict[str, str], expected: str) -> None:
    found = bad(tmp_path, **changes)
    assert len(found) == 1 and expected in found[0]


def test_a_missing_accelerators_per_instance_column_is_a_problem(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data", [])
    write_offers(folder, [OFFERS[0]], columns=[c for c in COLUMNS if c != "accelerators_per_instance"])
    assert problems(folder) == ["data/offers/offers.csv: (header): missing column(s) accelerators_per_instance"]


def test_non_usd_is_valid_kept_and_left_out_of_usd_comparisons(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data", [{**OFFERS[0], "currency": "EUR"}, OFFERS[2]])
    catalog = load(folder, today=TODAY)  # no problem: a non-USD price is data, not an error
    assert catalog.offers[O[2]].currency == "EUR"
    spread = pricing.price_view(catalog, catalog.accelerators["acme-a1"]).spread
    assert spread.state == "single offer" and spread.cheapest.offer_id == O[4]


def test_bad_offers_stop_load_the_app_and_validate(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data", [{**OFFERS[0], "provider": "nobody"}, {**OFFERS[1], "price_per_hour": "0"}])
    with pytest.raises(CatalogError) as info:
        load(folder, today=TODAY)
    assert len(info.value.problems) == 2
    with pytest.raises(CatalogError):
        create_app(load(folder, today=TODAY))
    result = CliRunner().invoke(cli, ["validate", "--data", str(folder)])
    assert result.exit_code == 1
    assert "row 2: provider: no such provider" in result.output and "row 3: price_per_hour" in result.output


# --- large prices and comma-separated filters (tester's findings) ----------------------


def _with_price(catalog: Catalog, ident: str, price: float) -> Catalog:
    """``catalog`` with offer ``ident`` re-priced, past the model's own limit if asked."""
    import dataclasses

    offers = {**catalog.offers, ident: catalog.offers[ident].model_copy(update={"price_per_hour": price})}
    return dataclasses.replace(catalog, collections={**catalog.collections, "offers": offers})


def _offer_id(catalog: Catalog, instance: str) -> str:
    return next(i for i, o in catalog.offers.items() if o.instance_type == instance)


def test_amount_text_never_fails_on_a_large_amount() -> None:
    from decimal import Decimal

    assert pricing.amount_text(1e24) == "1" + "0" * 24 + ".00"
    assert pricing.amount_text(1e300) == "1" + "0" * 300 + ".00"
    assert pricing.amount_text(Decimal("12345678901234567890123456789.123456")) == "12345678901234567890123456789.1235"
    assert pricing.amount_text(float("inf")) == "not a finite number"


def test_a_large_but_valid_price_is_divided_exactly(cloud_catalog: Catalog) -> None:
    catalog = _with_price(cloud_catalog, _offer_id(cloud_catalog, "8x A1"), 9_999_999.99)  # within the 1e7 limit
    p = pricing.offer_price(catalog, catalog.offers[_offer_id(catalog, "8x A1")])
    assert p.arithmetic == "9999999.99 USD ÷ 8 ≈ 1249999.9988 USD per accelerator-hour"  # 1249999.99875
    huge = _with_price(cloud_catalog, _offer_id(cloud_catalog, "8x A1"), 1e300)  # beyond any limit: still no crash
    p = pricing.offer_price(huge, huge.offers[_offer_id(huge, "8x A1")])
    assert p.arithmetic == f"1{'0' * 300}.00 USD ÷ 8 = 125{'0' * 297}.00 USD per accelerator-hour"
    view = pricing.price_view(huge, huge.accelerators["acme-a1"])
    assert view.spread.dearest and view.spread.dearest.per_accelerator_hour == 1.25e299
    assert all(r.position is None or 0 <= r.position <= 100 for r in view.rows)


def test_list_filters_take_comma_separated_values(cloud_catalog: Catalog) -> None:
    query = pricing.parse_query({"provider": "alpha, gamma", "pricing": "on-demand,spot", "region": ""}, cloud_catalog)
    assert query.values("provider") == ("alpha", "gamma") and query.params()["provider"] == "alpha,gamma"
    assert query.params()["pricing"] == "on-demand,spot"
    rows = pricing.offer_prices(cloud_catalog, query)
    assert {r.provider for r in rows} == {"alpha", "gamma"} and {r.pricing.value for r in rows} == {"on-demand", "spot"}
    assert len(rows) == 5  # alpha: 8x A1, 1x A1 NVL, 8x A1 spot; gamma: 1x A1 and the old listing
    assert pricing.parse_query({"provider": "alpha"}, cloud_catalog).provider == "alpha"  # one value stays one value
    regions = pricing.parse_query({"region": "eu-west,us-east"}, cloud_catalog)
    assert {r.region for r in pricing.offer_prices(cloud_catalog, regions)} == {"eu-west", "us-east"}
    with pytest.raises(pricing.PricingQueryError, match="parameter 'provider': no provider with id 'nobody'"):
        pricing.parse_query({"provider": "alpha,nobody"}, cloud_catalog)
    with pytest.raises(pricing.PricingQueryError, match="parameter 'pricing': 'free' is not one of"):
        pricing.parse_query({"pricing": "spot,free"}, cloud_catalog)


def test_a_repeated_parameter_is_an_error_that_says_to_use_commas(cloud_catalog: Catalog) -> None:
    with pytest.raises(pricing.PricingQueryError, match=r"parameter 'provider': given more than once; .*comma-separated list \(provider=a,b\)"):
        pricing.parse_query([("provider", "alpha"), ("provider", "beta")], cloud_catalog)
    with pytest.raises(pricing.PricingQueryError, match="parameter 'since': given more than once; give it once"):
        pricing.parse_query([("since", "2026-01-01"), ("since", "2026-02-01")], cloud_catalog)
