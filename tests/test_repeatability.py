"""Per-cell agreement of repetitions: spread, outliers and unsteady runs are named."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from recommender.repeatability import cell_statistics, repeatability_summary


def _runs(rows: list[tuple[str, str, int, float, object]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["config_key", "cell_key", "repetition", "iops", "steady"])


def test_outlier_and_unsteady_repetitions_are_named() -> None:
    runs = _runs(
        [("a", "randread/4k/qd1x1", r, v, True) for r, v in enumerate([100, 101, 99, 100, 160], 1)]
        + [("a", "write/1m/qd1x1", r, 50.0, r != 2) for r in (1, 2, 3)]
    )
    stats = cell_statistics(runs).set_index("cell_key")
    assert stats.loc["randread/4k/qd1x1", "outlier_repetitions"] == [5]
    assert stats.loc["randread/4k/qd1x1", "n"] == 5
    assert stats.loc["write/1m/qd1x1", "unsteady_repetitions"] == [2]
    assert stats.loc["write/1m/qd1x1", "cv_pct"] == 0.0
    summary = repeatability_summary(cell_statistics(runs))
    assert summary["cells"] == 2
    assert summary["cells_with_outliers"] == 1 and summary["cells_with_unsteady_runs"] == 1
    assert summary["cells_above_cv_limit"] == 1  # the cell with 160 in it
    assert {f["cell"] for f in summary["flagged"]} == {"randread/4k/qd1x1", "write/1m/qd1x1"}


def test_cv_and_interval_match_the_textbook() -> None:
    runs = _runs([("a", "c", r, v, None) for r, v in enumerate([10.0, 12.0, 14.0], 1)])
    row = cell_statistics(runs).iloc[0]
    assert row["mean"] == pytest.approx(12.0) and row["sd"] == pytest.approx(2.0)
    assert row["cv_pct"] == pytest.approx(100 * 2 / 12)
    # t(0.975, 2) = 4.302653: half-width 4.302653 * 2 / sqrt(3) / 12 on ln(12)
    log_half = 4.302653 * 2 / 3**0.5 / 12
    assert row["ci_hi"] == pytest.approx(12 * math.exp(log_half), rel=1e-6)
    assert row["ci_lo"] == pytest.approx(12 * math.exp(-log_half), rel=1e-6)
    assert repeatability_summary(cell_statistics(runs.iloc[:0]))["cells"] == 0


def test_cells_of_one_repetition_have_no_spread_to_judge() -> None:
    """A sweep of one repetition: no median CV (it was NaN, shown as "nan%"), and the cells
    of one repetition are counted apart, not as agreeing."""
    alone = _runs([("a", c, 1, 100.0, None) for c in ("randread/4k/qd1x1", "write/1m/qd1x1")])
    summary = repeatability_summary(cell_statistics(alone))
    assert summary["cells"] == 2 and summary["cells_with_spread"] == 0
    assert summary["median_cv_pct"] is None
    mixed = pd.concat(
        [alone, _runs([("a", "read/1m/qd1x1", r, v, None) for r, v in ((1, 100.0), (2, 110.0))])]
    )
    summary = repeatability_summary(cell_statistics(mixed))
    assert summary["cells"] == 3 and summary["cells_with_spread"] == 1
    assert summary["median_cv_pct"] == pytest.approx(100 * math.sqrt(50) / 105, abs=0.01)


def test_the_report_says_agreement_is_unknown_for_one_repetition(tmp_path) -> None:
    """A real sweep of one repetition rendered: no "nan%", and no "0 above 3%" that would
    read as cells agreeing."""
    from recommender.report import render_report
    from tests.support.specs import class_measuring, one_cell_sim, write_spec
    from tests.support.sweeps import sweep

    spec = one_cell_sim("once", ["raid10", "raid5"], repetitions=1)
    spec["classes"] = [class_measuring(tmp_path, spec["matrix"])]
    store, outcome = sweep(write_spec(tmp_path, spec, "once"), tmp_path / "store")
    assert outcome.complete
    record = store.get_sweep("once") or {}
    text = " ".join(re.sub(r"<[^>]+>", " ", render_report(store, record)).split())
    assert "nan" not in text and "0 above" not in text
    assert "2 cells (2 of one repetition: no spread to judge)" in text
    assert "no cell has two repetitions: their agreement is unknown" in text
