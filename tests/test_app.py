"""The browser app, driven headless with Streamlit's AppTest against a real sweep's store.

Every page is opened on the session's quick sweep (nine configurations, six classes) and what
it shows is checked against the recommender's and the store's own answers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import yaml
from streamlit.testing.v1 import AppTest

from app_pages import _charts
from recommender import views
from recommender.charts import tradeoff_points
from recommender.curves import sweep_curves
from recommender.data import heatmap_frame, load_rankings, load_recommendations
from recommender.figures import figure, score_spec
from recommender.importance import class_importances
from recommender.scoring import FORMULA
from recommender.tradeoffs import TRADEOFF_FORMULA
from recommender.views.runs import run_list
from sweeper.store import ParquetStore
from sweeper.units import format_size
from tests.support.apptest import open_app as _app
from tests.support.cli import cli
from tests.support.paths import QUICK
from tests.support.specs import class_measuring


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _page(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _chart_data(at: AppTest, index: int = 0) -> pd.DataFrame:
    """The data of the page's ``index``-th Altair chart, as the browser receives it."""
    chart = at.get("vega_lite_chart")[index].proto
    return pa.ipc.open_stream(chart.datasets[0].data.data).read_all().to_pandas()


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown] + [c.value for c in at.caption]


@pytest.fixture(scope="module")
def quick(quick_store: ParquetStore):
    record = quick_store.get_sweep("quick")
    assert record is not None
    ranked, classes = load_rankings(quick_store, record)
    runs = quick_store.runs("quick")
    return quick_store, record, ranked, classes, runs


@pytest.fixture(scope="module")
def recs(quick):
    store, record, *_ = quick
    return {r.name: r for r in load_recommendations(store, record)}


def test_overview_shows_progress_and_configurations(monkeypatch, quick):
    store, _record, _ranked, _classes, runs = quick
    at = _app(monkeypatch, store.root)
    assert at.selectbox(key="sweep").options == [r["sweep_id"] for r in store.list_sweeps()]
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


def test_recommendations_page_decides_per_class(monkeypatch, quick, recs):
    store, record, ranked, classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "recommendations")
    assert at.selectbox(key="class").options == [c.name for c in classes]
    texts = _texts(at)
    assert any(FORMULA in t for t in texts) and any(TRADEOFF_FORMULA in t for t in texts)

    shown = {}
    for name in ("data_file", "dss_scan"):
        at.selectbox(key="class").set_value(name).run()
        _ok(at)
        rec = recs[name]
        expected = ranked[ranked["class"] == name].reset_index(drop=True)
        # The decision: the first row of the recommender's ranking, in its own sentence.
        assert len(at.success) == 1 and rec.sentence() in at.success[0].value
        assert expected["config_key"].iloc[0] in at.success[0].value
        # Keepers, then the configurations that break a limit in a table of their own.
        breakers = int((~expected["meets_limits"].astype(bool)).sum())
        frames = [at.dataframe[0].value] + ([at.dataframe[1].value] if breakers else [])
        table = pd.concat(frames, ignore_index=True)
        assert len(frames[-1]) == (breakers or len(table))
        assert len(table) == runs["config_key"].nunique() == 9
        assert list(table["configuration"]) == list(expected["config_key"])
        for label, row in zip(table["rank"], expected.itertuples(), strict=True):
            assert label == (f"={row.rank}" if row.tied else str(row.rank))
        assert list(table["repetitions"]) == list(expected["repetitions"]) == [3] * 9
        warned = " ".join(w.value for w in at.warning)
        for row in expected[~expected["meets_limits"].astype(bool)].itertuples():
            for broke in row.violations.split("; "):
                assert broke in warned  # in full, not cut
        # Trade-offs, with cost per unit because the quick spec gives prices.
        assert table["usable %"].tolist() == pytest.approx(
            (100 * rec.ranked["usable_share"]).tolist()
        )
        assert table["cost per unit"].tolist() == pytest.approx(
            rec.ranked["cost_per_unit"].tolist()
        )
        # The evidence against the runner-up, cell by cell.
        evidence = at.dataframe[len(frames)].value
        assert list(evidence["cell"]) == list(rec.evidence["cell"])
        assert evidence["ratio"].tolist() == pytest.approx(rec.evidence["ratio"].tolist())
        assert any(rec.runner_up["config_key"] in m for m in _texts(at))
        # The Pareto view plots every configuration, the front marked.
        data = _chart_data(at)
        front = set(data.loc[data["front"] == "on the trade-off front", "config_key"])
        assert front == set(rec.ranked.loc[rec.ranked["tradeoff_front"], "config_key"])
        broken = set(data.loc[data["front"] == "breaks a limit", "config_key"])
        assert broken == set(rec.ranked.loc[~rec.ranked["meets_limits"], "config_key"])
        assert len(data) == 9
        shown[name] = at.success[0].value
    # Switching the class changes the decision (dss_scan is decided by another configuration).
    assert shown["data_file"] != shown["dss_scan"]
    assert recs["data_file"].best["config_key"] != recs["dss_scan"].best["config_key"]

    # A class whose ranking has limit breakers names the cell that broke the limit.
    at.selectbox(key="class").set_value("data_file").run()
    broken = recs["data_file"].ranked.loc[~recs["data_file"].ranked["meets_limits"]]
    assert len(broken), "the quick sweep has data_file configurations over the 20 ms p99 bound"
    warning = next(w.value for w in at.warning if "What broke" in w.value)
    for key, why in zip(broken["config_key"], broken["violations"], strict=True):
        assert f"**{key}** — {why}" in warning
        assert "/qd" in why  # the cell is named


