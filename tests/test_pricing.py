"""Prices per accelerator-hour, variants, the spread, and every bad-data case of offers.

The fixed test offers below are priced for the small catalog's parts and imported into a
small observation store (``cloud_folder``/prices) the way ``computeatlas prices import
offers`` imports ``data/offers``; every page and figure reads them from that store. Every
expected figure is worked by hand from them (e.g. 98.32 USD ÷ 8 = 12.29). "Now" is
2026-11-30 12:00 UTC, so an offer seen on or before 2026-08-31 (more than 90 days earlier)
is stale.
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from computeatlas.catalog import Catalog, CatalogError, check, load
from computeatlas.cli import app as cli
from computeatlas.cloud import history, offer_words, pricing, queries, rules, variants
from computeatlas.cloud.cheapest_price import cheapest_price
from computeatlas.cloud.import_summary import Summary
from computeatlas.cloud.instances import instance_table
from computeatlas.cloud.offers import OfferPrice, current_offers, offer_price, regions_of, unlinked
from computeatlas.cloud.rates import Rate, RateTable
from computeatlas.cloud.records import Offer
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.states import State
from computeatlas.pages.cloud_links import offer_page
from computeatlas.web.app import create_app
from tests.conftest import CliRunner

from .conftest import SMALL_CATALOG, TODAY, write_data

COLUMNS = [
    "provider",
    "accelerator",
    "variant",
    "instance_type",
    "accelerators_per_instance",
    "price_basis",
    "pricing",
    "term",
    "price_per_hour",
    "currency",
    "region",
    "seen",
    "source_url",
    "note",
]


def provider(ident: str, name: str, kind: str, **extra: Any) -> dict[str, Any]:
    """A valid provider record (as its TOML file holds it)."""
    return {
        "id": ident,
        "name": name,
        "kind": kind,
        "url": f"https://{ident}.example/",
        "regions": ["US", "EU"],
        "summary": f"{name} rents test accelerators.",
        "verified": "2026-11-01",
        "sources": {
            "pricing": {
                "title": f"{name} pricing",
                "url": f"https://{ident}.example/pricing",
                "publisher": name,
                "kind": "vendor",
                "accessed": "2026-11-01",
            }
        },
        **extra,
    }


PROVIDERS = [
    provider(
        "alpha", "Alpha GPU", "neocloud", lock_in=[{"topic": "egress", "text": "Egress is free up to 1 TB a month.", "source": "pricing"}]
    ),
    provider(
        "beta",
        "Beta Cloud",
        "hyperscaler",
        lock_in=[
            {"topic": "exclusive_parts", "text": "Only Beta Cloud rents the Acme A2.", "source": "pricing"},
            {"topic": "commitment", "text": "Reservations run for one or three years.", "source": "pricing"},
        ],
    ),
    provider("gamma", "Gamma Market", "marketplace"),
]


def offer(
    provider: str,
    accelerator: str,
    variant: str,
    instance: str,
    count: int,
    basis: str,
    pricing_: str,
    price: str,
    seen: str,
    currency: str = "USD",
    region: str = "",
    term: str = "",
    note: str = "",
) -> dict[str, Any]:
    """One CSV row of an offers file."""
    return {
        "provider": provider,
        "accelerator": accelerator,
        "variant": variant,
        "instance_type": instance,
        "accelerators_per_instance": count,
        "price_basis": basis,
        "pricing": pricing_,
        "term": term,
        "price_per_hour": price,
        "currency": currency,
        "region": region,
        "seen": seen,
        "source_url": f"https://{provider}.example/pricing",
        "note": note,
    }


# Rows by their line in offers.csv (the header is line 1): O[2] … O[11] are their offer ids.
OFFERS = [
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1", 8, "instance", "on-demand", "98.32", "2026-11-01", region="us-east"),  # 2: 12.29
    offer("beta", "acme-a1", "A1 80GB", "a1.large", 1, "accelerator", "on-demand", "9.50", "2026-10-15", region="eu-west"),  # 3
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", "4.00", "2026-11-20"),  # 4: cheapest
    offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1 (old listing)", 1, "accelerator", "on-demand", "1.50", "2026-08-01"),  # 5: stale
    offer("alpha", "acme-a1", "A1 NVL 94GB", "1x A1 NVL", 1, "accelerator", "on-demand", "2.00", "2026-11-10"),  # 6: other variant
    offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1 spot", 8, "instance", "spot", "20.00", "2026-11-01", region="us-east"),  # 7: 2.50 spot
    offer(
        "beta", "acme-a1", "A1 PCIe 80GB", "a1.8x.eu", 8, "instance", "on-demand", "72.00", "2026-11-01", currency="EUR", region="eu-west"
    ),  # 8
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1 pod", 8, "bundle", "on-demand", "150.00", "2026-11-01"),  # 9: not separable
    offer("beta", "acme-a2", "A2", "a2.xlarge", 4, "instance", "on-demand", "30.00", "2026-11-01", region="eu-west"),  # 10: 7.50
    offer("beta", "acme-a1", "A1 PCIe 80GB", "a1 reserved", 8, "instance", "reserved", "64.00", "2026-11-01", term="1 year"),  # 11: 8.00
]


def offer_ids(rows: list[dict[str, Any]]) -> dict[int, str]:
    """The offer id of each row, by its line number in the CSV (the header is line 1)."""
    return {line: Offer.model_validate({**row, "file": "offers.csv", "row": line}).id for line, row in enumerate(rows, start=2)}


O = offer_ids(OFFERS)  # noqa: E741 - the offer ids, read as O["..."] throughout


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


NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
"""The moment prices are read at in these tests."""


IMPORT_RATES = RateTable([Rate(dt.date(2026, 10, 1), "EUR", 1.08, "https://www.ecb.europa.eu/stats/", "ECB euro reference rates")])
"""The rate the import checks the EUR offer's bounds with (a non-USD price without one is
held as ``no_rate``); the pages of these tests have no rate table, so they show it in euros."""


def import_offers(folder: Path, catalog: Catalog, now: dt.datetime = NOW) -> Summary:
    """Import ``folder``'s offers CSVs into its store (``folder/prices``), as ``prices import offers`` does."""
    return import_readings(
        "offers",
        sorted((folder / "offers").glob("*.csv")),
        Store(folder / "prices"),
        instance_table(catalog),
        IMPORT_RATES,
        rules.Limits(),
        now=now,
    )


