"""The app holds up to what a store holds, and to what the user named: a row selected in one
ranking or one cell's runs is never taken for a row of another; classes named ``dimension``
and ``configuration`` never fall on the pages' own columns; a sweep without classes, whose
runs all failed, or that has not stored a run yet says so plainly, and a page opened before
the first run lands follows the runs as they come.

One small sweep on the simulated array (four configurations, one cell, twice), and sweeps
derived from it through the store's own writes: one configuration alone, one run missing, no
classes, every run failed, and a sweep under way with no run yet.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from app_pages import _common
from recommender import views
from recommender.data import load_recommendations
from recommender.importance import class_importances
from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.support.specs import class_measuring, one_cell_sim, write_spec
from tests.support.sweeps import sweep

SWEEP = "names"
#: valid class names, and the names of the pages' own columns
CLASSES = ("dimension", "configuration")
RAID5 = "raid5/single_rank/wb-ra"
RAID10 = "raid10/single_rank/wb-ra"
CELL = "randread/8k/qd1x16"
Row = dict[str, Any]


def _runs(store: ParquetStore, sweep_id: str) -> list[Row]:
    """Every run of the sweep with every column, as the store gives one run."""
    ids = store.runs(sweep_id, include_failed=True)["run_id"]
    return [row for row in map(store.run_detail, ids) if row is not None]


def _derive(
    source: ParquetStore,
    into: ParquetStore,
    new: str,
    *,
    keep: Callable[[Row], bool] = lambda _row: True,
    change: Callable[[Row], Row] = lambda row: row,
    spec: dict[str, Any] | None = None,
    progress: dict[str, Any] | None = None,
) -> None:
    """The sweep SWEEP of ``source`` written again as ``new`` into ``into``: the runs ``keep``
    keeps, each as ``change`` makes it; ``spec`` laid over its spec, ``progress`` over its
    progress record."""
    record = source.get_sweep(SWEEP) or {}
    record |= {"sweep_id": new, "spec": record["spec"] | {"name": new} | (spec or {})}
    into.create_sweep(new, record)
    configs = source.configurations(SWEEP).astype(object)
    for config in configs.where(configs.notna(), None).to_dict("records"):
        into.put_configuration(config | {"sweep_id": new})
    for row in filter(keep, _runs(source, SWEEP)):
        into.put_run(change(row) | {"sweep_id": new})
    into.write_progress(new, (source.read_progress(SWEEP) or {}) | (progress or {}))


def _failed(row: Row) -> Row:
    """The run as an attempt that failed: no figures, an error instead."""
    figures = ("iops", "mbps", "read_iops", "write_iops", "read_lat_p99_ms", "write_lat_p99_ms")
    return row | dict.fromkeys(figures) | {"status": "failed", "error": "fio: exited with 1"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    folder = tmp_path_factory.mktemp("robust")
    spec = one_cell_sim(SWEEP, ["raid5", "raid10"], repetitions=2)
    spec["config_space"] |= {"layout": ["single_rank", "host_stripe"], "ranks": [4]}
    spec["config_space"] |= {"stripe_kib": [64]}
    spec["classes"] = [class_measuring(folder, spec["matrix"], name=n) for n in CLASSES]
    store, outcome = sweep(write_spec(folder, spec, SWEEP), folder / "store")
    assert outcome.complete
    _derive(store, store, "onecfg", keep=lambda r: r["config_key"] == RAID5)
    _derive(store, store, "uneven", keep=lambda r: (r["config_key"], r["repetition"]) != (RAID5, 2))
    _derive(store, store, "nocls", spec={"classes": []})
    _derive(store, store, "failed", change=_failed)
    _derive(store, store, "limited", spec={"classes": [_limit_between(folder, store)]})
    return store


def _limit_between(folder: Path, store: ParquetStore) -> str:
    """A class file whose p99 read latency limit lies between the configurations' own, so
    that some keep it and some break it."""
    p99 = store.runs(SWEEP).groupby("config_key")["read_lat_p99_ms"].mean().sort_values()
    assert p99.iloc[0] < p99.iloc[-1], p99
    path = folder / "limited.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "limited",
                "description": "the cell, with a limit some configurations break",
                "metric": "iops",
                "cells": [{"cell": CELL, "weight": 1}],
                "limits": [{"metric": "read_lat_p99", "max": f"{p99.iloc[1:3].mean():.4f}ms"}],
            }
        )
    )
    return str(path)


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    return at


def _open(monkeypatch: pytest.MonkeyPatch, root: Path, sweep_id: str, page: str) -> AppTest:
    at = open_app(monkeypatch, root)
    at.selectbox(key="sweep").set_value(sweep_id).run()
    at.switch_page(f"app_pages/{page}.py").run()
    return _ok(at)


def _select(at: AppTest, table: int, row: int) -> AppTest:
    """Select ``row`` of the page's ``table``-th table, as a click on it does."""
    key = at.dataframe[table].key
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def _selected(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("Selected:")]


