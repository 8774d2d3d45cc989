"""What a real-browser audit of the app found, checked in headless Chromium against
``raidsweep app`` on a copy of the quick sweep (examples/quick.yaml on the simulated array,
the session's ``quick_store``: the copy is made to look running in the last test): at a
phone's 390 px every legend and colour bar is whole; at 800 px every select box shows its
choice whole; at 1280 px no header of the ranking is cut; the latency axis of Curves is ticked
1, 2, 5 of each decade with its unit; the sidebar writes the sweep's creation time with its
zone; while the sweep runs no spinner is drawn over the page; and the only 404s of a page
opened by its address are Streamlit's own probes for its server. One server, one browser."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app_pages import _widths
from recommender.views.times import time_text
from sweeper.store import ParquetStore
from tests.support.appserver import app_tab

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000
PHONE_PX, NARROW_PX, LAPTOP_PX = 390, 800, 1280
SWEEP = "quick"
#: each page as its sidebar link reads and at its address
PAGES = {
    "Recommendations": "recommendations",
    "Heatmaps": "heatmaps",
    "Curves": "curves",
    "Compare": "compare",
    "Run details": "run_details",
}


@pytest.fixture(scope="module")
def store(quick_store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    root = tmp_path_factory.mktemp("leftovers") / "store"
    shutil.copytree(quick_store.root, root)
    return ParquetStore(root)


@pytest.fixture(scope="module")
def tab(store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("app") / "app.log"
    viewport = {"width": LAPTOP_PX, "height": 1200}
    with app_tab(store.root, log, TIMEOUT_MS, viewport=viewport) as page:
        page.get_by_test_id("stSidebarNav").wait_for()
        yield page


def _base(tab: Any) -> str:
    return re.sub(r"^(https?://[^/]+).*$", r"\1", tab.url)


def _open(tab: Any, name: str, width: int) -> None:
    """Page ``name`` opened by its address in a window ``width`` px wide, its script done."""
    from playwright.sync_api import expect

    tab.set_viewport_size({"width": width, "height": 1200})
    tab.goto(f"{_base(tab)}/{PAGES[name]}?sweep={SWEEP}")
    expect(tab.get_by_role("heading", name=f"{name} — sweep {SWEEP}")).to_be_visible()
    expect(tab.get_by_test_id("stStatusWidget")).to_have_count(0)


# 1. legends and colour bars at a phone's width ---------------------------------------------------
#: every drawn part of a chart's legends (not their invisible background), each with its
#: left and right edges relative to the chart's own box, and the box's width
_LEGEND_PARTS = """(chart) => {
  const box = chart.getBoundingClientRect();
  const parts = chart.querySelectorAll(
    '.role-legend-gradient path, .role-legend-symbol path, .role-legend-label text, '
    + '.role-legend-title text');
  return [...parts].map(e => {
    const r = e.getBoundingClientRect();
    return {text: e.textContent, left: r.left - box.left, right: r.right - box.left,
            width: box.width, window: window.innerWidth, abs_right: r.right};
  }).filter(p => p.right > p.left);
}"""


@pytest.mark.parametrize("name", ["Recommendations", "Heatmaps"])
def test_legends_and_colour_bars_are_whole_on_a_phone(tab: Any, name: str) -> None:
    from playwright.sync_api import expect

    _open(tab, name, PHONE_PX)
    chart = tab.get_by_test_id("stVegaLiteChart").first
    expect(chart.locator(".role-legend-label text").first).to_be_attached()
    parts = chart.evaluate(_LEGEND_PARTS)
    # the trade-off's colour bar and its shapes, the heatmap's colour bar
    assert parts
    cut = [p for p in parts if p["left"] < -0.5 or p["right"] > p["width"] + 0.5]
    assert not cut, f"{name}: legend parts past the chart's edge: {cut}"
    assert all(p["abs_right"] <= p["window"] for p in parts), parts


# 2. select boxes at 800 px --------------------------------------------------------------------
#: each select box of the page: its label, its choice, and the choice's width against the room
#: its box gives it
_CHOICES = """() => [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stSelectbox"] input')].map(i => (
  {label: i.getAttribute('aria-label'), value: i.value, scroll: i.scrollWidth,
   visible: i.clientWidth}))"""
#: per page, the boxes that must be there (the ones the audit found cut)
_BOXES = {
    "Curves": {"Pattern", "Block size"},
    "Run details": {"Configuration", "Cell", "Repetition"},
    "Compare": {"Configuration A", "Configuration B"},
    "Heatmaps": {"Metric", "Pattern", "Concurrency", "Sort rows by"},
}


@pytest.mark.parametrize("name", list(_BOXES))
def test_every_choice_reads_whole_at_800(tab: Any, name: str) -> None:
    from playwright.sync_api import expect

    _open(tab, name, NARROW_PX)
    main = tab.get_by_test_id("stMain")
    for label in _BOXES[name]:
        expect(main.get_by_role("combobox", name=label, exact=True)).to_be_visible()
    choices = [c for c in tab.evaluate(_CHOICES) if c["value"]]
    assert _BOXES[name] <= {c["label"] for c in choices}, choices
    cut = [c for c in choices if c["scroll"] > c["visible"]]
    assert not cut, f"{name}: choices cut off at {NARROW_PX} px: {cut}"


def test_the_heatmaps_longest_metric_reads_whole_at_800(tab: Any) -> None:
    from playwright.sync_api import expect

    _open(tab, "Heatmaps", NARROW_PX)
    metric = tab.get_by_test_id("stMain").get_by_role("combobox", name="Metric", exact=True)
    metric.click()
    tab.get_by_role("option", name="score (% of the class best)", exact=True).click()
    expect(metric).to_have_value("score (% of the class best)")
    expect(tab.get_by_test_id("stStatusWidget")).to_have_count(0)
    cut = [c for c in tab.evaluate(_CHOICES) if c["value"] and c["scroll"] > c["visible"]]
    assert not cut, cut


# 3. the ranking's headers at 1280 px -------------------------------------------------------------
def _cut_headers(png: bytes) -> list[tuple[int, int, int]]:
    """The columns of a grid's header row (a screenshot of it) whose text runs to the column's
    right edge: (left, right, gap in px). The grid draws its headers on a canvas, clipped at
    the column's edge; a header drawn whole ends a padding (8 px) before it. A column's edge is
    a pixel column of one grey from the top of the row to its bottom."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    width, height = image.size
    pixel = image.load()
    rows = range(4, height - 4)

    def is_edge(x: int) -> bool:
        column = [pixel[x, y] for y in rows]
        return max(column) - min(column) <= 3 and max(column) < 246

    edges = [x for x in range(width) if is_edge(x)]
    edges = [x for i, x in enumerate(edges) if i == 0 or edges[i - 1] != x - 1] + [width - 1]
    cut = []
    for left, right in zip(edges, edges[1:], strict=False):
        ink = [x for x in range(left + 1, right) if any(pixel[x, y] < 170 for y in rows)]
        if ink and right - ink[-1] < 5:
            cut.append((left, right, right - ink[-1]))
    return cut


