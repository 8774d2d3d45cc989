"""What an engineer reads on every page, in real headless Chromium at a laptop's 1280 px beside
the sidebar, against ``raidsweep app`` on the verdict sweep (``tests.e2e.verdict``): no table is
cut off (none scrolls sideways, the heatmap of every cell neither, the Curves page's tables
keeping each curve's points in view), no figure reads "None" and no unit "mbps", each
configuration of the ranking carries its drives and usable TB, as the trade-offs count them
from the simulated array's geometry, every chart has a title, and the ranking downloads as the
report's rankings CSV. At 800 px no metric and no link label is cut off. One server, one
browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from recommender.recommendations import ClassRecommendation
from recommender.report import breakable_key, csv_bytes, report_tables, write_report
from sweeper.store import ParquetStore
from tests.e2e.verdict import CLASS, SWEEP, verdict_store
from tests.support.appserver import app_tab, choose, go_to
from tests.support.appwait import rerun, settled, watch_runs
from tests.support.sweeps import recommendation

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000
WIDTH_PX = 1280
#: a narrow window (a laptop's half screen), the sidebar still open beside the page
NARROW_PX = 800
ROW_PX = 35  # st.dataframe's row height (and its header's)
#: the pages whose tables and words are checked (each as its sidebar link reads)
PAGES = ["Overview", "Recommendations", "Heatmaps", "Curves", "Compare", "What matters"]
#: how a table's figures would read where a missing value leaks through as Python's or pandas'
LEAKS = {"None", "nan", "NaN", "<NA>", "NaT"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return verdict_store(tmp_path_factory.mktemp("verdict"))


@pytest.fixture(scope="module")
def rec(store: ParquetStore) -> ClassRecommendation:
    return recommendation(store, SWEEP, CLASS)


@pytest.fixture(scope="module")
def page(store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("app") / "app.log"
    viewport = {"width": WIDTH_PX, "height": 1800}
    with app_tab(store.root, log, TIMEOUT_MS, viewport=viewport, accept_downloads=True) as tab:
        yield tab


def _go(page: Any, name: str) -> None:
    """Page ``name``, its run finished and nothing of the page before left."""
    from playwright.sync_api import expect

    go_to(page, name)
    # Overview's header is the sweep's name alone.
    heading = f"{name} — sweep {SWEEP}" if name != "Overview" else f"Sweep {SWEEP}"
    expect(page.get_by_role("heading", name=heading)).to_be_visible()


def _tables(page: Any) -> list[dict[str, Any]]:
    """Per table on the page: its scroll width and visible width, its headers and cells as
    the grid's accessible copy holds them (the visible columns only)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].map(t => {
            const s = t.querySelector('.dvn-scroller');
            return {scroll: s.scrollWidth, visible: s.clientWidth,
                    right: t.getBoundingClientRect().right,
                    headers: [...t.querySelectorAll('th')].map(h => h.textContent),
                    cells: [...t.querySelectorAll('td')].map(c => c.textContent)};
        })"""
    )


@pytest.mark.parametrize("name", PAGES)
def test_no_table_cut_off_no_none_no_mbps(page, name: str) -> None:
    from playwright.sync_api import expect

    _go(page, name)
    # Each of these pages shows one table at least on this sweep; each grid writes its
    # accessible copy once it is drawn.
    grids = page.get_by_test_id("stDataFrame")
    expect(grids.first.locator("td").first).to_be_attached()
    for i in range(grids.count()):
        expect(grids.nth(i).locator("td").first).to_be_attached()
    tables = _tables(page)
    for t in tables:
        assert t["scroll"] <= t["visible"] + 1, f"{name}: a table is cut off: {t['headers']}"
        assert t["right"] <= WIDTH_PX, f"{name}: a table runs off the window: {t['headers']}"
        assert not LEAKS & {c.strip() for c in t["cells"]}, f"{name}: {t['cells']}"
    text = page.get_by_test_id("stMain").inner_text()
    assert not re.search(r"\bNone\b", text), name
    assert not re.search(r"(?i)\bmbps\b", text), name
    expect(page.get_by_test_id("stMain")).not_to_contain_text("mbps")


def test_heatmap_of_mb_per_second_says_mb_s(page) -> None:
    from playwright.sync_api import expect

    _go(page, "Heatmaps")
    choose(page, "Metric", "MB/s")
    chart = page.get_by_test_id("stVegaLiteChart").first
    expect(chart).to_contain_text("MB/s")
    assert "mbps" not in chart.inner_text().lower()
    assert "mbps" not in page.get_by_test_id("stMain").inner_text().lower()


def test_ranking_shows_drives_and_usable_tb_of_each_configuration(page, rec) -> None:
    from playwright.sync_api import expect

    _go(page, "Recommendations")
    expect(page.locator('[data-testid="stDataFrame"] td').first).to_be_attached()
    ranking = _tables(page)[0]
    headers = ranking["headers"]
    at = headers.index("configuration")
    # the score beside the configuration, as the CLI writes it; drives and usable TB after
    # its interval and repetitions
    assert headers[at + 1].startswith("score"), headers
    drives = headers.index("drives")
    assert headers[drives + 1] == "usable TB" and drives > at + 1, headers
    width = len(headers)
    rows = [ranking["cells"][i : i + width] for i in range(0, len(ranking["cells"]), width)]
    keepers = rec.ranked[rec.ranked["meets_limits"].astype(bool)]
    assert len(rows) == len(keepers)
    for row, (_, r) in zip(rows, keepers.iterrows(), strict=True):
        assert row[at] == r["config_key"]
        assert int(row[drives]) == int(r["drives"])
        assert float(row[drives + 1]) == pytest.approx(r["usable_gb"] / 1000)


def test_report_shows_drives_and_usable_tb(store, rec, tmp_path) -> None:
    html_path = tmp_path / "report.html"
    write_report(store, store.get_sweep(SWEEP), html_path)
    html = html_path.read_text()
    assert "<th>configuration</th><th>drives</th><th>usable TB</th>" in html
    best = rec.ranked.iloc[0]
    row = f'<td>{breakable_key(best["config_key"])}</td><td class="num">{int(best["drives"])}</td>'
    assert row + f'<td class="num">{best["usable_gb"] / 1000:,.1f}</td>' in html
    markdown = html_path.with_suffix(".md").read_text()
    header = next(line for line in markdown.splitlines() if line.startswith("| rank"))
    # headed in words, the score with its unit
    pattern = r"\| configuration +\| +score \((IOPS|MB/s)\) .*\| +drives +\| +usable TB +\|"
    assert re.search(pattern, header), header


@pytest.mark.parametrize("width", [390, 1024, 1440])
def test_the_report_never_scrolls_sideways(store, rec, page, tmp_path, width: int) -> None:
    """The report at a phone's, a laptop's and a desktop's width in Chromium: the page is
    never wider than the window (a table wider than the page scrolls inside itself, a chart
    is scaled down), a configuration key wraps only between its parts, never inside one
    (``wb-ra``), every link of its contents leads to a section, and no cell says nan."""
    html_path = tmp_path / "report.html"
    write_report(store, store.get_sweep(SWEEP), html_path)
    context = page.context.browser.new_context(viewport={"width": width, "height": 900})
    try:
        report = context.new_page()
        report.goto(html_path.as_uri())
        seen = report.evaluate(
            """() => ({
              page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
              keys: [...document.querySelectorAll('td')].filter(td => td.querySelector('.part'))
                .map(td => td.innerText),
              split: [...document.querySelectorAll('.part')]
                .filter(p => p.getClientRects().length > 1).map(p => p.innerText),
              charts: [...document.querySelectorAll('.chart svg')]
                .map(c => c.getBoundingClientRect().right),
              links: [...document.querySelectorAll('nav.toc a')]
                .map(a => [a.getAttribute('href'), !!document.getElementById(
                  a.getAttribute('href').slice(1))]),
              nan: [...document.querySelectorAll('td')]
                .filter(td => td.innerText.trim().toLowerCase() === 'nan').length,
            })"""
        )
    finally:
        context.close()
    assert seen["page"][0] <= seen["page"][1], seen["page"]
    assert set(rec.ranked["config_key"]) <= {k.replace("\n", "") for k in seen["keys"]}
    assert seen["split"] == []
    assert seen["charts"] and max(seen["charts"]) <= seen["page"][1], seen["charts"]
    assert len(seen["links"]) >= 4 and all(found for _, found in seen["links"]), seen["links"]
    assert seen["nan"] == 0


def _fits(page: Any, name: str) -> None:
    for t in _tables(page):
        assert t["scroll"] <= t["visible"] + 1, f"{name}: a table is cut off: {t['headers']}"
        assert t["right"] <= WIDTH_PX, f"{name}: a table runs off the window: {t['headers']}"


def test_the_heatmap_of_every_cell_fits_a_laptop(page) -> None:
    """Every cell of the sweep at once: a table per pattern, each fitting the window."""
    from playwright.sync_api import expect

    _go(page, "Heatmaps")
    with rerun(page):
        page.get_by_test_id("stRadio").get_by_text("all cells", exact=True).click()
    grids = page.get_by_test_id("stDataFrame")
    expect(grids).to_have_count(3)  # randread, randwrite, write
    for i in range(3):  # each grid's accessible copy, written once it is drawn
        expect(grids.nth(i).locator("td").first).to_be_attached()
    tables = _tables(page)
    headers = [h for t in tables for h in t["headers"]]
    assert "8k/qd1x1" in headers and "configuration" in headers, headers
    _fits(page, "Heatmaps (all cells)")


def test_the_curves_show_each_point_in_view(page) -> None:
    """Curves: the summary shows each curve's configuration and the IOPS and mean latency of
    its Speed, Optimum and Maximum, the run list each run's configuration, cell, IOPS and
    link, both without scrolling sideways (their other columns in the column menu)."""
    from playwright.sync_api import expect

    _go(page, "Curves")
    grids = page.get_by_test_id("stDataFrame")
    expect(grids).to_have_count(2)
    for i in range(2):
        expect(grids.nth(i).locator("td").first).to_be_attached()
    points = {"Speed IOPS", "Speed ms", "Opt. IOPS", "Opt. ms", "Max. IOPS", "Max. ms"}
    summary, runs = _tables(page)  # these two only: _go waited for the page before to go
    assert {"configuration", *points} <= set(summary["headers"]), summary["headers"]
    assert {"configuration", "cell", "IOPS", "details"} <= set(runs["headers"]), runs["headers"]
    _fits(page, "Curves")


#: every text of the page that must never be cut off: st.metric's labels and values, and
#: the labels of links to other pages (an element wider inside than it shows is cut off)
_CUT_OFF = """() => [...document.querySelectorAll(
      '[data-testid="stMetricValue"], [data-testid="stMetricLabel"], [data-testid="stPageLink"]')]
    .flatMap(m => [m, ...m.querySelectorAll('*')]
      .filter(e => e.scrollWidth > e.clientWidth + 1)
      .map(e => [m.innerText, e.scrollWidth, e.clientWidth]))"""


@pytest.mark.parametrize("name", ["Overview", "Run details", "Recommendations"])
def test_nothing_is_cut_off_in_a_narrow_window(page, name: str) -> None:
    """At 800 px, the sidebar open: every metric (Overview's, a run's) and the links from a
    ranking's row read whole."""
    from playwright.sync_api import expect

    context = page.context.browser.new_context(viewport={"width": NARROW_PX, "height": 1200})
    try:
        watch_runs(context)
        narrow = context.new_page()
        narrow.goto("/".join(page.url.split("/")[:3]))  # the app's root: its landing page
        settled(narrow)
        _go(narrow, name)
        if name == "Recommendations":
            grid = narrow.get_by_test_id("stDataFrame").first
            grid.scroll_into_view_if_needed()
            box = grid.bounding_box()
            with rerun(narrow):
                narrow.mouse.click(box["x"] + 15, box["y"] + ROW_PX * 1.5)
            expect(narrow.get_by_test_id("stPageLink")).to_have_count(2)
        else:
            expect(narrow.get_by_test_id("stMetricValue").first).to_be_visible()
        cut = narrow.evaluate(_CUT_OFF)
    finally:
        context.close()
    assert cut == [], cut


