"""Concurrency curves generated from closed-queue formulas: Speed, Optimum (knee), Maximum."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from recommender.curves import (
    GAIN_VS_LATENCY,
    KNEE_RULE,
    NO_KNEE,
    CurvePoint,
    analyse_curve,
    curves_table,
    should_stop,
    sweep_curves,
)
from sweeper.spec import Matrix
from sweeper.sweep.measure import curve_stop
from sweeper.workload import WorkloadCell

GEOMETRIC = tuple(2**k for k in range(10))  # 1 … 512 outstanding
SERVICE_MS = 0.1  # one I/O alone takes 0.1 ms: 10,000 IOPS per outstanding I/O


def saturating(
    capacity: float, overload: float = 1.0, ns: Sequence[int] = GEOMETRIC
) -> list[CurvePoint]:
    """IOPS = min(N / S, C), each doubling past saturation keeping ``overload`` of the IOPS;
    latency from Little's law, N / IOPS."""
    points = []
    saturation = capacity * SERVICE_MS / 1000
    for n in ns:
        iops = min(n / SERVICE_MS * 1000, capacity)
        if n > saturation:
            iops *= overload ** math.log2(n / saturation)
        points.append(CurvePoint(n, iops, 1000 * n / iops))
    return points


def mva(demand_ms: float, delay_ms: float, ns: Sequence[int] = GEOMETRIC) -> list[CurvePoint]:
    """Exact mean-value analysis of a closed network: a queueing station (the array's
    bottleneck, ``demand_ms`` per I/O) and a pure delay. Throughput bends smoothly towards
    1 / demand; the saturation point is N* = (demand + delay) / demand."""
    queue, points = 0.0, []
    for n in range(1, max(ns) + 1):
        response = delay_ms + demand_ms * (1 + queue)
        throughput = n / response  # per ms
        queue = throughput * demand_ms * (1 + queue)
        if n in ns:
            points.append(CurvePoint(n, 1000 * throughput, response))
    return points


@pytest.mark.parametrize("saturation", [2, 4, 8, 32, 128, 256])
def test_knee_is_the_saturation_point_of_a_hard_corner(saturation: int) -> None:
    summary = analyse_curve(saturating(capacity=saturation * 1000 / SERVICE_MS))
    assert summary.method == GAIN_VS_LATENCY
    assert summary.optimum is not None and summary.optimum.outstanding == saturation
    assert summary.speed == CurvePoint(1, 10_000.0, SERVICE_MS)
    # A plateau: the Maximum is its first point (fewest outstanding for the same IOPS).
    assert summary.maximum.outstanding == saturation


@pytest.mark.parametrize("saturation", [4, 8, 16, 32, 64, 128])
def test_knee_lands_near_saturation_of_a_smooth_closed_queue(saturation: int) -> None:
    demand = 0.01
    summary = analyse_curve(mva(demand, delay_ms=demand * (saturation - 1)))
    assert summary.method == GAIN_VS_LATENCY
    assert summary.optimum is not None
    assert saturation <= summary.optimum.outstanding <= 2 * saturation
    assert summary.speed.outstanding == 1
    top = max(summary.points, key=lambda p: p.iops)
    assert summary.maximum.iops == top.iops
    # Little's law holds on the generated curve, so latency grows past the knee.
    assert summary.maximum.latency_ms > summary.optimum.latency_ms > summary.speed.latency_ms


@pytest.mark.parametrize(("saturation", "overload"), [(32, 0.9), (8, 0.3)])
def test_overload_after_saturation(saturation: int, overload: float) -> None:
    # A collapse (× 0.3 per doubling) would put Kneedle's knee at 1 outstanding if the falling
    # tail were not read as flat.
    summary = analyse_curve(saturating(capacity=saturation * 10_000, overload=overload))
    assert summary.maximum.outstanding == saturation
    assert summary.optimum is not None and summary.optimum.outstanding == saturation
    assert summary.points[-1].iops < summary.maximum.iops


def test_knee_on_a_noisy_curve() -> None:
    rng = np.random.default_rng(7)
    clean = saturating(capacity=320_000)  # saturates at 32
    noisy = [
        CurvePoint(p.outstanding, p.iops * f, p.latency_ms / f)
        for p, f in zip(clean, rng.uniform(0.97, 1.03, len(clean)), strict=True)
    ]
    summary = analyse_curve(noisy)
    assert summary.method == GAIN_VS_LATENCY
    assert summary.optimum is not None and 16 <= summary.optimum.outstanding <= 64
    assert summary.maximum.iops == max(p.iops for p in noisy)


