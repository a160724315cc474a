"""The pages at a glance, on a desktop (1280×800) and a phone (390×844), in Debian's chromium
over the bundled data:

- no main page scrolls sideways; anything wider than the screen sits inside a box that
  scrolls (``overflow-x: auto``) and says so;
- an accelerator page's summary card ends within the first screen at both sizes and holds
  the vendor's figures as stated, the dated price range (or why there is none) and the catch;
- numbers read as people read them (thousands separators, units as stated, conversions at
  three significant figures, ratios as "N× higher than …").
- at 390 px no table cell is narrower than its longest word (each word measured with a Range:
  never broken inside, never sticking out of its cell; a break after a hyphen is allowed);
- a table taller than the screen keeps its header row in view when a screen of it is scrolled,
  and a table whose header row is hidden on a phone (stacked rows) labels every figure.

One page load checks several things; screenshots of the first screen go to
``test-artifacts/`` for people to look at (what is below it is measured, not pictured).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import _page_in_context, screenshot

MAIN_PAGES = [
    "/",
    "/silicon/",
    "/silicon/nvidia-h100-sxm",
    "/silicon/google-tpu-v7",
    "/silicon/coverage",
    "/compare/",
    "/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm",
    "/compare/?ids=nvidia-h100-sxm,nvidia-h200-sxm,nvidia-b200,amd-instinct-mi300x,aws-trainium-3,google-tpu-v7",
    "/search?q=H100",
    "/energy/",
    "/energy/rack-power-density",
    "/systems/",
    "/economics/",
    "/economics/estimate",
    "/cloud/",
    "/cloud/aws",
    "/cloud/prices/nvidia-h100-sxm",
    "/data/",
    "/charts/memory-bandwidth",
    "/economics/models/llama-3-3-70b",
    "/api/docs",
]

OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const boxes = new Map();  // element -> it or an ancestor scrolls sideways (each asked once)
  const inBox = (el) => {
    if (!el) return false;
    if (!boxes.has(el)) { const o = getComputedStyle(el).overflowX; boxes.set(el, o === 'auto' || o === 'scroll' || inBox(el.parentElement)); }
    return boxes.get(el);
  };
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    if (!inBox(el.parentElement)) out.push(`${el.tagName.toLowerCase()}.${el.className} ends at ${Math.round(box.right)} px`);
  }
  return {page: document.documentElement.scrollWidth, width, outside: out.slice(0, 5)};
}"""

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def _name(path: str) -> str:
    return path.strip("/").replace("/", "_").replace("?", "_").replace("=", "-").replace(",", "-")[:80] or "home"


@pytest.mark.parametrize("size", list(SIZES))
def test_no_main_page_scrolls_sideways(browser, server: str, artifacts: Path, size: str) -> None:  # type: ignore[no-untyped-def]
    width, height = SIZES[size]
    wide: dict[str, object] = {}
    with _page_in_context(browser, 30_000, viewport={"width": width, "height": height}) as page:
        for path in MAIN_PAGES:
            response = page.goto(server + path)
            assert response is not None and response.status == 200, f"{path} answered {response and response.status}"
            found = page.evaluate(OVERFLOW)
            if found["page"] > width or found["outside"]:
                wide[path] = found
            screenshot(page, artifacts, f"{size}-{_name(path)}")
    assert wide == {}, wide


@pytest.mark.parametrize("size", list(SIZES))
def test_the_summary_card_comes_first_and_reads_well(browser, server: str, artifacts: Path, size: str) -> None:  # type: ignore[no-untyped-def]
    width, height = SIZES[size]
    with _page_in_context(browser, 30_000, viewport={"width": width, "height": height}) as page:
        page.goto(server + "/silicon/nvidia-h100-sxm")
        card = page.locator("#glance").bounding_box()
        assert card is not None and card["y"] + card["height"] <= height, card  # the whole card is on the first screen
        assert card["x"] >= 0 and card["x"] + card["width"] <= width
        screenshot(page.locator("#glance"), artifacts, f"{size}-card-nvidia-h100-sxm")  # after measuring: it may scroll
        figures = {page.locator(f'#glance [data-glance="{key}"] dd').inner_text().strip() for key in ("memory", "compute.FP8", "power")}
        assert figures == {"80 GB", "1,979 TFLOPS", "700 W"}  # NVIDIA's figures, as stated, with a separator
        price = page.locator("#glance .glance-price").inner_text()
        assert "USD per accelerator-hour" in price and "days to 20" in price  # a dated range
        assert "sparsity" in page.locator("#glance .glance-catch").inner_text()  # the catch, one line
        assert page.locator("nav.on-page a[href='#power-question']").count() == 1
        assert not page.locator("details.general-energy").evaluate("d => d.open")  # the general tables wait behind a click

        page.goto(server + "/silicon/google-tpu-v7")  # cloud-only, binary units, no observed price
        card = page.locator("#glance").bounding_box()
        assert card is not None and card["y"] + card["height"] <= height, card
        assert page.locator('#glance [data-glance="memory"] dd').inner_text().startswith("192 GiB")  # Google's unit kept
        assert page.locator('#glance [data-glance="memory_bandwidth"] dd').inner_text().startswith("7,380 GB/s")
        assert page.locator('#glance [data-glance="power"]').get_attribute("data-state") == "not_published"
        assert page.locator("#glance .glance-price").inner_text().startswith("Price No on-demand")  # says why


