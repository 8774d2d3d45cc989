"""End to end in a real browser: ``streamlit run app.py`` on the quick sweep's store, driven
by Playwright in Debian's headless Chromium (never a browser download).

The test opens the app, goes to Recommendations, switches the workload class and checks that
the decision names that class's top configuration; then goes to Heatmaps, clicks a heatmap
cell and checks that the cell's runs, by their ids in the store, appear.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recommender.charts import CURVE_PLOT_HEIGHT, TRADEOFF_PLOT_HEIGHT
from recommender.data import load_recommendations
from sweeper.store import ParquetStore
from tests.support.appserver import choose, chromium, streamlit_run
from tests.support.appwait import rerun, settled, watch_runs
from tests.support.specs import described_sweep

pytestmark = pytest.mark.integration

UI_TIMEOUT_MS = 60_000  # first render of a page ranks the sweep once


def _chromium() -> str:
    """Debian's chromium; its absence fails the test: scripts/test.sh installs it."""
    path = chromium()
    if path is None:
        pytest.fail(
            "Debian's chromium is not installed, so the browser test cannot run: "
            "run scripts/test.sh (it installs the system packages), or apt-get install chromium"
        )
    return path


@pytest.fixture(scope="module")
def app_url(quick_store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    with streamlit_run(quick_store.root, log) as url:
        yield url


@pytest.fixture(scope="module")
def browser_page():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is not installed: pip install -e '.[test]' (scripts/test.sh does)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            page.set_default_timeout(UI_TIMEOUT_MS)
            watch_runs(page)
            yield page
        finally:
            browser.close()


def test_switch_class_and_click_a_heatmap_cell(app_url, browser_page, quick_store):
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)  # expect() does not follow the page's default
    page = browser_page
    record = quick_store.get_sweep("quick")
    recs = {r.name: r for r in load_recommendations(quick_store, record)}
    first, other = "redo_log", "dss_scan"
    assert recs[first].best["config_key"] != recs[other].best["config_key"]

    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not _local(r.url) else None)
    page.goto(app_url)
    settled(page)
    nav = page.get_by_test_id("stSidebarNav")
    with rerun(page):
        nav.get_by_role("link", name="Recommendations").click()
    decision = page.get_by_test_id("stAlertContentSuccess")
    expect(decision).to_contain_text(f"{first}: {recs[first].best['config_key']} —")

    choose(page, "Workload class", other)
    expect(decision).to_contain_text(f"{other}: {recs[other].best['config_key']} —")
    expect(decision).not_to_contain_text(f"{first}:")

    with rerun(page):
        nav.get_by_role("link", name="Heatmaps").click()
    key, size = "raid5/pool_stripe/ranks4/stripe1g/wb-ra", "16k"
    # Vega renders the heatmap as SVG whose squares carry their data as ARIA labels.
    square = page.locator(
        '[data-testid="stVegaLiteChart"] path[aria-roledescription="rect mark"]'
        f'[aria-label*="config_key: {key};"][aria-label*="block size: {size};"]'
    )
    with rerun(page):  # the chart's selection reruns the script
        square.click()
    runs = quick_store.runs("quick")
    expected = runs[
        (runs["config_key"] == key)
        & (runs["pattern"] == record["spec"]["matrix"]["patterns"][0])
        & (runs["block_size"] == 16384)
        & (runs["iodepth"] == 1)
        & (runs["numjobs"] == 1)
    ]
    assert len(expected) == 3
    expect(page.get_by_text(f"{len(expected)} runs of {key} at {size}")).to_be_visible()
    # The runs table keeps an accessible copy of its cells in the DOM: the run ids are there.
    table = page.get_by_test_id("stDataFrame").last.locator("table")
    for run_id in expected["run_id"]:
        expect(table).to_contain_text(run_id)
    assert outside == [], outside  # nothing from outside the machine (fonts, favicons, ...)