def test_points_are_taken_in_any_order() -> None:
    points = saturating(capacity=80_000)
    assert analyse_curve(points[::-1]) == analyse_curve(points)
    assert analyse_curve(points[::-1]).points == tuple(points)


def test_speed_is_the_lowest_outstanding_even_when_not_one() -> None:
    summary = analyse_curve(saturating(capacity=80_000, ns=[4, 8, 16, 32, 64]))
    assert summary.speed.outstanding == 4


def test_no_saturation_puts_the_knee_at_the_last_point_and_says_so() -> None:
    # Perfect scaling, latency constant: every step gains 100 % throughput for 0 % latency.
    points = [CurvePoint(n, 1000.0 * n, 1.0) for n in (1, 2, 4, 8, 16)]
    summary = analyse_curve(points)
    assert summary.method == GAIN_VS_LATENCY and summary.note.startswith(KNEE_RULE)
    assert "the knee is at 16 or beyond" in summary.note
    assert summary.optimum == points[-1] == summary.maximum


def test_flat_curve_has_its_knee_at_the_first_point() -> None:
    # Saturated from one outstanding I/O: more only adds latency.
    points = [CurvePoint(n, 5000.0, n / 5.0) for n in (1, 2, 4, 8)]
    summary = analyse_curve(points)
    assert summary.method == GAIN_VS_LATENCY and summary.note == KNEE_RULE
    assert summary.optimum == points[0] == summary.maximum == summary.speed


@pytest.mark.parametrize(
    ("iops", "latency", "optimum"),
    [
        ([1000.0, 2000.0, 3000.0, 3100.0], [1.0, 1.0, 4 / 3, 2.6], 4),  # +50 % vs +33 %
        ([1000.0, 1900.0, 2000.0, 4000.0], [1.0, 1.0, 2.0, 2.0], 2),  # +5 % for +100 %
        # a step that still pays after one that did not comes too late: the knee was passed
        ([1000.0, 1300.0, 2600.0, 2700.0], [1.0, 1.5, 1.5, 3.0], 1),
        # a step down in IOPS gains nothing: never past the Maximum
        ([1000.0, 2000.0, 1900.0, 1950.0], [1.0, 1.0, 1.0, 1.0], 2),
    ],
)
def test_gain_versus_latency_rule(iops: list[float], latency: list[float], optimum: int) -> None:
    """The study's Optimum: the last point reached by steps that each raised throughput
    faster than latency (STUDIES.md §2), going up from the fewest I/Os in flight."""
    points = [CurvePoint(n, i, lat) for n, i, lat in zip((1, 2, 4, 8), iops, latency, strict=True)]
    summary = analyse_curve(points)
    assert summary.method == GAIN_VS_LATENCY
    assert summary.optimum is not None and summary.optimum.outstanding == optimum


def test_points_past_the_knee_do_not_move_it() -> None:
    """More saturated points measured (a sweep without a stop rule against one that stopped
    the curve early) leave the Optimum where it was."""
    whole = mva(0.01, delay_ms=0.01 * 15)
    knee = analyse_curve(whole).optimum
    assert knee is not None
    for last in range(GEOMETRIC.index(knee.outstanding) + 2, len(whole) + 1):
        assert analyse_curve(whole[:last]).optimum == knee


def test_each_step_to_the_knee_pays_and_the_next_does_not() -> None:
    curve = mva(0.02, delay_ms=0.02 * 31)
    knee = analyse_curve(curve).optimum
    assert knee is not None
    i = curve.index(knee)
    for a, b in zip(curve[: i + 1], curve[1 : i + 1], strict=False):
        assert b.iops / a.iops > b.latency_ms / a.latency_ms
    after = curve[i + 1]
    assert not after.iops / knee.iops > after.latency_ms / knee.latency_ms


@pytest.mark.parametrize("n_points", [1, 2])
def test_one_or_two_points_have_no_knee(n_points: int) -> None:
    points = saturating(capacity=80_000, ns=[1, 2][:n_points])
    summary = analyse_curve(points)
    assert summary.optimum is None and summary.method == NO_KNEE
    assert "too few points to find a knee" in summary.note
    assert summary.speed == points[0] and summary.maximum == points[-1]