def test_heatmap_by_block_size(monkeypatch, quick):
    store, record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "heatmaps")
    pattern = at.selectbox(key="pattern").value
    concurrency = at.selectbox(key="concurrency").value
    assert pattern == record["spec"]["matrix"]["patterns"][0]
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1
    spec = json.loads(charts[0].proto.spec)
    rect = spec["layer"][0]
    sizes = [format_size(b) for b in record["spec"]["matrix"]["block_sizes"]]
    assert rect["encoding"]["x"]["sort"] == sizes
    assert {t["field"] for t in rect["encoding"]["tooltip"]} >= {"value", "interval", "n"}
    # A click selects a cell: a point selection over (configuration, column) on the squares.
    (param,) = spec["params"]
    assert param["select"] == {
        "type": "point",
        "fields": ["config_key", "column"],
        "on": "click",
        "clear": "dblclick",
    }
    assert param["views"] == [rect["name"]]

    table = at.dataframe[0].value
    assert len(table) == runs["config_key"].nunique() == 9
    assert list(table.columns) == ["configuration", *sizes]
    frame = heatmap_frame(runs, pattern, "iops", concurrency)
    first = frame[frame["config_key"] == table["configuration"].iloc[0]]
    first = first.sort_values("block_size")["value"].to_list()
    assert table.iloc[0][sizes].to_list() == pytest.approx(first)
    # The narrow columns' headers may be cut short: each names its whole cell on hover.
    config = json.loads(at.dataframe[0].proto.columns)
    assert {name: config[name].get("help") for name in sizes} == {name: name for name in sizes}

    at.selectbox(key="metric").set_value("MB/s").run()
    _ok(at)
    assert at.dataframe[0].value.iloc[0][sizes].to_list() != pytest.approx(first)


def test_heatmap_by_pattern_and_a_cells_runs(monkeypatch, quick):
    store, _record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "heatmaps")
    at.radio(key="heatmap_by").set_value("pattern").run()
    at.selectbox(key="block_size").set_value(8192).run()
    at.selectbox(key="concurrency").set_value("qd1x16").run()
    _ok(at)
    table = at.dataframe[0].value
    sel = runs[(runs["block_size"] == 8192) & (runs["numjobs"] == 16) & (runs["iodepth"] == 1)]
    patterns = sorted(sel["pattern"].unique())
    assert list(table.columns) == ["configuration", *patterns]
    means = sel.groupby(["config_key", "pattern"])["iops"].mean()
    for row in table.itertuples(index=False):
        for pattern in patterns:
            assert getattr(row, pattern) == pytest.approx(means[(row.configuration, pattern)])

    # A cell's runs: the store's runs of that configuration at that pattern and block size.
    key = "raid5/pool_stripe/ranks4/stripe1g/wb-ra"
    at.selectbox(key="heatmap_cell").set_value(f"{key} · randrw70").run()
    _ok(at)
    expected = sel[(sel["config_key"] == key) & (sel["pattern"] == "randrw70")]
    assert f"**{len(expected)} runs** of **{key}** at **randrw70**" in _texts(at)
    cell_runs = at.dataframe[1].value
    assert sorted(cell_runs["run id"]) == sorted(expected["run_id"]) and len(expected) == 3
    assert set(cell_runs["cell"]) == {"randrw70/8k/qd1x16"}

    # Settings under which the chosen cell no longer exists drop the choice, not the page.
    at.selectbox(key="block_size").set_value(1048576).run()
    _ok(at)
    assert at.selectbox(key="heatmap_cell").value is None