def _local(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname in ("127.0.0.1", "localhost")


HOSTILE = (
    "![x](http://192.0.2.1/x.png) <img src=http://192.0.2.1/y.png> =HYPERLINK(1) "
    "[go](http://192.0.2.1/l) _em_ **b** ~~s~~ $x$ :red[red] :rocket: :material/warning:"
)
#: what would be markup in the shown description, had it been read as Markdown
MARKUP = ("<img", "<em", "<strong", "<del", "katex", 'role="img"', "🚀")


def test_descriptions_are_shown_as_text(tmp_path: Path, browser_page) -> None:
    """A sweep and a class whose descriptions hold a Markdown image, an HTML image and a
    formula: shown as those characters, and the browser asks nothing of 192.0.2.1."""
    from playwright.sync_api import expect

    store = described_sweep(tmp_path, HOSTILE)
    asked: list[str] = []
    with streamlit_run(store.root, tmp_path / "streamlit.log") as url:
        page = browser_page.context.browser.new_page(viewport={"width": 1400, "height": 1600})
        try:
            page.on("request", lambda r: asked.append(r.url))
            watch_runs(page)
            page.goto(url)
            settled(page)
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar).to_contain_text("![x](http://192.0.2.1/x.png)", timeout=30_000)
            # every character as written (an invisible word joiner keeps :rocket: a word)
            shown = sidebar.get_by_test_id("stCaptionContainer").first
            assert HOSTILE in shown.inner_text().replace("\u2060", ""), shown.inner_text()
            html = shown.inner_html()
            assert not [m for m in MARKUP if m in html], html
            # a bare address is linked by Streamlit as GitHub does, to itself: what the link
            # shows is where it goes (the [go](…) link's text is not a link)
            links = shown.locator("a")
            for i in range(links.count()):
                assert links.nth(i).get_attribute("href") == links.nth(i).inner_text(), html
            with rerun(page):
                nav = page.get_by_test_id("stSidebarNav")
                nav.get_by_role("link", name="Recommendations").click()
            expect(page.get_by_test_id("stMain")).to_contain_text("<img src=http://192.0.2.1")
            assert '<img src="http://192.0.2.1' not in page.content()
        finally:
            page.close()
    assert not [u for u in asked if "192.0.2.1" in u or not _local(u)], asked


_OVERLAPS = """(root) => {
  // every shown figure of the heatmap's squares and every x-axis label, as boxes; the pairs
  // of boxes that overlap (figures printed over each other) by more than a text box's
  // leading (its box is the font's whole line, taller than the glyphs)
  const shown = (el) => getComputedStyle(el).opacity !== '0' && el.getAttribute('opacity') !== '0';
  const boxes = (sel) => [...root.querySelectorAll(sel)].filter(shown)
    .map((el) => [el.textContent, el.getBoundingClientRect()])
    .filter(([t, b]) => t && b.width > 0);
  const clash = (list) => {
    const out = [];
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i][1], list[j][1]];
      const m = 3;
      if (a.left < b.right - m && b.left < a.right - m && a.top < b.bottom - m && b.top < a.bottom - m)
        out.push([list[i][0], list[j][0]]);
    }
    return out;
  };
  const figures = boxes('g.mark-text text');
  const labels = boxes('g[aria-label^="X-axis"] g.mark-text text, .role-axis-label text');
  return {figures: figures.length, labels: labels.length,
          clashes: clash(figures).concat(clash(labels)).slice(0, 5)};
}"""


@pytest.mark.parametrize(("width", "columns"), [(390, None), (1440, "all cells")])
def test_heatmap_figures_and_labels_never_overlap(app_url, browser_page, width, columns):
    """On a phone and with every cell as a column on a desktop, the squares narrow: a figure
    that no longer fits its square is left to the colour and the tooltip, and the column
    labels stand up, so no text is ever drawn over other text."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    page = browser_page
    page.set_viewport_size({"width": width, "height": 1600})
    try:
        page.goto(app_url.rstrip("/") + "/heatmaps")
        settled(page)
        chart = page.get_by_test_id("stVegaLiteChart").first
        expect(chart.locator('path[aria-roledescription="rect mark"]').first).to_be_visible()
        if columns:
            with rerun(page):
                page.get_by_test_id("stRadio").get_by_text(columns, exact=True).click()
            expect(chart.locator('path[aria-label*="write/"]').first).to_be_attached()
        # not the run: the chart is drawn at a first width and again once Streamlit has
        # measured its column, and nothing in the page tells when that is done
        page.wait_for_timeout(1500)
        seen = chart.evaluate(_OVERLAPS)
    finally:
        page.set_viewport_size({"width": 1400, "height": 1600})
    assert seen["labels"] >= 4, seen
    assert seen["clashes"] == [], seen


#: every page of the app: its address ("" is the landing Overview) and its title
PAGES = {
    "": None,
    "recommendations": "Recommendations",
    "heatmaps": "Heatmaps",
    "curves": "Curves",
    "compare": "Compare",
    "compare_sweeps": "Compare sweeps",
    "run_details": "Run details",
    "what_matters": "What matters",
    "operator": "Operator",
}
_SIDEWAYS = """() => {
  // the page's own scroll path: the main block, every box around it, and the document; a
  // table's or a code block's own frame inside the block may scroll, the page may not
  const path = [];
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  for (let el = main; el; el = el.parentElement) path.push(el);
  path.push(document.scrollingElement);
  return path.filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => [el.getAttribute('data-testid') || el.tagName, el.clientWidth, el.scrollWidth]);
}"""


def test_no_page_scrolls_sideways_in_a_narrow_window(app_url, browser_page):
    """At 800 px, the sidebar open beside the page, a table wider than its column scrolls in
    its own frame: the page itself never scrolls sideways."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    page = browser_page
    page.set_viewport_size({"width": 800, "height": 1000})
    try:
        for address, title in PAGES.items():
            page.goto(f"{app_url.rstrip('/')}/{address}")
            settled(page)
            heading = f"{title} — sweep quick" if title else "Sweep quick"
            expect(page.get_by_role("heading", name=heading)).to_be_visible()
            # not the run: the tables and charts are laid out again once Streamlit has
            # measured their column, and nothing in the page tells when that is done
            page.wait_for_timeout(1500)
            assert page.evaluate(_SIDEWAYS) == [], heading
    finally:
        page.set_viewport_size({"width": 1400, "height": 1600})