def test_tables_and_comparisons_read_well(browser, server: str, artifacts: Path) -> None:  # type: ignore[no-untyped-def]
    with _page_in_context(browser, 30_000, viewport={"width": 1280, "height": 800}) as page:
        page.goto(server + "/silicon/?sort=price")
        screenshot(page, artifacts, "desktop-silicon-by-price")
        trn3 = page.locator('tr[data-id="aws-trainium-3"] td[data-key="memory"]').inner_text()
        assert trn3.split() == ["144", "GiB", "=", "155", "GB"]  # as AWS states it, then 144 × 2^30 B = 154.6 GB
        assert (
            page.locator('tr[data-id="aws-trainium-3"] td[data-key="memory"] .disputed').count() == 0
        )  # "144 GB" in the press is one figure
        assert page.locator('tr[data-id="nvidia-h100-sxm"] td[data-key="fp8"]').inner_text().strip() == "1,979"
        prices = page.locator('td[data-key="price"] .num').all_inner_texts()
        numbers = [float(p.replace(",", "")) for p in prices]
        assert numbers and numbers == sorted(numbers)  # sorted by the cheapest on-demand price
        table = page.locator("#silicon-table thead th[data-key='availability']").bounding_box()
        assert table is not None and table["x"] + table["width"] <= 1280  # price and availability fit a desktop screen

        page.goto(server + "/compare/nvidia-h100-sxm-vs-amd-instinct-mi300x")
        screenshot(page, artifacts, "desktop-compare-h100-mi300x")
        memory = page.locator('#compare-table tr[data-key="memory"] td[data-id="amd-instinct-mi300x"] .ratio').inner_text()
        assert memory == "2.4× higher than NVIDIA H100 SXM5 80GB (per package ÷ per chip)"  # 192 GB ÷ 80 GB, the larger side named
        price = page.locator('#price-table tr[data-key="price.on_demand"] td[data-id="nvidia-h100-sxm"] .figure').inner_text()
        assert price.endswith(" USD per hour")
        per_dollar = page.locator(
            '#price-table tr[data-key="price.compute_per_usd.FP8"] td[data-id="nvidia-h100-sxm"] .figure'
        ).inner_text()
        expected = 1979 / float(price.split()[0])  # NVIDIA's dense FP8 1,979 TFLOPS ÷ the cheapest price shown
        assert per_dollar == f"{float(f'{expected:.3g}'):,g} TFLOPS per USD/hour"


NARROW_CELLS = """() => {
  // Each word of each shown table cell, measured with a Range: a word that takes more than one
  // line box was broken inside ("Cheapes t"), and one wider than the cell's content box sticks
  // out of it. A break after a hyphen or a slash is a break between words.
  const out = [];
  const width = document.documentElement.clientWidth;
  for (const cell of document.querySelectorAll('th, td')) {
    const box = cell.getBoundingClientRect();
    if (box.width <= 1 || box.right <= 0 || box.left >= width + 5000) continue;  // not shown: a header read only by screen readers, a closed <details>
    const style = getComputedStyle(cell);
    const left = box.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const right = box.right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const holder = node.parentElement.getBoundingClientRect();
      if (holder.width <= 1 || holder.height <= 1) continue;  // visually hidden text
      const words = /[^\\s\\-\\/\\u2013]+[\\-\\/\\u2013]?/g;
      for (let m = words.exec(node.data); m; m = words.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const lines = new Set(rects.map((r) => Math.round(r.top)));
        const wide = rects.some((r) => r.left < left - 1 || r.right > right + 1);
        if (lines.size > 1 || wide) {
          const id = cell.closest('table')?.id || cell.closest('table')?.className || '';
          out.push(`${cell.tagName.toLowerCase()} in table ${id}: "${m[0]}" ${lines.size > 1 ? 'broken over ' + lines.size + ' lines' : 'wider than the cell'} (cell ${Math.round(right - left)} px)`);
          break;
        }
      }
    }
  }
  return out.slice(0, 8);
}"""