def test_heatmap_score_per_class(monkeypatch, quick, recs):
    store, *_ = quick
    at = _page(_app(monkeypatch, store.root), "heatmaps")
    at.selectbox(key="metric").set_value(views.SCORE_LABEL).run()
    _ok(at)
    table = at.dataframe[0].value
    assert list(table.columns) == ["configuration", *recs]
    for name, rec in recs.items():
        best = table.loc[table[name].idxmax()]
        assert best["configuration"] == rec.ranked.loc[rec.ranked["score"].idxmax(), "config_key"]
        assert best[name] == pytest.approx(100)
    # The cell of a class: the configuration's runs of the class's cells.
    key = recs["redo_log"].best["config_key"]
    at.selectbox(key="heatmap_cell").set_value(f"{key} · redo_log").run()
    _ok(at)
    cell_runs = at.dataframe[1].value
    assert set(cell_runs["cell"]) == set(recs["redo_log"].wclass.cell_keys)
    assert len(cell_runs) == 3 * len(recs["redo_log"].wclass.cell_keys)


def test_clicked_cell_reads_the_point_selection():
    event = {"selection": {"cell": [{"config_key": "raid5/single_rank/wb-ra", "column": "8k"}]}}
    assert _charts.clicked_cell(event) == ("raid5/single_rank/wb-ra", "8k")
    assert _charts.clicked_cell({"selection": {"cell": []}}) is None
    assert _charts.clicked_cell({"selection": {}}) is None
    assert _charts.clicked_cell(None) is None
    label = _charts.cell_label("raid5/single_rank/wb-ra", "randrw70")
    assert _charts.parse_cell_label(label) == ("raid5/single_rank/wb-ra", "randrw70")


def test_curves_page_marks_speed_optimum_maximum(monkeypatch, quick):
    store, record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "curves")
    chosen = at.multiselect(key="curve_configs").value
    pattern = at.selectbox(key="curve_pattern").value
    block_size = at.selectbox(key="curve_block_size").value
    assert len(chosen) == 3
    curves = sweep_curves(runs, record["spec"]["matrix"])
    expected = curves[
        curves["config_key"].isin(chosen)
        & (curves["pattern"] == pattern)
        & (curves["block_size"] == block_size)
    ]
    summary = at.dataframe[0].value
    assert len(summary) == len(expected) == 3
    for row, curve in zip(summary.itertuples(index=False), expected.itertuples(), strict=True):
        assert row.curve.startswith(curve.config_key)
        assert row[summary.columns.get_loc("Speed IOPS")] == pytest.approx(curve.speed.iops)
        assert row[summary.columns.get_loc("Maximum IOPS")] == pytest.approx(curve.maximum.iops)
    # psync: one I/O in flight per job, so the quick matrix's curves run from 1 to 16.
    assert set(summary["Speed in flight"]) == {1}
    roles = set(_chart_data(at)["role"])
    assert {"Speed", "Maximum"} <= roles

    at.multiselect(key="curve_configs").set_value(chosen[:1]).run()
    _ok(at)
    assert len(at.dataframe[0].value) == 1