def priced_cloud(folder: Path, rows: list[dict[str, Any]] = OFFERS) -> tuple[Catalog, Store]:
    """``write_cloud`` with ``rows``, loaded, and the rows imported into the folder's store."""
    catalog = load(write_cloud(folder, rows), today=TODAY)
    import_offers(folder, catalog)
    return catalog, Store(folder / "prices")


def listed(catalog: Catalog, store: Store, now: dt.datetime = NOW, **options: Any) -> dict[str, OfferPrice]:
    """Every offer's newest observation (stale ones too), priced as of ``now``, by offer id."""
    return {o.id: o for o in current_offers(catalog, store, now, include_stale=True, **options, link=offer_page)}


def view_of(catalog: Catalog, store: Store, query: queries.PriceQuery | None = None, ident: str = "acme-a1") -> pricing.PriceView:
    """The price view of ``ident`` over every offer in ``store`` (stale ones listed, as the CLI's --include-stale lists them)."""
    return pricing.price_view(catalog.accelerators[ident], list(listed(catalog, store).values()), query, NOW.date())


@pytest.fixture(autouse=True)
def fixed_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """Staleness is measured from 2026-11-30 12:00 UTC whatever the machine's clock."""
    monkeypatch.setattr(history, "utcnow", lambda: NOW)


