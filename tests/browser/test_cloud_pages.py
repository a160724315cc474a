"""The cloud pages in a real browser (Debian chromium, axe-core): no serious or critical
accessibility violation, and the observed-price page is whole without scripts."""

from __future__ import annotations

import json

import pytest

CLOUD_PAGES = ["/cloud/prices/nvidia-h100-sxm", "/cloud/coreweave", "/silicon/aws-inferentia-2"]


@pytest.mark.parametrize("path", CLOUD_PAGES)
def test_cloud_pages_have_no_serious_accessibility_violation(serious_violations, path: str) -> None:  # type: ignore[no-untyped-def]
    found = serious_violations(path)
    assert found == [], json.dumps(found, indent=1)


def test_observed_prices_page_is_whole_without_scripts(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + "/cloud/prices/nvidia-h100-sxm?window=all")  # the default page's history is the last year's
        current = page.locator("#current table.observed tbody tr").count()
        history = page.locator("#history table.history tbody tr").count()
        spread = page.locator("#current .spread").inner_text()
    finally:
        context.close()
    # the bundled store (data/prices); what is current depends on today's date, all of the history does not
    assert current >= 1 and history >= 10
    assert spread.startswith("Like-for-like spread")


PRICE_TABLES = {
    "/cloud/prices/nvidia-h100-sxm": "#current table.observed >> nth=0",
    "/cloud/prices/google-tpu-v5e": "#current table.last-seen",
    "/cloud/": "#prices table.offers",
    "/cloud/aws": "#offers table.offers",
}


@pytest.mark.parametrize("path", list(PRICE_TABLES))
def test_price_tables_do_not_scroll_sideways_on_a_phone(browser, server: str, path: str) -> None:  # type: ignore[no-untyped-def]
    """At 390 px every price table is read without scrolling sideways: each offer is a block of
    labelled lines (provider, region, pricing, price, source), not a row wider than the screen."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + path)
        table = page.locator(PRICE_TABLES[path])
        box = table.bounding_box()
        scrolls = table.evaluate("t => { const w = t.parentElement; return [w.scrollWidth, w.clientWidth]; }")
        page_width = page.evaluate("document.documentElement.scrollWidth")
        first = table.locator("tbody tr").first.inner_text()
        labels = table.evaluate("""t => [...(t.querySelector('tbody tr') || {children: []}).children].map(
            td => getComputedStyle(td, '::before').content)""")
    finally:
        context.close()
    assert page_width <= 390 and box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (path, box)
    assert scrolls[0] <= scrolls[1], (path, scrolls)  # the table's box has nothing to scroll to
    if "No observation" not in first:  # labelled lines, as a person reads them
        assert {'"Region: "', '"Pricing: "', '"Source: "'} <= set(labels), (path, labels)