def test_the_ranking_headers_are_whole_at_1280(tab: Any) -> None:
    from playwright.sync_api import expect

    _open(tab, "Recommendations", LAPTOP_PX)
    tab.mouse.move(0, 0)  # a hovered header gives room to its menu button
    tables = tab.get_by_test_id("stDataFrame")
    expect(tables.first.locator("td").first).to_be_attached()
    ranking = tables.first
    headers = ranking.evaluate("t => [...t.querySelectorAll('th')].map(h => h.textContent)")
    assert "score (IOPS)" in headers, headers
    box = ranking.bounding_box()
    png = tab.screenshot(
        clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": 35},
        animations="disabled",
    )
    assert not _cut_headers(png), (headers, _cut_headers(png))


#: each character's advance in the grid's header font, as this Chromium draws it
_ADVANCES = """async (chars) => {
  const grid = [...document.querySelectorAll('[data-testid="stDataFrame"] *')]
    .find(e => e.style && e.style.getPropertyValue('--gdg-header-font-style'));
  const style = getComputedStyle(grid);
  const font = style.getPropertyValue('--gdg-header-font-style') + ' '
    + style.getPropertyValue('--gdg-font-family');
  await document.fonts.load(font);
  const canvas = document.createElement('canvas').getContext('2d');
  canvas.font = font;
  return [font, Object.fromEntries([...chars].map(c => [c, canvas.measureText(c).width]))];
}"""


def test_the_width_table_is_never_narrower_than_the_browser_draws(tab: Any) -> None:
    """``app_pages._widths`` sizes headers and select boxes from its own table of the font's
    advances: none is narrower than Chromium's own."""
    from playwright.sync_api import expect

    _open(tab, "Recommendations", LAPTOP_PX)
    expect(tab.get_by_test_id("stDataFrame").first.locator("td").first).to_be_attached()
    chars = "".join(sorted(_widths._ADVANCE))
    font, advances = tab.evaluate(_ADVANCES, chars)
    assert "14px" in font and "Source Sans" in font, font
    narrower = {c: (w, _widths._ADVANCE[c]) for c, w in advances.items() if w > _widths._ADVANCE[c]}
    assert not narrower, narrower


# 5. the latency axis of Curves ---------------------------------------------------------------
_Y_LABELS = """(chart) => [...chart.querySelectorAll(
    '.role-axis[aria-label^="Y-axis"] .role-axis-label text')].map(t => t.textContent)"""


