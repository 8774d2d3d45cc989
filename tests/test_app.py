"""The browser app, driven headless with Streamlit's AppTest against a real sweep's store."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from recommender.data import heatmap_frame, load_rankings
from sweeper.store import ParquetStore
from sweeper.units import format_size

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def _app(monkeypatch: pytest.MonkeyPatch, root: Path) -> AppTest:
    monkeypatch.setenv("RAIDSWEEP_STORE", str(root))
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _page(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture(scope="module")
def quick(quick_store: ParquetStore):
    record = quick_store.get_sweep("quick")
    assert record is not None
    ranked, classes = load_rankings(quick_store, record)
    runs = quick_store.runs("quick")
    return quick_store, record, ranked, classes, runs


def test_overview_shows_progress_and_configurations(monkeypatch, quick):
    store, _record, _ranked, _classes, runs = quick
    at = _app(monkeypatch, store.root)
    assert at.selectbox(key="sweep").options == [r["sweep_id"] for r in store.list_sweeps()]
    assert "quick" in at.selectbox(key="sweep").options
    assert at.selectbox(key="sweep").value == "quick"
    metrics = {m.label: m.value for m in at.metric}
    configs = runs["config_key"].nunique()
    assert metrics["State"] == "finished"
    assert metrics["Configurations"] == f"{configs} / {configs}"
    assert metrics["Runs"] == f"{len(runs)} / {len(runs)}"
    table = at.dataframe[0].value
    assert sorted(table["configuration"]) == sorted(runs["config_key"].unique())
    counts = runs.groupby("config_key").size()
    for key, done in zip(table["configuration"], table["runs done"], strict=True):
        assert done == counts[key]


def test_rankings_page_ranks_per_class(monkeypatch, quick):
    store, _record, ranked, classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "rankings")
    assert at.selectbox(key="class").options == [c.name for c in classes]
    captions = [c.value for c in at.caption]
    assert any("geometric mean" in c for c in captions)

    at.selectbox(key="class").set_value("data_file").run()
    assert not at.exception
    data_file = at.dataframe[0].value
    expected = ranked[ranked["class"] == "data_file"].reset_index(drop=True)
    assert len(data_file) == runs["config_key"].nunique() == 9
    assert data_file["configuration"].iloc[0] == expected["config_key"].iloc[0]
    assert data_file["configuration"].iloc[0].startswith("raid10/")
    assert list(data_file["configuration"]) == list(expected["config_key"])
    for shown, row in zip(data_file["rank"], expected.itertuples(), strict=True):
        assert shown == (f"={row.rank}" if row.tied else str(row.rank))
    for shown, row in zip(data_file["limits"], expected.itertuples(), strict=True):
        assert shown == ("ok" if row.meets_limits else row.violations)

    at.selectbox(key="class").set_value("redo_log").run()
    assert not at.exception
    redo_log = at.dataframe[0].value
    expected = ranked[ranked["class"] == "redo_log"].reset_index(drop=True)
    assert list(redo_log["configuration"]) == list(expected["config_key"])
    assert list(redo_log["score"]) != list(data_file["score"])


def test_heatmap_page_draws_chart_and_table(monkeypatch, quick):
    store, record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "heatmaps")
    pattern = at.selectbox(key="pattern").value
    concurrency = at.selectbox(key="concurrency").value
    assert pattern == record["spec"]["matrix"]["patterns"][0]
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1
    spec = json.loads(charts[0].proto.spec)
    rect = spec["layer"][0]["encoding"]
    sizes = [format_size(b) for b in sorted(runs["block_size"].unique())]
    assert rect["x"]["sort"] == sizes
    assert {t["field"] for t in rect["tooltip"]} >= {"value", "sd", "n"}

    table = at.dataframe[0].value
    assert len(table) == runs["config_key"].nunique() == 9
    assert list(table.columns) == ["configuration", *sizes]
    frame = heatmap_frame(runs, pattern, "iops", concurrency)
    first = frame[frame["config_key"] == table["configuration"].iloc[0]]
    first = first.sort_values("block_size")["value"].to_list()
    assert table.iloc[0][sizes].to_list() == pytest.approx(first)

    at.selectbox(key="metric").set_value("MB/s").run()
    assert not at.exception
    assert at.dataframe[0].value.iloc[0][sizes].to_list() != pytest.approx(first)


def test_empty_store_says_how_to_start(monkeypatch, tmp_path):
    at = _app(monkeypatch, tmp_path)
    assert not at.get("selectbox")
    for page in ("overview", "rankings", "heatmaps"):
        if page != "overview":
            _page(at, page)
        assert any("raidsweep run examples/quick.yaml" in i.value for i in at.info), page
        assert not at.dataframe


def test_running_sweep_shows_new_runs(monkeypatch, quick, tmp_path):
    """A running sweep: the page is live, and a run stored after the first render appears."""
    store, *_ = quick
    root = tmp_path / "store"
    shutil.copytree(store.root / "quick", root / "quick")
    progress = json.loads((root / "quick" / "progress.json").read_text())
    progress.update(state="running", pid=os.getpid())
    (root / "quick" / "progress.json").write_text(json.dumps(progress))
    parts = sorted((root / "quick" / "runs").glob("*/*.parquet"))
    held = tmp_path / "held"
    held.mkdir()
    for p in parts[:5]:
        shutil.move(p, held / f"{p.parent.name}--{p.name}")

    at = _app(monkeypatch, root)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["State"] == "running"
    assert metrics["Runs"] == f"{len(parts) - 5} / {progress['runs_total']}"
    assert any("Live" in c.value for c in at.caption)

    for p in held.iterdir():
        folder, name = p.name.split("--")
        shutil.move(p, root / "quick" / "runs" / folder / name)
    at.run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Runs"] == f"{len(parts)} / {progress['runs_total']}"
