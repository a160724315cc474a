"""The comparison pages in a real browser (Debian chromium, axe-core): no serious or critical
accessibility violation at phone width, and the comparison table scrolls inside its box
instead of widening the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.conftest import screenshot

COMPARE_PAGES = [
    "/compare/aws-trainium-3-vs-google-tpu-v7",
    "/compare/?ids=nvidia-h100-sxm,nvidia-h200-sxm,nvidia-b200,amd-instinct-mi300x,aws-trainium-3,google-tpu-v7",
    "/search?q=H100",
]


@pytest.mark.parametrize("path", COMPARE_PAGES)
def test_compare_pages_have_no_serious_accessibility_violation(serious_violations, path: str) -> None:  # type: ignore[no-untyped-def]
    found = serious_violations(path)
    assert found == [], json.dumps(found, indent=1)


def test_six_part_table_scrolls_inside_its_box_on_a_phone(browser, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + COMPARE_PAGES[1])
        page_width = page.evaluate("document.documentElement.scrollWidth")
        wrap = page.locator("#specifications .table-wrap").bounding_box()
        table = page.locator("#compare-table").bounding_box()
        screenshot(page.locator("#specifications .table-wrap"), artifacts, "phone-compare-six")  # the table in its box, after measuring
    finally:
        context.close()
    assert page_width <= 390  # the page itself does not scroll sideways
    assert wrap["width"] <= 390 and table["width"] > wrap["width"]  # the table scrolls in its box