@pytest.mark.parametrize(
    "points",
    [
        [],
        [CurvePoint(1, 100.0, 1.0), CurvePoint(1, 120.0, 1.0)],
        [CurvePoint(0, 100.0, 1.0)],
        [CurvePoint(1, 0.0, 1.0)],
        [CurvePoint(1, math.nan, 1.0)],
        [CurvePoint(1, 100.0, 0.0)],
    ],
)
def test_analyse_rejects_bad_curves(points: list[CurvePoint]) -> None:
    with pytest.raises(ValueError):
        analyse_curve(points)


# --- stopping a sweep early -----------------------------------------------------------------


def test_stop_when_latency_passes_the_limit() -> None:
    curve = saturating(capacity=80_000)  # latency 0.1 ms up to 8, then N / 80 ms
    assert should_stop(curve[:7], latency_limit_ms=1.0) is None  # 64 outstanding: 0.8 ms
    reason = should_stop(curve[:8], latency_limit_ms=1.0)  # 128 outstanding: 1.6 ms
    assert reason is not None
    assert "latency 1.60 ms at 128 outstanding" in reason and "limit of 1 ms" in reason
    assert should_stop(curve, latency_limit_ms=None) is None


def test_stop_when_throughput_falls() -> None:
    curve = saturating(capacity=80_000, overload=0.9)  # 8: 80,000; 16: 72,000 (−10 %)
    assert should_stop(curve[:4], latency_limit_ms=None) is None
    reason = should_stop(curve[:5], latency_limit_ms=None)
    assert reason is not None
    assert "fell 10.0% from 80,000 IOPS at 8 outstanding to 72,000 IOPS at 16" in reason
    assert should_stop(curve[:5], latency_limit_ms=None, drop_pct=15.0) is None


def test_a_drop_of_exactly_the_limit_does_not_stop() -> None:
    points = [CurvePoint(1, 1000.0, 1.0), CurvePoint(2, 950.0, 2.1)]
    assert should_stop(points, latency_limit_ms=None, drop_pct=5.0) is None
    assert should_stop(points, latency_limit_ms=None, drop_pct=4.9) is not None


def test_stop_judges_the_highest_outstanding_point_and_allows_zero_iops() -> None:
    stalled = [CurvePoint(4, 0.0, 50.0), CurvePoint(1, 1000.0, 1.0), CurvePoint(2, 1500.0, 1.3)]
    assert "fell 100.0%" in (should_stop(stalled, latency_limit_ms=None) or "")
    assert should_stop([], latency_limit_ms=1.0) is None
    assert should_stop(stalled[1:2], latency_limit_ms=None) is None


@pytest.mark.parametrize(("limit", "drop"), [(0.0, 5.0), (-1.0, 5.0), (None, -1.0), (None, 100.0)])
def test_should_stop_rejects_bad_limits(limit: float | None, drop: float) -> None:
    with pytest.raises(ValueError):
        should_stop([CurvePoint(1, 1.0, 1.0)], latency_limit_ms=limit, drop_pct=drop)


def test_cells_that_differ_beyond_concurrency_are_curves_of_their_own() -> None:
    """A sync-write curve and a plain one at the same pattern and block size are two
    curves: the plain one's latency above the limit does not stop the sync one."""
    matrix = Matrix.model_validate(
        {
            "patterns": ["write"],
            "block_sizes": ["4k"],
            "concurrency": ["1x1", "1x4"],
            "sync": ["none", "fdatasync"],
            "engine": "psync",
            "curve_stop": {"latency_limit": "5ms"},
        }
    )
    sweep = SimpleNamespace(spec=SimpleNamespace(matrix=matrix))
    plain, synced = (
        WorkloadCell.parse("write/4k/qd1x4"),
        WorkloadCell.parse("write/4k/qd1x4/fdatasync"),
    )
    assert plain.curve == "write/4k" and synced.curve == "write/4k/fdatasync"
    assert WorkloadCell.parse("randread/8k/qd2x8/ws10/zipf1.2").curve == "randread/8k/ws10/zipf1.2"
    rows = []
    for key, lat in (
        ("write/4k/qd1x1", 1.0),
        ("write/4k/qd1x4", 9.0),
        ("write/4k/qd1x1/fdatasync", 1.0),
        ("write/4k/qd1x4/fdatasync", 2.0),
    ):
        cell = WorkloadCell.parse(key)
        rows.append(
            {
                "cell_key": key,
                "iodepth": 1,
                "numjobs": cell.concurrency.numjobs,
                "engine": "psync",
                "read_iops": None,
                "read_lat_mean_ms": None,
                "write_iops": 100.0 * cell.concurrency.numjobs,
                "write_lat_mean_ms": lat,
                "iops": 100.0 * cell.concurrency.numjobs,
            }
        )
    runs = pd.DataFrame(rows)
    assert curve_stop(sweep, runs, plain) is not None  # 9 ms > 5 ms
    assert curve_stop(sweep, runs, synced) is None


