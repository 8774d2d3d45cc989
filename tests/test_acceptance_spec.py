"""The spec's acceptance block and the intervals compare and accept decide by: the block's
refusals by line and place, and Welch's interval against SciPy's own."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from recommender.classes import LIMIT_METRICS
from recommender.sweepstats import change_verdict, mean_interval, ratio_interval
from sweeper.spec import load_spec
from sweeper.spec.acceptance import LATENCY_METRICS
from tests.support.commissioning import array_spec
from tests.support.specs import problems_of


def test_the_gates_bound_every_latency_a_class_limit_can() -> None:
    assert set(LATENCY_METRICS) == set(LIMIT_METRICS)


def test_a_valid_block_loads_and_leaves_the_fingerprint_alone(tmp_path: Path) -> None:
    gates = {
        "baseline": {"sweep": "old-array", "tolerance_pct": 3},
        "gates": [
            {"class": "data_file", "min_iops": 1000, "max_latency": {"read_lat_p99": "20ms"}},
            {"cell": "write/64k/qd1x1/dsync", "min_mbps": "baseline", "tolerance_pct": 10},
        ],
    }
    with_gates, _ = load_spec(array_spec(tmp_path, "gated", acceptance=gates))
    without, _ = load_spec(array_spec(tmp_path, "plain"))
    assert with_gates.acceptance is not None
    assert [g.class_name for g in with_gates.acceptance.gates] == ["data_file", None]
    assert with_gates.fingerprint() == without.fingerprint()
    # the stored spec reads back as the same block
    dumped = with_gates.model_dump(mode="json")["acceptance"]
    assert dumped["gates"][0]["class"] == "data_file"


@pytest.mark.parametrize(
    ("gates", "place", "problem"),
    [
        ({"gates": [{"class": "mail", "min_iops": 5}]}, "gates[0].class", "not one of the spec"),
        (
            {"gates": [{"cell": "randread/4k/qd1x1", "min_iops": 5}]},
            "gates[0].cell",
            "is not a cell the matrix measures",
        ),
        ({"gates": [{"class": "redo_log", "min_iops": -5}]}, "gates[0].min_iops", "above 0"),
        ({"gates": [{"class": "redo_log", "min_mbps": 0}]}, "gates[0].min_mbps", "above 0"),
        (
            {"gates": [{"class": "redo_log", "max_latency": {"write_lat_p99": "-1ms"}}]},
            "gates[0].max_latency.write_lat_p99",
            "latency",
        ),
        (
            {"gates": [{"class": "redo_log", "max_latency": {"write_lat_p99": 5}}]},
            "gates[0].max_latency.write_lat_p99",
            "no unit",
        ),
        (
            {"gates": [{"class": "redo_log", "max_latency": {"write_lat_p42": "5ms"}}]},
            "gates[0].max_latency.write_lat_p42",
            "",
        ),
        ({"gates": [{"class": "redo_log", "min_iops": True}]}, "gates[0].min_iops", "number"),
        ({"gates": [{"class": "redo_log"}]}, "gates[0]", "min_iops, min_mbps or max_latency"),
        ({"gates": [{"min_iops": 5}]}, "gates[0]", "names a class, a cell"),
        ({"gates": [{"class": "redo_log", "min_iops": "baseline"}]}, "acceptance", "no baseline"),
        (
            {
                "baseline": {"sweep": "old", "tolerance_pct": -1},
                "gates": [{"class": "redo_log", "min_iops": 1}],
            },
            "baseline.tolerance_pct",
            "greater than or equal to 0",
        ),
        (
            {"baseline": {"sweep": "../x"}, "gates": [{"class": "redo_log", "min_iops": 1}]},
            "baseline.sweep",
            "not a sweep name",
        ),
        ({"gates": []}, "gates", "at least 1"),
        (
            {"gates": [{"class": "redo_log", "min_iops": 1, "max_iops": 2}]},
            "gates[0].max_iops",
            "unknown",
        ),
    ],
)
def test_a_bad_block_is_refused_by_line_and_place(
    tmp_path: Path, gates: dict, place: str, problem: str
) -> None:
    problems = problems_of(array_spec(tmp_path, "bad", acceptance=gates))
    assert len(problems) == 1, problems
    assert problems[0].startswith("line "), problems
    assert f"acceptance.{place}" in problems[0] or (
        "acceptance: " in problems[0] and place.split(".")[0] in problems[0]
    ), problems
    assert problem in problems[0], problems


def test_welch_interval_is_scipys_on_the_logarithms() -> None:
    rng = np.random.default_rng(7)
    a = rng.lognormal(np.log(1000), 0.05, 4)
    b = rng.lognormal(np.log(1100), 0.03, 3)
    ratio = ratio_interval(a, b, 0.95)
    ci = stats.ttest_ind(np.log(b), np.log(a), equal_var=False).confidence_interval(0.95)
    assert ratio.value == pytest.approx(math.exp(np.log(b).mean() - np.log(a).mean()))
    assert ratio.lo == pytest.approx(math.exp(ci.low))
    assert ratio.hi == pytest.approx(math.exp(ci.high))
    assert change_verdict(ratio, True) == ("better" if ratio.lo > 1 else "no significant change")


def test_no_interval_without_two_repetitions() -> None:
    one = mean_interval(np.array([5.0]))
    assert one.value == 5.0 and not one.known
    assert not ratio_interval(np.array([1.0, 1.1]), np.array([2.0])).known
    assert change_verdict(ratio_interval(np.array([1.0]), np.array([2.0])), True) == "unknown"


def test_lower_latency_is_better() -> None:
    a, b = np.array([10.0, 10.2, 9.9]), np.array([5.0, 5.1, 4.9])
    assert change_verdict(ratio_interval(a, b), higher_is_better=False) == "better"
    assert change_verdict(ratio_interval(a, b), higher_is_better=True) == "worse"
    assert change_verdict(ratio_interval(a, a), higher_is_better=True) == "no significant change"