def _infos(at: AppTest) -> str:
    return " ".join(i.value for i in at.info)


def _record(store: ParquetStore) -> dict[str, Any]:
    record = store.get_sweep(SWEEP)
    assert record is not None
    return record


# a selection kept from another table ----------------------------------------------------------
def test_a_ranking_row_selected_in_one_sweep_is_not_selected_in_another(monkeypatch, store):
    at = _open(monkeypatch, store.root, SWEEP, "recommendations")
    second = at.dataframe[0].value["configuration"].iloc[1]
    _ok(_select(at, 0, 1))
    assert [m.split("  ")[0] for m in _selected(at)] == [f"Selected: `{second}`"]
    at.selectbox(key="sweep").set_value("onecfg").run()  # one row: row 2 is past its end
    _ok(at)
    assert not _selected(at)
    assert any("Select a row" in c.value for c in at.caption)


def test_a_ranking_row_selected_in_one_class_is_not_selected_in_another(monkeypatch, store):
    at = _open(monkeypatch, store.root, SWEEP, "recommendations")
    _ok(_select(at, 0, 1))
    assert _selected(at)
    at.selectbox(key="class").set_value(CLASSES[1]).run()  # as many rows: row 2 would fit
    _ok(at)
    assert not _selected(at), "a row the user never chose in this class is selected"


def test_a_cells_run_selected_is_not_taken_for_another_cells(monkeypatch, store):
    at = _open(monkeypatch, store.root, "uneven", "heatmaps")
    cell = at.selectbox(key="heatmap_cell")
    cell.set_value(f"{RAID10} · 8k").run()
    assert f"**2 runs** of **{RAID10}** at **8k**" in [m.value for m in at.markdown]
    _ok(_select(at, 1, 1))
    assert [link.proto.label for link in at.get("page_link")], "the run is not selected"
    at.selectbox(key="heatmap_cell").set_value(f"{RAID5} · 8k").run()  # one run
    _ok(at)
    assert f"**1 runs** of **{RAID5}** at **8k**" in [m.value for m in at.markdown]
    assert not at.get("page_link")
    assert any("Select a row" in c.value for c in at.caption)


def test_the_row_clicked_last_is_the_one_chosen_of_the_two_tables(monkeypatch, store):
    """A row selected in the ranking and one in the limit breakers' table: the one clicked
    last is the one chosen (the breakers' table, drawn second, had always won)."""
    at = _open(monkeypatch, store.root, "limited", "recommendations")
    kept, broken = (at.dataframe[i].value["configuration"] for i in (0, 1))
    assert len(kept) and len(broken), "the class's limit must split the configurations"

    def chosen() -> str:
        (line,) = _selected(at)
        return line.split("  ")[0]

    _ok(_select(at, 1, 0))
    assert chosen() == f"Selected: `{broken.iloc[0]}`"
    _ok(_select(at, 0, 0))
    assert chosen() == f"Selected: `{kept.iloc[0]}`"
    _ok(at.run())  # nothing clicked: the choice stands
    assert chosen() == f"Selected: `{kept.iloc[0]}`"
    _ok(_select(at, 1, len(broken) - 1))
    assert chosen() == f"Selected: `{broken.iloc[-1]}`"


# classes named as the pages' own columns ----------------------------------------------------
def test_a_class_named_dimension_is_weighed_beside_the_dimensions(monkeypatch, store):
    at = _open(monkeypatch, store.root, SWEEP, "what_matters")
    expected = class_importances(views.ranked_all(load_recommendations(store, _record(store))))
    table = at.dataframe[0].value
    assert list(table.columns) == ["dimension", "dimension (class)", "configuration"]
    shares = table.set_index("dimension")
    for row in expected.itertuples():
        column = "dimension (class)" if row[1] == "dimension" else row[1]
        assert shares.loc[row.dimension, column] == pytest.approx(100 * row.importance)


