"""One figure reads alike on every surface: ``raidsweep curves`` and ``raidsweep compare``,
the report and the app's Compare and Curves pages write a measured mean by ``figure``
(433.5, 3,784), a latency by ``format_ms`` (2.30, 0.104) and usable capacity in TB (14.4),
as the rankings do; the Curves page says why a curve has no Optimum, and why a sweep of one
concurrency has no curve."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from typer.testing import CliRunner

import recommender.curves as curves_module
from app_pages import _common
from recommender import views
from recommender.curves import sweep_curves
from recommender.figures import figure
from recommender.report import render_report
from sweeper.cli import compare as cli_compare
from sweeper.cli.commands import app as cli_app
from sweeper.cli.common import console
from sweeper.store import ParquetStore
from sweeper.units import format_ms
from tests.support.apptest import open_app
from tests.test_app_robust_pages import CURVES_A, _no_traceback, _page, two_flash_sweeps


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return two_flash_sweeps(tmp_path_factory.mktemp("figures-alike"))


def _point(p: object) -> str:
    """A point as the app writes its figures: IOPS by ``figure``, latency by ``format_ms``."""
    return f"{p.outstanding}: {figure(p.iops)} @ {format_ms(p.latency_ms)} ms"  # type: ignore[attr-defined]


def test_a_point_below_a_thousand_iops_keeps_its_decimal_and_latency_its_rule() -> None:
    point = SimpleNamespace(outstanding=1, iops=433.5, latency_ms=2.298)
    assert views.curve_point_text(point) == "1: 433.5 @ 2.30 ms"
    assert views.latency_text(2.298) == views.metric_text("read_lat_p99_ms", 2.298) == "2.30"


def test_the_cli_and_the_report_write_each_curve_point_as_the_app(
    pristine: ParquetStore,
) -> None:
    record = pristine.get_sweep(CURVES_A)
    table = sweep_curves(pristine.runs(CURVES_A), record["spec"]["matrix"])
    assert len(table)
    out = CliRunner().invoke(
        cli_app, ["curves", CURVES_A, "--store", str(pristine.root)], env={"COLUMNS": "400"}
    )
    assert out.exit_code == 0, out.output
    html = render_report(pristine, record)
    for r in table.itertuples():
        for p in (r.speed, r.maximum):
            assert _point(p) in out.output
            assert _point(p) in html
    assert "<th>usable GB</th>" not in html and "<th>usable TB</th>" in html


def test_the_cli_compare_writes_a_measured_mean_by_figure_and_a_latency_by_format_ms() -> None:
    cells = pd.DataFrame(
        [
            {"figure": "iops", "a": 433.5, "b": 3784.2},
            {"figure": "read_lat_p99", "a": 2.298, "b": 0.1015},
        ]
    ).assign(
        config_a="k",
        config_b="k",
        cell="randread/4k/qd1x1",
        change_pct=1.0,
        change_lo_pct=0.5,
        change_hi_pct=2.0,
        verdict="better",
    )
    with console.capture() as cap:
        cli_compare._print_cells(cells, True)
    said = cap.get()
    for shown in ("433.5", "3,784", "2.30", "0.102"):
        assert f" {shown} " in said, said


def test_compares_trade_offs_give_usable_capacity_in_tb_as_the_rankings(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "compare", CURVES_A)
    frames = [d.value for d in at.dataframe if "figure" in d.value.columns]
    assert frames, "no trade-offs table"
    trade = frames[0].set_index("figure")
    assert "usable GB" not in trade.index
    recs = views.ranked_all(_common.recommendations(pristine, pristine.get_sweep(CURVES_A)))
    written = {figure(v / 1000, ",.1f") for v in recs["usable_gb"].dropna()}
    assert trade.loc["usable TB", "A"] in written
    assert trade.loc["usable TB", "B"] in written


def _copy(pristine: ParquetStore, folder: Path) -> Path:
    root = folder / "store"
    shutil.copytree(pristine.root / CURVES_A, root / CURVES_A)
    return root


def test_curves_says_why_a_curve_has_no_optimum(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    monkeypatch.setattr(curves_module, "MIN_KNEE_POINTS", 4)  # three points: none has a knee
    at = _page(open_app(monkeypatch, _copy(pristine, tmp_path)), "curves", CURVES_A)
    said = " ".join(c.value for c in _no_traceback(at).caption)
    assert "too few points to find a knee: 3 of the 4 it needs" in said, said


def test_curves_of_a_one_concurrency_matrix_says_there_will_be_none(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    root = _copy(pristine, tmp_path)
    path = root / CURVES_A / "sweep.json"
    record = json.loads(path.read_text())
    record["spec"]["matrix"]["concurrency"] = ["1x20"]
    path.write_text(json.dumps(record))
    runs = ParquetStore(root).runs(CURVES_A)
    one = runs["cell_key"].str.endswith("qd1x1")
    assert one.any()
    shutil.rmtree(root / CURVES_A / "runs")  # no run: no curve, and never one
    at = _page(open_app(monkeypatch, root), "curves", CURVES_A)
    said = " ".join(i.value for i in _no_traceback(at).info)
    assert "yet" not in said, said
    assert "one concurrency (qd1x20)" in said, said


def test_a_class_score_and_its_interval_share_the_class_precision_in_cli_and_app() -> None:
    """``raidsweep compare`` and the app's Compare sweeps write a class's scores in A and B
    and their intervals in one precision, the class's (``score_decimals``, as its ranking
    writes them): never ``569 (548.1 … 589.9)`` beside ``573.2``."""
    from recommender.sweepcompare import class_table

    rows = [
        ("dss_scan", "MB/s", (569.0, 548.1, 589.9), (573.2, 540.7, 605.6), "569", "573"),
        ("redo_log", "IOPS", (45.26, 44.1, 47.2), (46.0, 45.0, 47.04), "45.3", "46.0"),
    ]
    classes = pd.DataFrame(
        [
            {
                "class": name,
                "unit": unit,
                **dict(zip(("a", "a_lo", "a_hi"), a, strict=True)),
                **dict(zip(("b", "b_lo", "b_hi"), b, strict=True)),
            }
            for name, unit, a, b, *_ in rows
        ]
    ).assign(
        config_a="k",
        config_b="k",
        pairing="same configuration",
        change_pct=0.7,
        change_lo_pct=-3.9,
        change_hi_pct=5.6,
        verdict="no significant change",
    )
    with console.capture() as cap:
        cli_compare._print_classes(classes)
    said = cap.get()
    table = class_table(classes).set_index("class")
    assert "569 (548 … 590)" in said and "573 (541 … 606)" in said, said
    assert "45.3 (44.1 … 47.2)" in said and "46.0 (45.0 … 47.0)" in said, said
    for name, unit, *_, a, b in rows:
        row = table.loc[f"{name} ({unit})"]
        assert (row["A"], row["B"]) == (a, b)
        assert row["A (95% CI)"] in said and row["B (95% CI)"] in said