#: a run id typed that is none: backticks, Markdown, a formula, a link, HTML, and Streamlit's
#: icon and colour shortcodes (Streamlit rewrites ``:material/`` even inside code)
TYPED_RUN_ID = (
    "``a`` :material/warning: :rocket: :red[x] $a$ and $b$ <b>b</b> "
    "[l](http://192.0.2.1/) **x** ~~s~~ `"
)


def test_a_typed_run_id_is_shown_as_typed(app_url, browser_page):
    """Run details quotes text typed as a run id as those characters: one piece of code, no
    markup, no icon, no formula, none of it rewritten."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    page = browser_page
    page.goto(f"{app_url.rstrip('/')}/run_details")
    settled(page)
    box = page.get_by_label("Run id")
    box.fill(TYPED_RUN_ID)
    with rerun(page):
        box.press("Enter")
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("is not a run id")
    quoted = error.locator("code").first
    assert quoted.inner_text().replace("\u2060", "") == TYPED_RUN_ID, error.inner_html()
    markup = error.locator("a, b, strong, em, del, img, .katex, [data-testid='stIconMaterial']")
    assert markup.count() == 0, error.inner_html()


@pytest.mark.parametrize(
    ("address", "plot_height"),
    [("curves", CURVE_PLOT_HEIGHT), ("recommendations", TRADEOFF_PLOT_HEIGHT)],
)
def test_a_chart_keeps_its_plot_and_shows_its_title_and_legend(
    app_url, browser_page, address, plot_height
):
    """A chart's plot keeps its own height and its title, axes and legend are added to it:
    Streamlit had fitted the whole figure into the plot's height, which squeezed the curves'
    plot to a sixth of it with its title under the page's choices, and cut the trade-off's
    legend off ("breaks a limit" unseen)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    with _laptop_window(browser_page, app_url, address) as page:
        chart = page.get_by_test_id("stVegaLiteChart").first
        expect(chart.locator("svg").first).to_be_visible()
        # not the run: the chart is drawn at a first width and again once Streamlit has
        # measured its column, and nothing in the page tells when that is done
        page.wait_for_timeout(1500)
        box = chart.bounding_box()
        assert box is not None
        # a title line (14 px) and the x axis with its title take at least 60 px
        assert box["height"] >= plot_height + 60, (address, box)


def test_the_ranking_fits_a_laptop_window(app_url, browser_page):
    """At 1280 px, beside the sidebar, the quick sweep's ranking (scores, intervals, limits,
    cost) needs no sideways scrolling: it was 4 px wider than its frame."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)
    with _laptop_window(browser_page, app_url, "recommendations") as page:
        table = page.get_by_test_id("stDataFrame").first
        expect(table).to_be_visible()
        # not the run: the grid sizes its columns again once it has measured its frame,
        # and nothing in the page tells when that is done
        page.wait_for_timeout(1500)
        scroller = table.locator(".dvn-scroller")
        scroll, visible = scroller.evaluate("s => [s.scrollWidth, s.clientWidth]")
        assert scroll <= visible, (scroll, visible)


@contextlib.contextmanager
def _laptop_window(page: Any, app_url: str, address: str) -> Iterator[Any]:
    """``page`` at a laptop's 1280 px on the app's page ``address``; the module's window
    size after."""
    page.set_viewport_size({"width": 1280, "height": 1000})
    try:
        page.goto(f"{app_url.rstrip('/')}/{address}")
        settled(page)
        yield page
    finally:
        page.set_viewport_size({"width": 1400, "height": 1600})