def test_a_class_named_configuration_has_a_score_column_of_its_own(monkeypatch, store):
    at = _open(monkeypatch, store.root, SWEEP, "heatmaps")
    at.selectbox(key="metric").set_value(views.SCORE_LABEL).run()
    _ok(at)
    recs = {r.name: r for r in load_recommendations(store, _record(store))}
    table = at.dataframe[0].value
    assert list(table.columns) == ["configuration", "dimension", "configuration (class)"]
    assert set(table["configuration"]) == set(recs["configuration"].ranked["config_key"])
    best = recs["configuration"].best["config_key"]
    scores = table.set_index("configuration")["configuration (class)"]
    assert scores[best] == pytest.approx(100)
    # Sorting by the class's column is not sorting by key.
    sort = at.selectbox(key="heatmap_sort_class")
    assert sort.options == [
        "configuration",
        "score in dimension",
        "score in configuration",
        "dimension",
        "configuration (class)",
    ]
    by_score = list(scores.sort_values(ascending=False).index)
    assert by_score != sorted(by_score)
    sort.set_value("configuration (class)").run()
    _ok(at)
    assert list(at.dataframe[0].value["configuration"]) == by_score
    at.selectbox(key="heatmap_sort_class").set_value("configuration").run()
    assert list(at.dataframe[0].value["configuration"]) == sorted(by_score)


# sweeps with nothing to show ----------------------------------------------------------------
def test_a_sweep_without_classes_offers_no_score(monkeypatch, store):
    at = _open(monkeypatch, store.root, "nocls", "heatmaps")
    metric = at.selectbox(key="metric")
    assert views.SCORE_LABEL not in metric.options
    assert "names no workload classes" in (metric.help or "")
    assert not any("None" in i.value for i in at.info)


@pytest.mark.parametrize("page", ["recommendations", "heatmaps", "what_matters"])
def test_a_sweep_whose_runs_all_failed_says_so(monkeypatch, store, page):
    at = _open(monkeypatch, store.root, "failed", page)
    said = _infos(at)
    assert "all 8 runs stored failed" in said, said
    assert "Run details" in said and "`raidsweep status failed`" in said, said
    assert "yet" not in said, said


def test_heatmaps_of_a_sweep_under_way_follow_its_first_runs(monkeypatch, store, tmp_path):
    """A sweep started, no run stored: the page says so and refreshes; the runs that land
    then are drawn, the choices built from them too, by the refreshing part alone (the part a
    refresh draws again while the sweep runs)."""
    later = ParquetStore(tmp_path / "store")
    running = {"state": "running", "pid": os.getpid()}
    _derive(store, later, "startup", keep=lambda _row: False, progress=running)
    at = _open(monkeypatch, later.root, "startup", "heatmaps")
    said = _infos(at)
    assert "No runs" in said and "yet" in said, said
    assert any("Live" in c.value for c in at.caption), "the note is not refreshed"

    live = _common.live

    def land_then_refresh(store_: ParquetStore, sweep_id: str, render: Callable[[], None]):
        # Runs land after the page's first lines ran: what a refresh draws is render's alone.
        rows = _runs(store, SWEEP)
        for row in rows:
            later.put_run(row | {"sweep_id": "startup"})
        live(store_, sweep_id, render)

    monkeypatch.setattr(_common, "live", land_then_refresh)
    at.run()
    _ok(at)
    assert not at.info, _infos(at)
    assert at.selectbox(key="pattern").options == ["randread"]
    assert len(at.dataframe[0].value) == 4


# links that name the sweep ----------------------------------------------------------------
def test_the_pages_links_carry_the_sweep_in_their_address(monkeypatch, store):
    """The links to Compare and Run details (a ranking's row) and to Run details (a heatmap
    cell's run) open their page with the sweep already in its address: set by the page they
    open instead, the browser's history held that page twice, and Back stayed on it."""
    at = _open(monkeypatch, store.root, SWEEP, "recommendations")
    _ok(_select(at, 0, 1))
    ranking = at.get("page_link")
    assert len(ranking) == 2, [link.proto.label for link in ranking]
    at = _open(monkeypatch, store.root, "uneven", "heatmaps")
    at.selectbox(key="heatmap_cell").set_value(f"{RAID10} · 8k").run()
    _ok(_select(at, 1, 1))
    heatmap = at.get("page_link")
    assert heatmap, "the run is not selected"
    for link, name in [(x, SWEEP) for x in ranking] + [(x, "uneven") for x in heatmap]:
        assert link.proto.query_string == f"sweep={name}", (link.proto.label, name)