@pytest.fixture(scope="module")
def cloud_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small catalog with three providers and the ten offers above, imported into ``prices/``."""
    folder = tmp_path_factory.mktemp("cloud") / "data"
    priced_cloud(folder)
    return folder


@pytest.fixture(scope="module")
def cloud_catalog(cloud_folder: Path) -> Catalog:
    """The small catalog with three providers and the ten offers above."""
    return load(cloud_folder, today=TODAY)


@pytest.fixture(scope="module")
def cloud_store(cloud_folder: Path) -> Store:
    """The store the ten offers were imported into (the bundle offer is rejected: 9 rows)."""
    return Store(cloud_folder / "prices")


@pytest.fixture(scope="module")
def offers(cloud_catalog: Catalog, cloud_store: Store) -> dict[str, OfferPrice]:
    """Every offer of ``cloud_store`` priced as of :data:`NOW`, by id."""
    return listed(cloud_catalog, cloud_store)


def problems(folder: Path) -> list[str]:
    return [str(p) for p in check(folder, today=TODAY)[1]]


# --- price per accelerator-hour ------------------------------------------------------


def test_an_8_accelerator_instance_price_is_divided_by_8(offers: dict[str, OfferPrice]) -> None:
    p = offers[O[2]]
    assert p.state == "derived"
    assert p.per_accelerator_hour == pytest.approx(12.29)  # 98.32 / 8
    assert p.arithmetic == "98.32 USD ÷ 8 = 12.29 USD per accelerator-hour"


def test_inexact_division_says_approximately_and_rounds_half_up(tmp_path: Path) -> None:
    catalog, store = priced_cloud(
        tmp_path / "data", [offer("alpha", "acme-a1", "A1", "12x", 12, "instance", "on-demand", "12.981", "2026-11-01")]
    )
    (p,) = listed(catalog, store).values()
    assert p.arithmetic == "12.981 USD ÷ 12 ≈ 1.0818 USD per accelerator-hour"  # 1.08175 exactly


def test_one_published_price_on_several_offers_is_worked_out_for_each(tmp_path: Path) -> None:
    rows = [
        offer("alpha", "acme-a1", "A1 PCIe 80GB", "8x A1", 8, "instance", "on-demand", "98.32", "2026-11-01"),
        offer("alpha", "acme-a1", "A1 PCIe 80GB", "4x A1", 4, "instance", "on-demand", "98.32", "2026-11-01"),
        offer("beta", "acme-a1", "A1 PCIe 80GB", "a1.metal", 1, "accelerator", "on-demand", "98.32", "2026-11-01"),
    ]
    catalog, store = priced_cloud(tmp_path / "data", rows)
    arithmetic = {p.instance_type: (p.provider_name, p.arithmetic) for p in listed(catalog, store).values()}
    assert arithmetic == {
        "8x A1": ("Alpha GPU", "98.32 USD ÷ 8 = 12.29 USD per accelerator-hour"),
        "4x A1": ("Alpha GPU", "98.32 USD ÷ 4 = 24.58 USD per accelerator-hour"),
        "a1.metal": ("Beta Cloud", "98.32 USD per accelerator-hour, as published (no division)"),
    }


def test_per_accelerator_prices_are_kept_as_published(offers: dict[str, OfferPrice]) -> None:
    p = offers[O[3]]
    assert (p.state, p.per_accelerator_hour) == (State.PUBLISHED, 9.5)
    assert "as published" in p.arithmetic and "÷" not in p.arithmetic


def test_a_bundle_never_becomes_a_price(tmp_path: Path, offers: dict[str, OfferPrice]) -> None:
    assert O[9] not in offers and len(offers) == 9  # the ten rows less the bundle
    catalog = load(write_cloud(tmp_path / "data"), today=TODAY)
    summary = import_offers(tmp_path / "data", catalog)
    assert (summary.accepted, summary.rejected) == (9, 1)
    assert summary.errors[0].line == 9 and "only instance or accelerator prices become observations" in str(summary.errors[0])


def test_non_usd_is_shown_in_its_currency_and_never_converted(offers: dict[str, OfferPrice]) -> None:
    p = offers[O[8]]
    assert p.arithmetic == "72.00 EUR ÷ 8 = 9.00 EUR per accelerator-hour"
    assert not p.usd_comparable and "no exchange rate" in (p.currency_note or "")


def test_gpu_parts_are_priced_per_gpu_hour(real_catalog: Catalog) -> None:
    now = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
    found = listed(real_catalog, Store(Path("data/prices")), now, accelerator="nvidia-h100-sxm").values()
    coreweave = next(o for o in found if o.provider == "coreweave" and o.pricing.value == "on-demand")
    assert coreweave.arithmetic == "49.24 USD ÷ 8 = 6.155 USD per GPU-hour"  # data/offers/neoclouds.csv, imported


def test_stale_means_more_than_90_days(cloud_catalog: Catalog, cloud_store: Store, offers: dict[str, OfferPrice]) -> None:
    assert (offers[O[5]].age_days, offers[O[5]].stale) == (121, True)  # 2026-08-01 → 2026-11-30
    assert (offers[O[3]].age_days, offers[O[3]].stale) == (46, False)
    exactly_90 = listed(cloud_catalog, cloud_store, dt.datetime(2027, 1, 13, 12, tzinfo=dt.UTC))[O[3]]
    assert (exactly_90.age_days, exactly_90.stale) == (90, False)
    fresh = {o.id for o in current_offers(cloud_catalog, cloud_store, NOW, link=offer_page)}  # the default window: 90 days
    assert O[5] not in fresh and O[3] in fresh


# --- variants ------------------------------------------------------------------------


def test_the_variant_is_what_the_provider_states_never_the_record(offers: dict[str, OfferPrice]) -> None:
    assert offers[O[2]].variant.key == "pcie-80gb" and offers[O[2]].variant.label == "PCIe 80 GB"
    stated = offers[O[3]].variant  # "A1 80GB": no form stated, none taken from the record
    assert (stated.key, stated.label, offers[O[3]].variant_published) == ("80gb", "80 GB", "A1 80GB")
    assert offers[O[6]].variant.label == "NVL 94 GB"
    # "A2": acme-a2 exists in one variant only (no sibling record), so its offers are that variant, as placement decides
    assert offers[O[10]].variant.label == "PCIe 144 GB"


def test_memory_per_instance_is_divided_per_accelerator(cloud_catalog: Catalog) -> None:
    row = Offer.model_validate(
        {
            **offer("alpha", "acme-a1", "H100, 640 GB HBM3 per instance", "p5", 8, "instance", "on-demand", "98.32", "2026-11-01"),
            "file": "data/offers/x.csv",
            "row": 2,
        },
        context={"today": TODAY},
    )
    assert variants.variant_of(row, cloud_catalog.accelerators["acme-a1"]).label == "PCIe 80 GB"  # 640 / 8


# --- the spread ----------------------------------------------------------------------


def test_spread_names_both_ends_and_their_ratio(cloud_catalog: Catalog, cloud_store: Store) -> None:
    s = view_of(cloud_catalog, cloud_store).spread
    assert s.state is State.DERIVED and s.variant and s.variant.key == "pcie-80gb"
    assert (s.cheapest.offer_id, s.cheapest.provider_name, s.cheapest.per_accelerator_hour, s.cheapest.seen) == (
        O[4],
        "Gamma Market",
        4.0,
        dt.date(2026, 11, 20),
    )
    assert (s.dearest.offer_id, s.dearest.provider_name, s.dearest.per_accelerator_hour) == (O[2], "Alpha GPU", pytest.approx(12.29))
    assert s.dearest.source_url == "https://alpha.example/pricing" and s.dearest.url == f"/cloud/alpha#offer-{O[2]}"
    assert s.ratio == pytest.approx(12.29 / 4.0)  # 3.0725
    assert s.ratio_text == "12.29 ÷ 4.00 ≈ 3.07×"
    assert s.counted == 2  # offers 2 and 4 (offer 3 states "80GB" without the form: another variant)


def test_every_left_out_offer_says_why(cloud_catalog: Catalog, cloud_store: Store) -> None:
    rows = {r.offer.id: r for r in view_of(cloud_catalog, cloud_store).rows}
    assert {i for i, r in rows.items() if r.in_spread} == {O[2], O[4]}
    assert rows[O[3]].excluded_because == "another variant (80 GB)"
    assert rows[O[5]].excluded_because == "not current: seen 121 days ago (more than 90)"
    assert rows[O[6]].excluded_because == "another variant (NVL 94 GB)"
    assert rows[O[7]].excluded_because.startswith("spot price")
    assert rows[O[8]].excluded_because.startswith("priced in EUR")
    assert rows[O[11]].excluded_because.startswith("reserved price")


def test_stale_offers_are_excluded_unless_asked(cloud_catalog: Catalog, cloud_store: Store) -> None:
    with_stale = view_of(cloud_catalog, cloud_store, queries.PriceQuery(include_stale=True)).spread
    assert with_stale.cheapest.offer_id == O[5] and with_stale.cheapest.per_accelerator_hour == 1.5
    assert with_stale.ratio == pytest.approx(12.29 / 1.5)


def test_variants_are_not_mixed_unless_asked(cloud_catalog: Catalog, cloud_store: Store) -> None:
    mixed = view_of(cloud_catalog, cloud_store, queries.PriceQuery(variant="all")).spread
    assert mixed.all_variants and mixed.variant is None
    assert mixed.cheapest.offer_id == O[6] and mixed.ratio == pytest.approx(12.29 / 2.0)
    nvl = view_of(cloud_catalog, cloud_store, queries.PriceQuery(variant="nvl-94gb")).spread
    assert nvl.state is State.SINGLE_OFFER and nvl.cheapest.offer_id == O[6] and nvl.ratio is None


def test_window_and_region_narrow_the_spread(cloud_catalog: Catalog, cloud_store: Store) -> None:
    window = view_of(cloud_catalog, cloud_store, queries.PriceQuery(since=dt.date(2026, 10, 1), until=dt.date(2026, 11, 10))).spread
    assert window.state is State.SINGLE_OFFER and window.cheapest.offer_id == O[2]  # offer 4 (2026-11-20) is after the window
    region = view_of(cloud_catalog, cloud_store, queries.PriceQuery(region="us-east")).spread
    assert region.state is State.SINGLE_OFFER and region.cheapest.offer_id == O[2]


def test_unknown_variant_and_bad_parameters_are_named(cloud_catalog: Catalog, cloud_store: Store, offers: dict[str, OfferPrice]) -> None:
    with pytest.raises(queries.PricingQueryError, match="no variant 'sxm-80gb'; choose one of 80gb, nvl-94gb, pcie-80gb"):
        view_of(cloud_catalog, cloud_store, queries.PriceQuery(variant="sxm-80gb"))
    regions = lambda q: regions_of(offers.values())
    for params, words in (
        ({"since": "2026-02-30"}, "'since'"),
        ({"pricing": "free"}, "'pricing'"),
        ({"region": "mars"}, "'region'"),
        ({"provider": "nobody"}, "'provider'"),
        ({"include_stale": "maybe"}, "'include_stale'"),
        ({"since": "2026-11-02", "until": "2026-11-01"}, "is after"),
    ):
        with pytest.raises(queries.PricingQueryError, match=words):
            queries.parse_query(params, cloud_catalog, regions=regions)


def test_dot_positions_are_percent_of_the_scale(cloud_catalog: Catalog, cloud_store: Store) -> None:
    view = view_of(cloud_catalog, cloud_store)
    assert view.scale_max == 13.0  # 12.29 rounded up
    positions = {r.offer.id: r.position for r in view.rows}
    assert positions[O[2]] == 95 and positions[O[4]] == 31  # 12.29/13, 4/13
    assert positions[O[8]] is None  # EUR: not plotted


def test_the_cheapest_fresh_on_demand_price_is_named_and_dated(cloud_catalog: Catalog, cloud_store: Store) -> None:
    found = cheapest_price(cloud_store, "acme-a1", NOW, catalog=cloud_catalog)
    assert found is not None and found.current
    assert (found.variant, found.per_accelerator_hour, found.provider, found.offer_id, found.counted) == (
        "pcie-80gb",
        4.0,
        "gamma",
        O[4],
        2,
    )
    assert found.collected == dt.datetime(2026, 11, 20, tzinfo=dt.UTC) and found.source_url == "https://gamma.example/pricing"
    nvl = cheapest_price(cloud_store, "acme-a1", NOW, variant="nvl-94gb", catalog=cloud_catalog)
    assert nvl is not None and (nvl.per_accelerator_hour, nvl.offer_id) == (2.0, O[6])
    later = cheapest_price(cloud_store, "acme-a1", dt.datetime(2027, 2, 1, tzinfo=dt.UTC), variant="pcie-80gb", catalog=cloud_catalog)
    assert later is not None and later.offer_id == O[4]  # 2026-11-20 is 73 days before; offer 2 (2026-11-01) is 92: stale
    assert later.counted == 1
    june = dt.datetime(2027, 6, 1, tzinfo=dt.UTC)
    assert cheapest_price(cloud_store, "acme-a1", june, catalog=cloud_catalog) is None  # all stale: no current price
    old = cheapest_price(cloud_store, "acme-a1", june, catalog=cloud_catalog, current_only=False)
    assert old is not None and not old.current and old.offer_id == O[4]  # the newest the rule takes, shown as old
    assert old.seen == "last seen 2026-11-20, 193 days ago" and old.age_days == 193
    # acme-a2 exists in one variant only, so its one offer (which states none) is that variant (30.00 USD ÷ 4 accelerators = 7.50)
    a2 = cheapest_price(cloud_store, "acme-a2", NOW, catalog=cloud_catalog)
    assert a2 is not None and (a2.variant, a2.per_accelerator_hour, a2.counted) == ("pcie-144gb", 7.5, 1)
    # without the catalog nothing says it has one variant: a variant not stated never counts
    assert cheapest_price(cloud_store, "acme-a2", NOW) is None


# --- bad data ------------------------------------------------------------------------


def bad(tmp_path: Path, **changes: str) -> list[str]:
    folder = write_cloud(tmp_path / "data", [{**OFFERS[0], **changes}])
    return problems(folder)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"provider": "nobody"}, "data/offers/offers.csv: row 2: provider: no such provider in data/providers/ (found 'nobody')"),
        (
            {"accelerator": "acme-z9"},
            "data/offers/offers.csv: row 2: accelerator: no such accelerator in data/accelerators/ (found 'acme-z9')",
        ),
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
    catalog, store = priced_cloud(tmp_path / "data", [{**OFFERS[0], "currency": "EUR"}, OFFERS[2]])  # a non-USD price is data
    assert listed(catalog, store)[O[2]].currency == "EUR"
    spread = view_of(catalog, store).spread
    assert spread.state is State.SINGLE_OFFER and spread.cheapest.offer_id == O[4]


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


def test_amount_text_never_fails_on_a_large_amount() -> None:
    from decimal import Decimal

    assert offer_words.amount_text(1e24) == "1" + "0" * 24 + ".00"
    assert offer_words.amount_text(1e300) == "1" + "0" * 300 + ".00"
    assert offer_words.amount_text(Decimal("12345678901234567890123456789.123456")) == "12345678901234567890123456789.1235"
    assert offer_words.amount_text(float("inf")) == "not a finite number"


def test_a_large_but_valid_price_is_divided_exactly(tmp_path: Path) -> None:
    catalog, store = priced_cloud(tmp_path / "large", [{**OFFERS[0], "price_per_hour": "7999.99"}])  # 999.99875: just in the ceiling
    assert listed(catalog, store)[O[2]].arithmetic == "7999.99 USD ÷ 8 ≈ 999.9988 USD per accelerator-hour"
    catalog, store = priced_cloud(tmp_path / "absurd", [{**OFFERS[0], "price_per_hour": "9999999.99"}])  # 1,249,999.99875 an hour
    assert O[2] not in listed(catalog, store) and [r["rules"] for r in store.held()] == [["above_ceiling"]]
    huge = {
        "provider": "alpha",
        "instance_type": "8x A1",
        "region": "us-east",
        "pricing": "on_demand",
        "term": "",
        "amount": 1e300,
        "currency": "USD",
        "unit": "hour",
        "price_basis": "instance",
        "accelerators": 8,
        "stated_accelerators": 8,
        "collected": dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        "accelerator": "acme-a1",
        "variant": "pcie-80gb",
        "source_url": "https://alpha.example/pricing",
        "via": "test",
        "note": "",
        "raw_extra": "",
        "run": "r",
    }  # beyond any limit
    p = offer_price(catalog, huge, NOW, link=unlinked)
    assert p.url == ""  # the cloud layer links nothing itself: the caller's link gives the page
    assert offer_price(catalog, huge, NOW, link=lambda provider, offer: f"{provider}|{offer}").url == f"alpha|{p.id}"
    assert p.arithmetic == f"1{'0' * 300}.00 USD ÷ 8 = 125{'0' * 297}.00 USD per accelerator-hour"
    view = pricing.price_view(catalog.accelerators["acme-a1"], [p, *listed(catalog, store).values()], None, NOW.date())
    assert view.spread.dearest and view.spread.dearest.per_accelerator_hour == 1.25e299
    assert all(r.position is None or 0 <= r.position <= 100 for r in view.rows)


def test_list_filters_take_comma_separated_values(cloud_catalog: Catalog, offers: dict[str, OfferPrice]) -> None:
    regions = lambda q: regions_of(offers.values())
    query = queries.parse_query({"provider": "alpha, gamma", "pricing": "on-demand,spot", "region": ""}, cloud_catalog, regions=regions)
    assert query.values("provider") == ("alpha", "gamma") and query.params()["provider"] == "alpha,gamma"
    assert query.params()["pricing"] == "on-demand,spot"
    rows = [o for o in offers.values() if queries.matches(o, query)]
    assert {r.provider for r in rows} == {"alpha", "gamma"} and {r.pricing.value for r in rows} == {"on-demand", "spot"}
    assert len(rows) == 5  # alpha: 8x A1, 1x A1 NVL, 8x A1 spot; gamma: 1x A1 and the old listing
    assert queries.parse_query({"provider": "alpha"}, cloud_catalog).provider == "alpha"  # one value stays one value
    both = queries.parse_query({"region": "EU-west,us-east"}, cloud_catalog, regions=regions)
    assert both.region == ("eu-west", "us-east")  # as the offers spell them
    assert {r.region for r in offers.values() if queries.matches(r, both)} == {"eu-west", "us-east"}
    with pytest.raises(queries.PricingQueryError, match="parameter 'region': no current offer lists region 'mars'"):
        queries.parse_query({"region": "eu-west,mars"}, cloud_catalog, regions=regions)
    with pytest.raises(queries.PricingQueryError, match="parameter 'provider': no provider with id 'nobody'"):
        queries.parse_query({"provider": "alpha,nobody"}, cloud_catalog)
    with pytest.raises(queries.PricingQueryError, match="parameter 'pricing': 'free' is not one of"):
        queries.parse_query({"pricing": "spot,free"}, cloud_catalog)


def test_a_repeated_parameter_is_an_error_that_says_to_use_commas(cloud_catalog: Catalog) -> None:
    with pytest.raises(
        queries.PricingQueryError, match=r"parameter 'provider': given more than once; .*comma-separated list \(provider=a,b\)"
    ):
        queries.parse_query([("provider", "alpha"), ("provider", "beta")], cloud_catalog)
    with pytest.raises(queries.PricingQueryError, match="parameter 'since': given more than once; give it once"):
        queries.parse_query([("since", "2026-01-01"), ("since", "2026-02-01")], cloud_catalog)