def test_the_latency_axis_is_ticked_1_2_5_with_its_unit(tab: Any) -> None:
    from playwright.sync_api import expect

    _open(tab, "Curves", LAPTOP_PX)
    chart = tab.get_by_test_id("stVegaLiteChart").first
    expect(chart.locator(".role-axis-label text").first).to_be_attached()
    labels = chart.evaluate(_Y_LABELS)
    assert len(labels) >= 3, labels
    figures = []
    for label in labels:
        figure, unit = label.rsplit(" ", 1)
        assert unit == "ms", labels
        figures.append(float(figure.replace(",", "")))
    mantissas = {f"{f:e}"[0] for f in figures}
    assert mantissas <= {"1", "2", "5"}, labels  # never 1, 3, 5, 7, 9 ms
    assert "2" in mantissas, labels


# 6. the sweep's creation time in the sidebar -----------------------------------------------------
def test_the_sidebar_writes_the_creation_time_with_its_zone(tab: Any, store: ParquetStore) -> None:
    from playwright.sync_api import expect

    _open(tab, "Curves", LAPTOP_PX)
    created = time_text(store.get_sweep(SWEEP)["created_at"])
    assert created is not None and created.endswith(" UTC")
    sidebar = tab.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text(f"created {created}")


# 7. the 404s of a page opened by its address -----------------------------------------------------
def test_a_page_opened_by_its_address_fails_only_streamlits_own_probes(tab: Any) -> None:
    """Streamlit's page probes its server under the page's own path first (``/heatmaps/
    _stcore/health`` and ``…/host-config``: 404), then at the root (200): its frontend's base
    paths (``PD()`` in its bundle, streamlit/streamlit#7074), nothing the app asks for. The
    app's own address (the root) probes the root alone."""
    from playwright.sync_api import expect

    base = _base(tab)
    page = tab.context.browser.new_page()
    answers: list[tuple[int, str]] = []
    page.on("response", lambda r: answers.append((r.status, r.url)))
    try:
        for path in ("heatmaps", ""):
            answers.clear()
            page.goto(f"{base}/{path}?sweep={SWEEP}")
            expect(page.get_by_test_id("stSidebarNav")).to_be_visible()
            expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
            failed = sorted(url for status, url in answers if status >= 400)
            probes = [f"{base}/{path}/_stcore/{end}" for end in ("health", "host-config")]
            assert failed == (probes if path else []), failed
            for end in ("health", "host-config"):
                assert (200, f"{base}/_stcore/{end}") in answers, answers
    finally:
        page.close()


# 4. no spinner over the page while the sweep runs (last: it makes the sweep look running) ------
#: records, as the page changes, every spinner drawn over another element of the page, and
#: how many times the page was redrawn (Streamlit marks its elements stale while it reruns)
_WATCH = """() => {
  window.__covered = []; window.__reruns = 0;
  const check = () => {
    if (document.querySelector('[data-stale="true"]')) window.__reruns += 1;
    for (const s of document.querySelectorAll('[data-testid="stSpinner"]')) {
      const r = s.getBoundingClientRect();
      const own = s.closest('[data-testid="stElementContainer"]');
      if (!r.width || !own) continue;
      for (const e of document.querySelectorAll('[data-testid="stElementContainer"]')) {
        if (e === own || e.contains(own) || own.contains(e)) continue;
        const q = e.getBoundingClientRect();
        if (q.width && q.height && q.left < r.right && r.left < q.right && q.top < r.bottom
            && r.top < q.bottom) window.__covered.push([s.innerText, e.innerText.slice(0, 80)]);
      }
    }
  };
  new MutationObserver(check).observe(document.body,
    {subtree: true, childList: true, attributes: true});
}"""


def _running(progress: Path, stop: threading.Event) -> None:
    """Write ``progress`` as a sweeper does while it runs, every half second (this process
    is the live sweeper): each write changes the sweep's signature, so every refresh of the
    page reads and ranks the sweep afresh."""
    record = json.loads(progress.read_text())
    written = 0
    while not stop.is_set():
        record.update(state="running", pid=os.getpid(), updated_at=f"written {written}")
        part = progress.with_suffix(".writing")
        part.write_text(json.dumps(record))
        part.replace(progress)
        written += 1
        stop.wait(0.5)


def test_no_spinner_covers_the_page_while_the_sweep_runs(tab: Any, store: ParquetStore) -> None:
    from playwright.sync_api import expect

    progress = store.root / SWEEP / "progress.json"
    finished = progress.read_text()
    stop = threading.Event()
    writer = threading.Thread(target=_running, args=(progress, stop), daemon=True)
    writer.start()
    try:
        _open(tab, "Recommendations", LAPTOP_PX)
        expect(tab.get_by_text("Live: refreshed every")).to_be_visible()
        tab.evaluate(_WATCH)
        tab.wait_for_timeout(6_000)  # three refreshes of the page: what is watched
        covered, reruns = tab.evaluate("[window.__covered, window.__reruns]")
    finally:
        stop.set()
        writer.join()
        progress.write_text(finished)
    assert reruns >= 2, "the page was not refreshed while the sweep ran"
    assert not covered, f"spinners drawn over the page: {covered[:5]}"
    expect(tab.get_by_text("Live: refreshed every")).to_have_count(0)