def test_compare_page_sets_two_configurations_side_by_side(monkeypatch, quick, recs):
    store, _record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "compare")
    a, b = at.selectbox(key="compare_a").value, at.selectbox(key="compare_b").value
    # The default: the first class's recommendation against its runner-up.
    assert (a, b) == (recs["redo_log"].best["config_key"], recs["redo_log"].runner_up["config_key"])
    at.selectbox(key="compare_b").set_value("raid6/single_rank/wb-ra").run()
    _ok(at)
    b = "raid6/single_rank/wb-ra"
    assert f"**A** = `{a}`  \n**B** = `{b}`" in _texts(at)

    scores = at.dataframe[0].value
    assert list(scores["class"]) == list(recs)
    for row in scores.itertuples(index=False):
        part = recs[row[0]].ranked.set_index("config_key")
        spec = score_spec(part["score"])  # as the class's ranking writes its scores
        assert row[3] == figure(part.loc[a, "score"], spec)
        assert row[5] == figure(part.loc[b, "score"], spec)
        assert row[6] == pytest.approx(part.loc[a, "score"] / part.loc[b, "score"])

    cells = at.dataframe[1].value
    assert len(cells) == runs["cell_key"].nunique() == 42
    mean_a = runs[runs["config_key"] == a].groupby("cell_key")["iops"].mean()
    mean_b = runs[runs["config_key"] == b].groupby("cell_key")["iops"].mean()
    assert cells.set_index("cell")["A / B"].to_dict() == pytest.approx((mean_a / mean_b).to_dict())

    # one figure a row, each written in its own format (money with the sweep's currency)
    trade = at.dataframe[2].value.set_index("figure")
    assert trade.loc["usable share", "A"] == "50%"  # RAID 10: mirrored pairs
    assert trade.loc["usable share", "B"] == "75%"  # RAID 6: 6 + 2
    assert trade.loc["drives", "A"] == "32" and trade.loc["drives", "B"] == "8"
    risk = trade.loc["data-loss risk per year"]
    # as `raidsweep recommend` writes it (recommender.views.markdown.risk_text): 1.1e-06
    assert all(re.fullmatch(r"\d\.\de-\d\d", v) for v in risk), risk
    currency = (_record["spec"].get("prices") or {}).get("currency")
    if currency:
        assert trade.loc["cost", "A"].endswith(f" {currency}")

    at.selectbox(key="compare_b").set_value(a).run()
    assert not at.exception
    assert any("two different" in w.value for w in at.warning)


def test_run_details_shows_the_stored_run(monkeypatch, quick):
    store, _record, _ranked, _classes, runs = quick
    at = _page(_app(monkeypatch, store.root), "run_details")
    key, cell = "raid6/pool_stripe/ranks4/stripe1g/wb-ra", "randwrite/8k/qd1x16"
    at.selectbox(key="run_config").set_value(key).run()
    at.selectbox(key="run_cell").set_value(cell).run()
    at.selectbox(key="run_repetition").set_value(2).run()
    _ok(at)
    run_id = runs.loc[
        (runs["config_key"] == key) & (runs["cell_key"] == cell) & (runs["repetition"] == 2),
        "run_id",
    ].item()
    detail = store.run_detail(run_id)
    # st.code drops the file's final newline; the text is otherwise the stored job file.
    assert [c.value for c in at.code][0] == detail["job_file"].rstrip("\n")
    assert "rw=randwrite" in detail["job_file"]
    shown_json = [json.loads(j.value) for j in at.get("json")]
    assert shown_json[0] == json.loads(detail["disclosure"])
    assert shown_json[1] == json.loads(detail["fio_json"])
    assert any(run_id in c for c in _texts(at))

    # A run picked on another page arrives by its id.
    other = runs["run_id"].iloc[-1]
    at.session_state["run_pick"] = other
    at.run()
    _ok(at)
    assert at.text_input(key="run_id").value == other
    assert [c.value for c in at.code][0] == store.run_detail(other)["job_file"].rstrip("\n")

    # Bad input gets a clear message, not a traceback.
    at.text_input(key="run_id").set_value("not-a-run").run()
    assert not at.exception
    assert any("is not a run id" in e.value for e in at.error)
    at.text_input(key="run_id").set_value("0" * 24).run()
    assert not at.exception
    assert any("No run 000000000000000000000000" in e.value for e in at.error)