def test_no_table_cell_is_narrower_than_its_longest_word_on_a_phone(browser, server: str) -> None:  # type: ignore[no-untyped-def]
    narrow: dict[str, object] = {}
    with _page_in_context(browser, 30_000, viewport={"width": 390, "height": 844}) as page:
        for path in MAIN_PAGES:
            page.goto(server + path)
            found = page.evaluate(NARROW_CELLS)
            if found:
                narrow[path] = found
    assert narrow == {}, narrow


UNLABELLED_FIGURES = """() => {
  // A table whose header row is not shown (stacked rows on a phone) must label each cell itself:
  // a data-label the stylesheet prints before the value. A cell spanning columns is a message.
  const out = [];
  for (const table of document.querySelectorAll('table')) {
    const head = table.tHead;
    const shown = table.getBoundingClientRect();
    if (!head || shown.width <= 1) continue;
    const box = head.getBoundingClientRect();
    if (box.width > 1 && box.height > 1 && box.right > 0) continue;  // the header row is on screen
    for (const cell of table.querySelectorAll('tbody td')) {
      if (cell.colSpan > 1 || cell.getBoundingClientRect().width <= 1 || !cell.textContent.trim()) continue;
      const printed = getComputedStyle(cell, '::before').content;
      if (!cell.dataset.label || !printed.includes(cell.dataset.label)) {
        out.push(`table ${table.id || table.className}: "${cell.textContent.trim().slice(0, 40)}" has no label`);
      }
    }
  }
  return out.slice(0, 5);
}"""

LONG_TABLES = """() => {
  // Tables with a shown header row taller than the screen, each with the box it scrolls in
  // (its nearest ancestor that scrolls; none: the page).
  const found = [];
  document.querySelectorAll('table').forEach((table, index) => {
    const head = table.tHead?.getBoundingClientRect();
    if (!head || head.height <= 1 || head.right <= 0 || !table.checkVisibility()) return;  // not in a closed <details>
    if (table.getBoundingClientRect().height <= window.innerHeight) return;
    found.push(index);
  });
  return found;
}"""

HEADER_AFTER_SCROLL = """(index) => {
  const table = document.querySelectorAll('table')[index];
  let box = table.parentElement;
  while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) box = box.parentElement;
  const top = box ? Math.max(0, box.getBoundingClientRect().top) : 0;
  const th = table.tHead.querySelector('th').getBoundingClientRect();
  const rows = table.tBodies[0].getBoundingClientRect();
  return {th: Math.round(th.top), bottom: Math.round(th.bottom), box: Math.round(top), rows: Math.round(rows.top), name: table.id || table.className};
}"""


@pytest.mark.parametrize("size", list(SIZES))
def test_long_tables_keep_their_header_in_view_and_stacked_rows_label_each_figure(browser, server: str, size: str) -> None:  # type: ignore[no-untyped-def]
    width, height = SIZES[size]
    lost: dict[str, object] = {}
    unlabelled: dict[str, object] = {}
    long_tables = 0
    with _page_in_context(browser, 30_000, viewport={"width": width, "height": height}) as page:
        for path in MAIN_PAGES:
            page.goto(server + path)
            found = page.evaluate(UNLABELLED_FIGURES)
            if found:
                unlabelled[path] = found
            for index in page.evaluate(LONG_TABLES):
                long_tables += 1
                table = page.locator("table").nth(index)
                table.evaluate("t => t.scrollIntoView({block: 'start'})")
                head = table.locator("thead th").first.bounding_box()
                assert head is not None
                page.mouse.move(min(head["x"] + 10, width - 10), height / 2)
                page.mouse.wheel(0, height)  # a screen down, as a finger or a wheel over the table would
                for tick in range(50):  # the wheel scrolls smoothly: wait (up to 3 s on a loaded machine) until it has moved
                    page.wait_for_timeout(100)
                    where = page.evaluate(HEADER_AFTER_SCROLL, index)
                    if where["rows"] < where["th"]:
                        break
                    if tick == 29:  # a wheel event a loaded browser dropped: scroll the page the same screen down instead
                        page.evaluate("h => window.scrollBy(0, h)", height)
                # the rows moved up under the header, and the header is still at the top of its box, on screen
                if not (where["rows"] < where["th"] and where["box"] - 1 <= where["th"] and where["bottom"] <= height):
                    lost.setdefault(path, []).append(where)
    assert unlabelled == {}, unlabelled
    assert lost == {}, lost
    assert long_tables >= 3  # the silicon table, the offers, the price history at least
