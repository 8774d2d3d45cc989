"""Scoring and ranking: formula, intervals, ties, limits, missing cells."""

from __future__ import annotations

import math
import statistics

import pandas as pd
import pytest
from scipy import stats

from recommender.classes import Limit, WorkloadClass, load_class, shipped_class_names
from recommender.scoring import rank, rank_classes, score_class

CLS = WorkloadClass.model_validate(
    {
        "name": "t",
        "cells": [{"cell": "randread/8k/qd1x16", "weight": 3}, {"cell": "write/4k/qd1x1"}],
        "limits": [{"metric": "read_lat_p99", "max": "20ms"}],
    }
)


def runs(config: str, read: list[float], write: list[float], p99: float = 5.0) -> pd.DataFrame:
    rows = []
    for rep, (r, w) in enumerate(zip(read, write, strict=True), start=1):
        rows.append(
            {
                "config_key": config,
                "cell_key": "randread/8k/qd1x16",
                "repetition": rep,
                "iops": r,
                "mbps": r * 8192 / 1e6,
                "read_lat_p99_ms": p99,
            }
        )
        rows.append(
            {
                "config_key": config,
                "cell_key": "write/4k/qd1x1",
                "repetition": rep,
                "iops": w,
                "mbps": w * 4096 / 1e6,
                "read_lat_p99_ms": None,
            }
        )
    return pd.DataFrame(rows)


def test_score_is_weighted_geometric_mean_per_repetition() -> None:
    df = runs("a", [1000, 1000, 1000], [10, 10, 10])
    (row,) = score_class(df, CLS).to_dict("records")
    expected = math.exp((3 * math.log(1000) + math.log(10)) / 4)
    assert row["score"] == pytest.approx(expected)
    assert row["score_lo"] == pytest.approx(expected) and row["repetitions"] == 3


def test_overlapping_intervals_share_a_rank() -> None:
    df = pd.concat(
        [
            runs("a", [1000, 1100, 900], [100, 100, 100]),
            runs("b", [1050, 950, 1000], [100, 100, 100]),
            runs("c", [400, 410, 390], [100, 100, 100]),
        ]
    )
    ranked = rank(score_class(df, CLS))
    by_key = ranked.set_index("config_key")
    assert by_key.loc["a", "rank"] == by_key.loc["b", "rank"] == 1
    # the higher mean of the two leads the rank; the other is tied with it and shown "=1"
    assert list(ranked["tied"]) == [False, True, False]
    assert ranked["score"].iloc[0] >= ranked["score"].iloc[1]
    assert by_key.loc["c", "rank"] == 3 and not by_key.loc["c", "tied"]


def test_breaking_a_limit_ranks_below_all_that_keep_it_and_names_the_cell() -> None:
    df = pd.concat(
        [
            runs("fast-but-slow-tail", [5000, 5000, 5000], [100, 100, 100], p99=35.0),
            runs("steady", [1000, 1000, 1000], [100, 100, 100], p99=8.0),
        ]
    )
    ranked = rank(score_class(df, CLS))
    assert list(ranked["config_key"]) == ["steady", "fast-but-slow-tail"]
    bad = ranked.iloc[1]
    assert not bad["meets_limits"]
    assert "randread/8k/qd1x16: read_lat_p99 35.00 ms > 20 ms" in bad["violations"]


def test_missing_cells_are_named_and_the_rest_scored() -> None:
    df = runs("a", [1000, 1000], [10, 10])
    df = df[df["cell_key"] != "write/4k/qd1x1"]
    (row,) = score_class(df, CLS).to_dict("records")
    assert row["cells_missing"] == "write/4k/qd1x1"
    assert row["score"] == pytest.approx(1000)


def test_spread_widens_the_interval() -> None:
    tight = score_class(runs("a", [1000, 1001, 999], [10, 10, 10]), CLS).iloc[0]
    loose = score_class(runs("a", [1000, 1300, 700], [10, 10, 10]), CLS).iloc[0]
    assert (loose.score_hi - loose.score_lo) > 10 * (tight.score_hi - tight.score_lo)


def test_shipped_classes_load() -> None:
    names = shipped_class_names()
    assert {"redo_log", "data_file", "mail", "dss_scan", "backup_target", "vm_mix"} <= set(names)
    for name in names:
        c = load_class(name)
        assert c.cells and all(cell.weight > 0 for cell in c.cells)


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"cells": [{"cell": "randfoo/8k/qd1x1"}]}, "cells[0].cell: 'randfoo' is not a pattern"),
        ({"cells": [{"cell": "randread/8k/qd1x1", "weight": 0}]}, "cells[0].weight"),
        ({"limits": [{"metric": "read_lat_p99", "max": 20}]}, "limits[0].max"),
        ({"limits": [{"metric": "read_lat_p99", "max": "20"}]}, "is not a latency with a unit"),
        ({"unknown": 1}, "unknown: unknown key"),
        ({"metric": "latency"}, "metric: Input should be 'iops' or 'mbps'"),
        (
            {"limits": [{"metric": "read_lat_p99", "max": "5ms", "cells": ["write/4k/qd1x1"]}]},
            "limits[0] names cell 'write/4k/qd1x1', which is not one of the class's cells",
        ),
        ({"limits": [{"metric": "read_lat_p99", "max": "5ms", "media": "tape"}]}, "media"),
        # printed to terminals and into reports: no escape, 7-bit (ESC) or 8-bit (CSI)
        ({"description": "red\x1b[31m"}, "description: holds the control character '\\x1b'"),
        ({"description": "red\x9b31m"}, "description: holds the control character '\\x9b'"),
    ],
)
def test_bad_class_file_names_place_and_problem(tmp_path, patch, expected) -> None:
    import yaml

    from sweeper.errors import InputError

    data = {"name": "x", "cells": [{"cell": "randread/8k/qd1x1"}]} | patch
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(InputError) as info:
        load_class(path)
    assert any(expected in p for p in info.value.problems), info.value.problems


