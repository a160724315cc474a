"""Where a source was read: the maker's own hosts (from data/vendors/), or a marked copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, check, load
from computeatlas.core.presentation import where_read
from computeatlas.core.provenance import MakerHosts, ReadAt, owns, read_from
from computeatlas.publish.exports.silicon_table import SOURCE_COLUMNS, build
from computeatlas.web.app import create_app

from .conftest import TODAY, VENDORS, make_record, write_data

NVIDIA = MakerHosts(github=["NVIDIA"], mlperf=["NVIDIA"])
AMD = MakerHosts(domains=["amd.com"], github=["ROCm"], mlperf=["AMD"])

# A vendor document as a record cites it: AMD's white paper, read from a Markdown conversion in
# someone's GitHub repository (the shape the audit found on 64 figures).
CONVERSION = {
    "title": "Acme A1 white paper",
    "url": "https://github.com/kuhar/amdgpu-isa-manuals/blob/0266938/cdna3/whitepaper.md",
    "publisher": "Acme",
    "kind": "vendor",
    "copy_form": "conversion",
    "copy_of": "https://acme.example/a1-white-paper.pdf",
    "accessed": "2026-11-01",
}


def problems_for(tmp_path: Path, *records: dict) -> list[str]:
    _, problems = check(write_data(tmp_path / "data", records), today=TODAY)
    return [str(p) for p in problems]


@pytest.mark.parametrize(
    ("hosts", "url", "expected"),
    [
        (NVIDIA, "https://www.nvidia.com/", True),  # the vendor url's own domain always counts
        (NVIDIA, "https://docs.nvidia.com/cuda/x.html", True),  # a subdomain
        (NVIDIA, "https://nvidia.com.evil.example/x", False),  # a lookalike is not a subdomain
        (NVIDIA, "https://nvidia.github.io/TransformerEngine/support_matrix.html", True),  # the org's GitHub Pages
        (NVIDIA, "https://github.com/NVIDIA/dgxc-benchmarking/blob/abc/README.md", True),
        (NVIDIA, "https://github.com/atineoSE/coding-model-seeks-gpu/blob/e527ad9/pipeline/gb200_specs.md", False),  # a personal repo
        (NVIDIA, "https://github.com/mlcommons/inference_results_v4.1/blob/main/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT.json", True),
        (NVIDIA, "https://github.com/mlcommons/training_results_v0.7/blob/c664061/NVIDIA/systems/dgx1_ngc20.06_pytorch.json", True),
        # Crusoe's submission of an NVIDIA system is Crusoe's document, not NVIDIA's
        (NVIDIA, "https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/main/closed/Crusoe/systems/GB200.json", False),
        (AMD, "https://rocm.docs.amd.com/en/latest/reference/precision-support.html", True),
        (AMD, "https://github.com/prbasyal-amd/ROCm/blob/245d7ce/docs/reference/precision-support.rst", False),  # a fork
        (AMD, "https://www.sgpjbg.com/baogao/465006.html", False),  # a slide-mirror site
    ],
)
def test_maker_hosted_is_derived_from_the_host(hosts: MakerHosts, url: str, expected: bool) -> None:
    vendor_url = "https://www.nvidia.com/" if hosts is NVIDIA else "https://www.amd.com/"
    assert owns(hosts, vendor_url, url) is expected


def test_where_a_copy_was_read_in_words() -> None:
    assert read_from("https://github.com/kuhar/amdgpu-isa-manuals/blob/0266938/cdna3/whitepaper.md") == "github.com/kuhar"
    assert read_from("https://www.sgpjbg.com/baogao/465006.html") == "sgpjbg.com"
    assert where_read(CONVERSION["url"], "conversion") == "read from an unofficial conversion at github.com/kuhar"
    assert where_read("https://www.sgpjbg.com/baogao/465006.html", "verbatim") == "read from a copy at sgpjbg.com"
    assert where_read("https://acme.example/sheet.pdf", None) is None


def test_a_vendor_source_off_the_makers_hosts_must_be_marked_a_copy(tmp_path: Path) -> None:
    unmarked = {k: v for k, v in CONVERSION.items() if k not in ("copy_form", "copy_of")}
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": unmarked}, specs__power={**_power(), "source": "wp"})
    problems = problems_for(tmp_path, record)
    assert len(problems) == 1
    assert problems[0].startswith(
        "data/accelerators/acme-a1.toml: sources.wp.url: a vendor source read at github.com/kuhar, "
        "which is not one of Acme Silicon's hosts (data/vendors/acme.toml)"
    )


def test_a_copy_on_the_makers_own_host_is_not_a_copy(tmp_path: Path) -> None:
    on_site = {**CONVERSION, "url": "https://docs.acme.example/a1.html"}
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": on_site})
    assert problems_for(tmp_path, record) == [
        "data/accelerators/acme-a1.toml: sources.wp.copy_form: docs.acme.example is Acme Silicon's own host: this is not a copy "
        "(found 'https://docs.acme.example/a1.html')"
    ]


def test_a_host_listed_in_the_vendor_file_is_the_makers(tmp_path: Path) -> None:
    docs = {**CONVERSION, "url": "https://acme-docs.readthedocs-hosted.com/a1.html"}
    docs.pop("copy_form"), docs.pop("copy_of")
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": docs})
    assert problems_for(tmp_path, record) != []
    vendors = {**VENDORS, "acme": {**VENDORS["acme"], "hosts": {"domains": ["acme-docs.readthedocs-hosted.com"]}}}
    _, problems = check(write_data(tmp_path / "listed", [record], vendors=vendors), today=TODAY)
    assert list(problems) == []


def test_copy_of_without_copy_form_is_refused(tmp_path: Path) -> None:
    half = {**CONVERSION}
    half.pop("copy_form")
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": half})
    (problem,) = problems_for(tmp_path, record)
    assert "copy_of names the original of a copy: set copy_form" in problem


def _power() -> dict:
    return {"state": "published", "value": "700 W", "basis": "chip", "source": "sheet"}


def test_pages_and_json_say_a_source_is_a_copy(tmp_path: Path) -> None:
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": CONVERSION}, specs__power={**_power(), "source": "wp"})
    catalog: Catalog = load(write_data(tmp_path / "data", [record]), today=TODAY)
    client = TestClient(create_app(catalog))
    page = BeautifulSoup(client.get("/silicon/acme-a1").text, "lxml")
    item = page.select_one("#source-wp").get_text(" ", strip=True)
    assert "Acme A1 white paper — Acme vendor sells this part , read from an unofficial conversion at github.com/kuhar" in item
    assert "https://acme.example/a1-white-paper.pdf" in item
    sources = {s["key"]: s for s in client.get("/api/accelerators/acme-a1").json()["sources"]}
    assert (sources["wp"]["read_at"], sources["wp"]["copy_form"], sources["wp"]["read_from"]) == (
        "maker_copy",
        "conversion",
        "github.com/kuhar",
    )
    assert (sources["sheet"]["read_at"], sources["sheet"]["copy_form"], sources["sheet"]["where_read"]) == ("maker_hosted", None, None)
    assert ReadAt(sources["wp"]["read_at"]).label == "maker's document via a copy"


def test_csv_and_sqlite_carry_where_a_source_was_read(tmp_path: Path) -> None:
    record = make_record("acme-a1", sources={**make_record("x")["sources"], "wp": CONVERSION}, specs__power={**_power(), "source": "wp"})
    table = build(load(write_data(tmp_path / "data", [record]), today=TODAY))
    rows = {r[1]: dict(zip(SOURCE_COLUMNS, r, strict=True)) for r in table.sources}
    assert (rows["wp"]["read_from"], rows["wp"]["read_at"], rows["wp"]["copy_form"]) == ("github.com/kuhar", "maker_copy", "conversion")
    assert rows["wp"]["copy_of"] == "https://acme.example/a1-white-paper.pdf"
    assert (rows["sheet"]["read_from"], rows["sheet"]["read_at"], rows["sheet"]["copy_form"]) == ("acme.example", "maker_hosted", None)
    (csv_sources,) = [dict(r)["sources"] for r in table.records()]
    assert "Acme A1 white paper — Acme [vendor] https://github.com/kuhar/" in csv_sources
    assert csv_sources.endswith("(read from an unofficial conversion at github.com/kuhar)")