def test_what_matters_names_the_dimension_per_class(monkeypatch, quick):
    store, _record, ranked, _classes, _runs = quick
    at = _page(_app(monkeypatch, store.root), "what_matters")
    expected = class_importances(ranked)
    for name in ("data_file", "backup_target"):
        at.selectbox(key="importance_class").set_value(name).run()
        _ok(at)
        mine = expected[expected["class"] == name].sort_values("importance", ascending=False)
        top = mine.iloc[0]
        assert f"**{top['dimension']}** matters most" in " ".join(_texts(at))
    wide = at.dataframe[0].value.set_index("dimension")
    assert set(wide.columns) == set(expected["class"])
    for row in expected.itertuples():
        assert wide.loc[row.dimension, row._1] == pytest.approx(100 * row.importance)


def test_empty_store_says_how_to_start(monkeypatch, tmp_path):
    at = _app(monkeypatch, tmp_path)
    assert not at.get("selectbox")
    pages = (
        "overview",
        "recommendations",
        "heatmaps",
        "curves",
        "compare",
        "run_details",
        "what_matters",
    )
    for page in pages:
        if page != "overview":
            _page(at, page)
        assert any("raidsweep run examples/quick.yaml" in i.value for i in at.info), page
        assert not at.dataframe


def _copy_sweep(source: Path, root: Path, sweep_id: str, created_at: str) -> None:
    shutil.copytree(source, root / sweep_id)
    meta = json.loads((root / sweep_id / "sweep.json").read_text())
    meta.update(sweep_id=sweep_id, created_at=created_at)
    (root / sweep_id / "sweep.json").write_text(json.dumps(meta))


def test_vanished_sweep_falls_back_to_the_newest(monkeypatch, quick, tmp_path):
    store, record, *_ = quick
    root = tmp_path / "store"
    _copy_sweep(store.root / "quick", root, "quick", record["created_at"])
    _copy_sweep(store.root / "quick", root, "older", "2000-01-01T00:00:00")
    at = _app(monkeypatch, root)
    at.selectbox(key="sweep").set_value("older").run()
    _page(at, "recommendations")
    assert "older" in at.header[0].value
    shutil.rmtree(root / "older")
    at.run()
    _ok(at)
    assert at.selectbox(key="sweep").value == "quick"
    assert "quick" in at.header[0].value


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


def test_recommendations_follow_a_running_sweep(monkeypatch, quick, tmp_path):
    """While a sweep writes, the Recommendations page ranks what has landed, and re-ranks when
    more lands: the decision never goes stale."""
    store, record, *_ = quick
    root = tmp_path / "store"
    shutil.copytree(store.root / "quick", root / "quick")
    progress = json.loads((root / "quick" / "progress.json").read_text())
    progress.update(state="running", pid=os.getpid())
    (root / "quick" / "progress.json").write_text(json.dumps(progress))
    # Hold back every run of the configuration the dss_scan class recommends.
    best = load_recommendations(store, record)[3]
    assert best.name == "dss_scan"
    runs = store.runs("quick")
    one = runs.loc[runs["config_key"] == best.best["config_key"], "run_id"].iloc[0]
    folder = next((root / "quick" / "runs").glob(f"*/{one}.parquet")).parent
    held = tmp_path / "held"
    shutil.move(folder, held)

    at = _page(_app(monkeypatch, root), "recommendations")
    at.selectbox(key="class").set_value("dss_scan").run()
    _ok(at)
    assert best.best["config_key"] not in at.success[0].value
    assert len(at.dataframe[0].value) == 8

    shutil.move(held, folder)
    at.run()
    _ok(at)
    assert best.sentence() in at.success[0].value
    assert len(at.dataframe[0].value) == 9


