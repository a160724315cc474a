"""The price charts in a real browser at 390 px (a phone): the narrow picture is chosen and
shown at about its own size, so its 11-pixel text stays readable, and nothing scrolls sideways."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import screenshot

PAGE = "/cloud/prices/nvidia-h100-sxm"


def test_the_price_chart_is_drawn_for_the_phone_at_390_px(browser, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + PAGE)
        img = page.locator("#chart-price-history-nvidia-h100-sxm picture img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('#chart-price-history-nvidia-h100-sxm picture img').complete")
        chosen = img.evaluate("i => [i.currentSrc, i.naturalWidth, i.getBoundingClientRect().width, i.getBoundingClientRect().right]")
        page_width = page.evaluate("document.documentElement.scrollWidth")
        first = page.evaluate("[...document.querySelectorAll('article section[id]')].map(s => s.id)")
        screenshot(img, artifacts, "phone-price-history-chart")
    finally:
        context.close()
    source, natural, shown, right = chosen
    assert source.endswith("/charts/price-history/nvidia-h100-sxm.narrow.svg")
    assert natural <= 390 and shown >= 0.9 * natural  # drawn at about its own size: 11 px text stays about 11 px
    assert right <= 390 and page_width <= 390
    assert first[0] == "price-charts"  # the page opens with the chart


def test_the_wide_picture_on_a_desktop(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(server + PAGE)
        img = page.locator("#chart-price-history-nvidia-h100-sxm picture img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("document.querySelector('#chart-price-history-nvidia-h100-sxm picture img').complete")
        source = img.evaluate("i => i.currentSrc")
    finally:
        context.close()
    assert source.endswith("/charts/price-history/nvidia-h100-sxm.svg")
