"""What the app writes, as the CLI and the report write it (without a browser, on the verdict
sweep of ``tests.e2e.verdict``): the ranking's data-loss risk by the CLI's ``risk_text``, an
evidence share never "-0", the heatmap's table in each metric's own precision, a run's
figures in words with their units, and the cells to choose from in order of their values."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from recommender.views import metric_text
from recommender.views.markdown import risk_text, share_text
from recommender.views.shading import cell_order_key
from sweeper.store import ParquetStore
from tests.e2e.verdict import CLASS, SWEEP, verdict_store
from tests.support.apptest import open_app
from tests.support.sweeps import recommendation


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return verdict_store(tmp_path_factory.mktemp("verdict"))


def _page(monkeypatch: pytest.MonkeyPatch, root: Path, name: str) -> AppTest:
    at = open_app(monkeypatch, root)
    at.switch_page(f"app_pages/{name}.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _shown(at: AppTest, index: int) -> pd.DataFrame:
    """The ``index``-th table of the page as the browser writes it: the Styler's display
    text where the page gave one, else the data."""
    proto = at.dataframe[index].proto
    data = pa.ipc.open_stream(proto.arrow_data.data).read_all().to_pandas()
    raw = proto.arrow_data.styler.display_values
    if not raw:
        return data
    shown = pa.ipc.open_stream(raw).read_all().to_pandas()
    shown.columns = list(data.columns)[-len(shown.columns) :]
    return shown


def test_the_ranking_writes_the_risk_as_the_cli_does(monkeypatch, store) -> None:
    at = _page(monkeypatch, store.root, "recommendations")
    rec = recommendation(store, SWEEP, CLASS)
    keepers = rec.ranked[rec.ranked["meets_limits"].astype(bool)]
    shown = _shown(at, 0)
    assert list(shown["data-loss risk / year"]) == [
        risk_text(v) for v in keepers["loss_risk_per_year"]
    ]
    assert all(re.fullmatch(r"\d\.\de-\d\d", t) for t in shown["data-loss risk / year"])


def test_the_ranking_shows_the_score_beside_the_configuration(monkeypatch, store) -> None:
    """As the CLI writes a ranking: rank, configuration, score, its interval and repetitions
    first, so that a narrow window (800 or 390 px) shows them before scrolling sideways."""
    at = _page(monkeypatch, store.root, "recommendations")
    order = list(at.dataframe[0].proto.column_order)
    assert order[:5] == ["rank", "configuration", "score", "95% interval", "repetitions"]
    assert {"drives", "usable TB"} <= set(order[5:])


def test_an_evidence_share_is_written_as_the_report_writes_it(monkeypatch, store) -> None:
    """By ``share_text``: a share that rounds to zero reads "0", never "-0"."""
    at = _page(monkeypatch, store.root, "recommendations")
    rec = recommendation(store, SWEEP, CLASS)
    evidence = next(i for i in range(len(at.dataframe)) if "share %" in _shown(at, i))
    shares = list(_shown(at, evidence)["share %"])
    assert shares == [share_text(v) for v in rec.evidence["contribution_pct"]]
    assert share_text(-0.4) == share_text(0.3) == "0"


def test_the_heatmap_table_writes_each_metric_in_its_own_precision(monkeypatch, store) -> None:
    at = _page(monkeypatch, store.root, "heatmaps")
    at.selectbox(key="metric").set_value("p99 write latency (ms)").run()
    at.radio(key="heatmap_by").set_value("all cells").run()
    assert not at.exception
    runs = store.runs(SWEEP)
    means = runs.groupby(["config_key", "cell_key"])["write_lat_p99_ms"].mean()
    seen = 0
    for i in range(len(at.dataframe)):
        shown = _shown(at, i)
        for _, row in shown.iterrows():
            for column in shown.columns[1:]:
                cells = [c for c in means.loc[row["configuration"]].index if c.endswith(column)]
                value = means.loc[(row["configuration"], cells[0])]
                assert row[column] == metric_text("write_lat_p99_ms", value), (column, row)
                seen += 1
    assert seen


def test_run_details_figures_in_words_and_cells_in_order(monkeypatch, store) -> None:
    at = _page(monkeypatch, store.root, "run_details")
    options = at.selectbox(key="run_cell").options
    assert options == sorted(options, key=cell_order_key)
    assert options != sorted(options), "the verdict sweep has 8k and 64k: text order differs"
    fields = list(_shown(at, 0)["field"]) if len(at.dataframe) else []
    assert "read p99 latency (ms)" in fields and "IOPS" in fields, fields
    assert not [f for f in fields if "_" in f], fields
    values = dict(zip(fields, _shown(at, 0)["value"], strict=True))
    assert re.fullmatch(r"\d+\.\d\d|0\.\d+", values["read p99 latency (ms)"]), values
    assert values["block size"] in {"8k", "64k"}, values
