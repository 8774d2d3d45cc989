"""What an engineer reads on every page, in real headless Chromium at 1440 px beside the
sidebar, against ``raidsweep app`` on the verdict sweep (``tests.e2e.verdict``): no table is cut
off (none scrolls sideways), no figure reads "None" and no unit "mbps", and each configuration
of the ranking carries its drives and usable TB, as the trade-offs count them from the
simulated array's geometry. One browser session, one server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from recommender.recommendations import ClassRecommendation
from recommender.report import breakable_key, write_report
from sweeper.store import ParquetStore
from tests.e2e.verdict import CLASS, SWEEP, verdict_store
from tests.support.appserver import app_tab
from tests.support.sweeps import recommendation

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000
WIDTH_PX = 1440
#: the pages whose tables and words are checked (each as its sidebar link reads)
PAGES = ["Overview", "Recommendations", "Heatmaps", "Compare", "What matters"]
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
    with app_tab(store.root, log, TIMEOUT_MS, viewport={"width": WIDTH_PX, "height": 1800}) as tab:
        yield tab


def _go(page: Any, name: str) -> None:
    from playwright.sync_api import expect

    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    # Overview's header is the sweep's name alone.
    heading = f"{name} — sweep {SWEEP}" if name != "Overview" else f"Sweep {SWEEP}"
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)


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
    # Each of these pages shows one table at least on this sweep.
    expect(page.locator('[data-testid="stDataFrame"] td').first).to_be_attached()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
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
    page.get_by_test_id("stSelectbox").filter(has_text="Metric").click()
    page.get_by_role("option", name="MB/s", exact=True).click()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    chart = page.get_by_test_id("stVegaLiteChart").first
    expect(chart).to_contain_text("MB/s")
    assert "mbps" not in chart.inner_text().lower()
    assert "mbps" not in page.get_by_test_id("stMain").inner_text().lower()


def test_ranking_shows_drives_and_usable_tb_beside_each_configuration(page, rec) -> None:
    from playwright.sync_api import expect

    _go(page, "Recommendations")
    expect(page.locator('[data-testid="stDataFrame"] td').first).to_be_attached()
    ranking = _tables(page)[0]
    headers = ranking["headers"]
    at = headers.index("configuration")
    assert headers[at + 1 : at + 3] == ["drives", "usable TB"], headers
    width = len(headers)
    rows = [ranking["cells"][i : i + width] for i in range(0, len(ranking["cells"]), width)]
    keepers = rec.ranked[rec.ranked["meets_limits"].astype(bool)]
    assert len(rows) == len(keepers)
    for row, (_, r) in zip(rows, keepers.iterrows(), strict=True):
        assert row[at] == r["config_key"]
        assert int(row[at + 1]) == int(r["drives"])
        assert float(row[at + 2]) == pytest.approx(r["usable_gb"] / 1000)


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