def test_a_sweep_without_a_stop_rule_stopped_no_curve(quick_store) -> None:
    """The quick sweep has no ``curve_stop``: every point of every curve was measured, so no
    curve reads "stopped", although its throughput falls past the rule's default 5%."""
    record = quick_store.get_sweep("quick")
    runs = quick_store.runs("quick")
    assert record["spec"]["matrix"].get("curve_stop") is None
    table = sweep_curves(runs, record["spec"]["matrix"])
    assert len(table) and table["stopped"].isna().all()
    # the same curves judged by the default rule do stop: the test can fail
    assert curves_table(runs)["stopped"].notna().any()
    with_rule = {**record["spec"]["matrix"], "curve_stop": {"throughput_drop_pct": 5}}
    assert sweep_curves(runs, with_rule)["stopped"].notna().any()


def _runs(cells: dict[str, float], engine: str = "psync") -> pd.DataFrame:
    """One run per cell key: IOPS ``cells[key]`` per I/O in flight, read latency 1 ms."""
    rows = []
    for key, per_io in cells.items():
        cell = WorkloadCell.parse(key)
        c = cell.concurrency
        n = c.numjobs * (1 if engine == "psync" else c.iodepth)
        rows.append(
            {
                "config_key": "raid5/single_rank/wb-ra",
                "cell_key": key,
                "pattern": cell.pattern.name,
                "block_size": cell.block_size,
                "active_pct": cell.active_pct,
                "iodepth": c.iodepth,
                "numjobs": c.numjobs,
                "engine": engine,
                "read_iops": per_io * n,
                "read_lat_mean_ms": 1.0,
                "write_iops": None,
                "write_lat_mean_ms": None,
                "iops": per_io * n,
            }
        )
    return pd.DataFrame(rows)


def test_a_distribution_or_a_sync_mode_is_a_curve_of_its_own() -> None:
    """Uniform and zipf reads of one block size are two curves, never averaged into one."""
    runs = _runs(
        {
            "randread/8k/qd1x1": 500.0,
            "randread/8k/qd1x4": 500.0,
            "randread/8k/qd1x16": 400.0,
            "randread/8k/qd1x1/zipf1.2": 3000.0,
            "randread/8k/qd1x4/zipf1.2": 3000.0,
            "randread/8k/qd1x16/zipf1.2": 2500.0,
        }
    )
    table = curves_table(runs, stop_rule=False).set_index("curve")
    assert list(table.index) == ["randread/8k", "randread/8k/zipf1.2"]
    assert table.loc["randread/8k", "speed"].iops == 500.0
    assert table.loc["randread/8k/zipf1.2", "speed"].iops == 3000.0
    assert table.loc["randread/8k/zipf1.2", "maximum"].iops == 40_000.0


def test_cells_with_the_same_ios_in_flight_are_one_point_and_said() -> None:
    runs = _runs(
        {
            "randread/8k/qd1x1": 100.0,
            "randread/8k/qd4x1": 100.0,
            "randread/8k/qd1x4": 80.0,
            "randread/8k/qd16x1": 50.0,
        },
        engine="libaio",
    )
    (row,) = curves_table(runs, stop_rule=False).itertuples()
    assert [p.outstanding for p in row.points] == [1, 4, 16]
    assert row.points[1].iops == pytest.approx(360.0)  # the mean of 400 and 320
    assert "qd1x4, qd4x1 are one point (4 in flight, their mean)" in row.note
