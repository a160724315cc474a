"""A visitor's journey in a real browser (Debian chromium): the table, sorting, filtering, one
accelerator's specifications, a comparison, and the dataset form that answers with the CSV.

Each stage is its own test, so a broken stage fails alone without hiding the others.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.conftest import screenshot

TRAINIUM3 = "/silicon/aws-trainium-3"


def _memory_cells(page) -> list[str]:  # type: ignore[no-untyped-def]
    return [t.strip() for t in page.locator('#silicon-table tbody td[data-key="memory"]').all_inner_texts()]


def test_table_sort_filter_and_open_trainium3(page, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + "/silicon/")
    assert page.title() == "Accelerators · Compute Atlas"
    screenshot(page, artifacts, "silicon")
    assert page.locator("#charts img").count() == 2

    # Sort by memory: the header link sets ?sort=memory; figures ascend, states come last.
    page.locator('#silicon-table th[data-key="memory"] a').click()
    page.wait_for_url(re.compile(r"sort=memory"))
    assert page.locator('#silicon-table th[data-key="memory"]').get_attribute("aria-sort") == "ascending"
    cells = _memory_cells(page)
    # "128", "128pkg" (per package), "1,024", or "220 MiB = 0.231 GB" (stated in another unit: sorted by the conversion)
    leading = [re.match(r"\d[\d,.]*", c.split("= ", 1)[1] if "= " in c else c) for c in cells]
    numbers = [float(m.group(0).replace(",", "")) for m in leading if m]
    assert numbers == sorted(numbers) and len(numbers) >= 20
    assert all(not re.match(r"\d", c) for c in cells[len(numbers) :])  # "not published" etc. after every number

    # Filter to cloud-only; the sort is kept.
    page.select_option('select[name="availability"]', "cloud-only")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"availability=cloud-only"))
    assert "sort=memory" in page.url
    availability = page.locator('#silicon-table tbody td[data-key="availability"]').all_inner_texts()
    assert availability and {a.strip() for a in availability} == {"cloud-only"}
    names = page.locator("#silicon-table tbody th a").all_inner_texts()
    assert "AWS Trainium3" in names and "NVIDIA H100 SXM5 80GB" not in names

    # Open Trainium 3 and check the specification block against its record.
    page.locator("#silicon-table").get_by_role("link", name="AWS Trainium3", exact=True).click()
    page.wait_for_url(re.compile(re.escape(TRAINIUM3) + "$"))
    specs = page.locator("#specifications")
    assert "144 GiB" in specs.locator('[data-spec="memory"] dd').inner_text()
    assert "4.9 TB/s" in specs.locator('[data-spec="memory_bandwidth"] dd').inner_text()
    assert "2,517 TFLOPS" in specs.locator('[data-spec="compute.FP8"] dd').inner_text()  # AWS: "2,517 MXFP8 TFLOPS"
    assert "671 TFLOPS" in specs.locator('[data-spec="compute.BF16"] dd').inner_text()
    power = specs.locator('[data-spec="power"]')
    assert power.get_attribute("data-state") == "not_published" and "not published" in power.inner_text()
    assert "Verified 2026-11-30" in page.locator("#cite .cite-text").inner_text()
    screenshot(page, artifacts, "aws-trainium-3")


def test_follow_a_comparison(page, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    page.goto(server + TRAINIUM3)
    link = page.locator('main a[href^="/compare/"][href*="-vs-"]').first
    assert link.count() == 1, "the Trainium3 page links to no comparison"
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(re.compile(re.escape(href) + "$"))
    text = page.locator("main").inner_text()
    assert "Trainium3" in text
    assert page.locator("main table").count() >= 1
    screenshot(page, artifacts, "comparison")


def test_send_the_dataset_form_and_receive_the_csv(page, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    response = page.goto(server + "/data/")
    assert response is not None and response.status == 200
    screenshot(page, artifacts, "data")
    form = page.locator("form.request-form")
    form.locator('input[name="name"]').fill("Zoë O'Brien")
    form.locator('input[name="email"]').fill("zoe@example.org")
    form.locator('input[name="organisation"]').fill("Université de Test")
    use = form.locator('select[name="use"], select[name="intended_use"]').first
    use.select_option("research")
    form.locator('input[type="checkbox"]').check()
    page.wait_for_timeout(2000)  # autofill: a person sends the form about two seconds after the page loads
    with page.expect_download() as info:
        form.locator('button[type="submit"]').click()
    download = info.value
    assert download.suggested_filename.endswith(".csv")
    path = download.path()
    header = Path(path).read_text(encoding="utf-8-sig").splitlines()[0]  # the CSV opens with a byte-order mark
    columns = header.split(",")
    assert columns[:2] == ["id", "name"], header
    assert any(c.startswith("memory") for c in columns)