def test_pure_tables_handle_empty_input():
    empty = pd.DataFrame(columns=["config_key", "cell_key", "iops"])
    assert views.compare_cells(empty, "a", "b", "iops").empty
    assert tradeoff_points(pd.DataFrame()).empty
    assert views.curve_points(pd.DataFrame(columns=["config_key"])).empty
    assert views.grid_table(pd.DataFrame(columns=views.GRID_COLUMNS), []).empty
    assert views.run_id_problem("abc") and views.run_id_problem("a" * 24) is None


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_store_path_that_names_no_folder_says_so(monkeypatch, tmp_path, kind):
    """A mistyped store path is not shown as an empty store: the page names the path and
    says it is missing (or a file), and nothing is created there."""
    root = tmp_path / "no-such-store"
    if kind == "file":
        root.write_text("mine\n")
    at = _app(monkeypatch, root)
    said = " ".join(i.value for i in at.info)
    assert ("There is no folder" if kind == "missing" else "is a file, not a store") in said
    assert str(root.name) in said and "No sweeps in" not in said
    assert root.exists() == (kind == "file")
    if kind == "file":
        assert root.read_text() == "mine\n"


def test_a_missing_value_shows_a_dash_in_every_column(monkeypatch):
    """A table's missing values read "—" in columns given a format and in the others (text,
    flags, figures), never "None" or "nan"."""
    from app_pages import _frame

    shown = []
    monkeypatch.setattr(_frame.st, "dataframe", lambda data, **_: shown.append(data))
    frame = pd.DataFrame(
        {
            "iops": [1234.5, None],
            "note": ["ok", None],
            "steady": [True, None],
            "x": [0.1234567, None],
        }
    )
    _frame.table(frame, {"iops": "%.1f"})
    text = shown[0].to_string()
    assert "None" not in text and "nan" not in text.lower(), text
    assert text.count(_frame.MISSING) == 4 and "1234.5" in text and "0.1235" in text, text
    # The browser draws a null cell as a grey "None" whatever the Styler says: none is sent.
    data = getattr(shown[0], "data", shown[0])
    assert not data.isna().to_numpy().any(), data


def test_a_run_link_opens_in_the_runs_own_sweep(monkeypatch, quick, tmp_path):
    """A run's link (Curves, a heatmap cell's runs) opens a new session, which shows the
    newest sweep: the link names its sweep, and that one is selected."""
    store, _record, _ranked, _classes, runs = quick
    root = tmp_path / "two"
    shutil.copytree(store.root, root)
    spec = yaml.safe_load(QUICK.read_text())
    matrix = {
        "patterns": ["randread"],
        "block_sizes": ["4k"],
        "concurrency": ["1x1"],
        "engine": "psync",
        "runtime": "300s",
        "repetitions": 1,
        "working_set": "360g",
    }
    spec |= {
        "name": "later",
        "inventory": str((QUICK.parent / spec["inventory"]).resolve()),
        "config_space": spec["config_space"]
        | {"raid_level": ["raid10"], "layout": ["single_rank"]},
        "matrix": matrix,
        "classes": [class_measuring(tmp_path, matrix)],
    }
    later = tmp_path / "later.yaml"
    later.write_text(yaml.safe_dump(spec))
    assert cli("run", later, "--store", root, "-q").returncode == 0
    run = runs.iloc[0]
    link = run_list(runs.iloc[:1])["details"].iloc[0]
    assert link == f"run_details?run={run['run_id']}&sweep=quick"

    at = _app(monkeypatch, root)
    assert at.selectbox(key="sweep").value == "later"  # the newest, in a session of its own
    for key, value in (pair.split("=") for pair in link.split("?")[1].split("&")):
        at.query_params[key] = value
    at = _page(at, "run_details")
    assert at.selectbox(key="sweep").value == "quick"
    assert not at.warning, [w.value for w in at.warning]
    assert at.text_input(key="run_id").value == run["run_id"]


def test_the_rankings_score_is_written_as_the_cli_writes_it():
    """One precision for a class's column (score_decimals): whole from 100 (3,423 and 612),
    else three digits of the largest (35.3 and 7.1), in the printf Streamlit takes (its ","
    flag) and in the text of a column with a gap."""
    from app_pages import _frame

    for values, want in (([3423.4, 612.0], ["3,423", "612"]), ([35.29, 7.1], ["35.3", "7.1"])):
        fmt = _frame.score_format(pd.Series(values))
        assert [_frame._printf(fmt)(v) for v in values] == want
    assert _frame._printf("%,d items")(1234567) == "1,234,567 items"
