"""The surrogate's predictions as an engineer sees them, in real headless Chromium against
``raidsweep app`` on a real optimize-mode sweep of the simulated array that measured RAID 5 and
RAID 6 and one weak RAID 10 configuration only (its budget spent on those, given first), so
that the RAID 10 ones are predicted: under the ranking the configurations predicted, not
measured, italic and unranked with their interval, absent from the ranking's CSV; in the score
heatmap their cells dashed and italic, marked ~, in rows after every measured one, and gone when
the engineer hides them. One browser session, one server."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from recommender.data import sweep_classes
from recommender.predictions import TOP, nearest, sweep_predictions_all
from recommender.scoring import rank_classes
from recommender.views import predicted as shown
from sweeper.store import ParquetStore
from tests.support.appserver import app_tab, choose, go_to
from tests.support.appwait import rerun
from tests.support.specs import partly_measured_spec, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> tuple[ParquetStore, str]:
    tmp = tmp_path_factory.mktemp("partial")
    spec = partly_measured_spec()
    seeds = spec["study"]["seed_configurations"]
    store, outcome = sweep(write_spec(tmp, spec, "partial"), tmp / "store")
    assert outcome.configurations_done == len(seeds)
    assert set(store.runs(spec["name"])["config_key"]) == set(seeds)
    return store, spec["name"]


@pytest.fixture(scope="module")
def expected(stopped) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ranking and every prediction, from the recommender itself."""
    store, name = stopped
    record = store.get_sweep(name)
    assert record is not None
    ranked = rank_classes(store.runs(name), sweep_classes(record))
    found = sweep_predictions_all(record, ranked)
    assert len(nearest(found, TOP)), found
    return ranked, found


@pytest.fixture(scope="module")
def page(stopped, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    store, _ = stopped
    log = tmp_path_factory.mktemp("app") / "app.log"
    with app_tab(
        store.root, log, TIMEOUT_MS, viewport={"width": 1440, "height": 2400}, accept_downloads=True
    ) as tab:
        yield tab


def test_the_ranking_lists_predictions_apart_unranked(page, expected, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    ranked, found = expected
    near = nearest(found, TOP)
    name = str(near["class"].iloc[0])
    keys = [str(k) for k in near.loc[near["class"] == name, "config_key"]]
    go_to(page, "Recommendations")
    choose(page, "Workload class", name)
    main = page.get_by_test_id("stMain")
    heading = main.get_by_role("heading", name=f"Predicted, not measured ({len(keys)})")
    expect(heading).to_be_visible()
    table = page.get_by_test_id("stTable").filter(has_text=shown.NOT_RANKED)
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(keys))
    for i, key in enumerate(keys):
        row = rows.nth(i)
        expect(row).to_contain_text(key)
        expect(row).to_contain_text(shown.NOT_RANKED)  # where a measured row has its rank
        expect(row).to_contain_text(shown.MARK + " ")  # the predicted score, marked
        expect(row).to_contain_text("–")  # its 95% interval
        expect(row).to_contain_text("predicted")
    styles = rows.locator("td").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).fontStyle)"
    )
    assert styles and set(styles) == {"italic"}, styles
    # The ranking itself holds the measured configurations only, each with its rank.
    with rerun(page), page.expect_download() as info:  # the button reruns the script
        page.get_by_role("button", name=f"Download the {name} ranking (CSV)").click()
    saved = tmp_path / "ranking.csv"
    info.value.save_as(saved)
    with saved.open() as f:
        lines = list(csv.DictReader(f))
    measured = ranked.loc[ranked["class"] == name, "config_key"].astype(str)
    # the report's rankings CSV (its rows of the class): config_key, a numeric rank, tied
    assert [r["config_key"] for r in lines] == measured.to_list()
    assert not {r["config_key"] for r in lines} & set(keys)
    assert all(r["rank"].isdigit() and r["tied"] in {"True", "False"} for r in lines)


def test_the_score_heatmap_draws_predicted_cells_apart(page, expected) -> None:
    from playwright.sync_api import expect

    ranked, found = expected
    # what the grid should draw: the predictions of the listed configurations, in every class
    keys = set(nearest(found, TOP)["config_key"])
    measured = set(zip(ranked["class"], ranked["config_key"], strict=True))
    cells = found[found["config_key"].isin(keys)]
    cells = cells[
        [(c, k) not in measured for c, k in zip(cells["class"], cells["config_key"], strict=True)]
    ]
    go_to(page, "Heatmaps")
    choose(page, "Metric", "score (% of the class best)")
    chart = page.get_by_test_id("stVegaLiteChart").first
    predicted = chart.locator(
        'path[aria-roledescription="rect mark"][aria-label*="kind: predicted"]'
    )
    expect(predicted).to_have_count(len(cells))
    dashes = predicted.evaluate_all("ps => ps.map(p => p.getAttribute('stroke-dasharray'))")
    assert all(d for d in dashes), dashes
    labels = chart.locator('text[font-style="italic"]')
    texts = labels.evaluate_all("ts => ts.map(t => t.textContent)")
    assert len([t for t in texts if t.startswith(shown.MARK)]) == len(cells), texts
    # Every measured cell is an ordinary square: as many as the ranking has rows.
    squares = chart.locator('path[aria-roledescription="rect mark"]:not([aria-label*="kind:"])')
    expect(squares).to_have_count(len(ranked))
    # The predicted-only rows come after every measured row, each saying so.
    y_axis = chart.locator('g[aria-roledescription="axis"][aria-label^="Y-axis"] text')
    rows = [t for t in y_axis.evaluate_all("ns => ns.map(n => n.textContent)") if "/" in t]
    marked = [i for i, t in enumerate(rows) if shown.PREDICTED in t]
    only = {str(k) for k in cells["config_key"]} - set(ranked["config_key"])
    assert {rows[i].split()[0] for i in marked} == only, rows
    assert marked == list(range(len(rows) - len(only), len(rows))), rows
    expect(page.get_by_test_id("stMain")).to_contain_text(
        f"Predicted, not measured ({len(cells)} cells)"
    )
    # Hidden on request: no predicted cell is left.
    box = page.get_by_test_id("stCheckbox").filter(has_text="Show predictions")
    with rerun(page):
        box.locator("label").click()
    expect(predicted).to_have_count(0)
    expect(squares).to_have_count(len(ranked))