@pytest.mark.parametrize("name", ["Recommendations", "Heatmaps", "Curves", "What matters"])
def test_every_chart_has_a_title(page, name: str) -> None:
    from playwright.sync_api import expect

    _go(page, name)
    charts = page.get_by_test_id("stVegaLiteChart")
    # every chart of the page is there (its run is over); Vega draws each in its own time
    for i in range(charts.count()):
        expect(charts.nth(i).locator("svg").first).to_be_attached()
    titles = charts.evaluate_all(
        """cs => cs.map(c => [...c.querySelectorAll('[aria-roledescription="title"]')]
             .map(t => t.getAttribute('aria-label')).join(' '))"""
    )
    assert titles and all(t.startswith("Title text") for t in titles), titles


def test_the_ranking_downloads_as_the_reports_rankings_csv(store, rec, page, tmp_path) -> None:
    """The same bytes as the report's rankings CSV holds for the class (``csv_bytes``), and
    the same rows as the report's file beside the HTML report."""
    from playwright.sync_api import expect

    _go(page, "Recommendations")
    button = page.get_by_role("button", name=f"Download the {CLASS} ranking (CSV)")
    expect(button).to_be_visible()
    with rerun(page), page.expect_download() as info:  # the button reruns the script
        button.click()
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    assert saved.read_bytes() == csv_bytes(report_tables([rec])["rankings"])
    html_path = tmp_path / "report.html"
    write_report(store, store.get_sweep(SWEEP), html_path)
    report = pd.read_csv(tmp_path / "report-rankings.csv")
    mine = pd.read_csv(saved)
    assert list(mine.columns) == list(report.columns)
    ours = report[report["class"] == CLASS].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, ours)