def test_rank_classes_stacks_every_class() -> None:
    df = runs("a", [1000, 1000, 1000], [10, 10, 10])
    out = rank_classes(df, [CLS, CLS.model_copy(update={"name": "u"})])
    assert list(out["class"]) == ["t", "u"]


def test_a_limit_for_some_cells_judges_only_those() -> None:
    only_write = Limit(metric="read_lat_p99", max="2ms", cells=["write/4k/qd1x1"])
    df = runs("a", [1000, 1000], [10, 10], p99=5.0)  # the 5 ms p99 is in the randread cell
    assert bool(score_class(df, CLS.model_copy(update={"limits": [only_write]}))["meets_limits"][0])
    everywhere = only_write.model_copy(update={"cells": None})
    scored = score_class(df, CLS.model_copy(update={"limits": [everywhere]}))
    assert scored["violations"][0] == "randread/8k/qd1x16: read_lat_p99 5.00 ms > 2 ms"


def test_flash_gets_the_stricter_data_file_target() -> None:
    hdd, flash, unknown = (load_class("data_file").for_media(m) for m in ("hdd", "flash", None))
    assert [str(lim) for lim in hdd.limits] == ["read_lat_p99 ≤ 20ms"]
    assert [str(lim) for lim in flash.limits] == [
        "read_lat_p99 ≤ 20ms",
        "read_lat_p99 ≤ 5ms on flash",
    ]
    assert unknown.limits == hdd.limits
    df = runs("a", [1000, 1000], [10, 10], p99=8.0)
    df["cell_key"] = df["cell_key"].replace({"write/4k/qd1x1": "randrw70/8k/qd1x16"})
    assert bool(score_class(df, hdd)["meets_limits"].iloc[0])
    assert "read_lat_p99 8.00 ms > 5 ms" in score_class(df, flash)["violations"].iloc[0]


def test_a_score_over_fewer_cells_ranks_after_complete_ones() -> None:
    """A pruned configuration measured only on its strong cell must not outrank the rest."""
    full = runs("full", [1000, 1000, 1000], [10, 10, 10])
    partial = runs("pruned", [5000, 5000, 5000], [0, 0, 0])
    partial = partial[partial["cell_key"] == "randread/8k/qd1x16"]
    out = rank(score_class(pd.concat([full, partial]), CLS))
    assert list(out["config_key"]) == ["full", "pruned"]
    assert out["score"].iloc[1] > out["score"].iloc[0]  # higher, but over one cell of two
    assert out["cells_missing"].iloc[1] == "write/4k/qd1x1"
    assert list(out["rank"]) == [1, 2]
    # A cell nobody measured is missing for all alike and changes nothing.
    both = score_class(pd.concat([full, partial.assign(config_key="other")]), CLS)
    only_reads = both.assign(cells_measured=1, cells_missing="write/4k/qd1x1")
    assert rank(only_reads)["config_key"].iloc[0] == "other"


def test_a_score_interval_is_positive_and_matches_the_log_t_interval() -> None:
    # two repetitions far apart: x̄ ± t s/√2 reached below zero (a negative score)
    row = score_class(runs("a", [1000, 3000], [10, 10]), CLS).iloc[0]
    per_rep = [math.exp((3 * math.log(r) + math.log(10)) / 4) for r in (1000, 3000)]
    mean, sd = statistics.mean(per_rep), statistics.stdev(per_rep)
    log_lo, log_hi = stats.t.interval(0.95, 1, loc=math.log(mean), scale=sd / mean / math.sqrt(2))
    assert row.score == pytest.approx(mean)
    assert 0 < row.score_lo < row.score < row.score_hi
    assert (row.score_lo, row.score_hi) == (
        pytest.approx(math.exp(log_lo)),
        pytest.approx(math.exp(log_hi)),
    )


def test_one_repetition_has_no_interval_and_no_spread() -> None:
    """Never a zero-width interval and a CV of 0% taken for certainty: the figures say none."""
    from recommender.figures import score_text

    row = score_class(runs("a", [1000], [10]), CLS).iloc[0]
    assert row.repetitions == 1
    assert math.isnan(row.score_lo) and math.isnan(row.score_hi) and math.isnan(row.cv_pct)
    assert score_text(row.score, row.score_lo, row.score_hi, 0) == f"{row.score:,.0f} (no interval)"
