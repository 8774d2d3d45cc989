"""fio interval logs (recorded from real fio, tests/fixtures/fio) and the SNIA steady-state rule."""

from __future__ import annotations

import csv
import io
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from sweeper.fio.steady import (
    LogSample,
    merge_job_logs,
    parse_interval_log,
    rounds,
    snia_steady_state,
)
from tests.support.paths import FIO_FIXTURES as FIXTURES

JOB1 = "steady_randwrite_4k_qd1x2_iops.1.log"
JOB2 = "steady_randwrite_4k_qd1x2_iops.2.log"
MIXED = "steady_randrw70_4k_offset_prio_bw.1.log"


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def raw_rows(name: str) -> list[list[int]]:
    """The fixture's columns read independently of the parser (csv, hex priority)."""
    return [[int(f.strip(), 0) for f in row] for row in csv.reader(io.StringIO(text(name))) if row]


# --- parsing recorded logs ------------------------------------------------------------------


@pytest.mark.parametrize("name", [JOB1, JOB2])
def test_parse_recorded_five_column_iops_log(name: str) -> None:
    samples = parse_interval_log(text(name))
    rows = raw_rows(name)
    assert len(rows[0]) == 5
    assert [(s.time_ms, s.value, s.direction, s.block_size) for s in samples] == [
        (r[0], float(r[1]), r[2], r[3]) for r in rows
    ]
    assert all(s.offset is None and s.priority == 0 for s in samples)
    assert all(s.direction == 1 for s in samples)  # randwrite


def test_parse_recorded_six_column_log_with_hex_priority() -> None:
    samples = parse_interval_log(text(MIXED))
    rows = raw_rows(MIXED)
    assert len(rows[0]) == 6 and "0x0000" in text(MIXED)
    assert [(s.time_ms, s.value, s.direction, s.offset, s.priority) for s in samples] == [
        (r[0], float(r[1]), r[2], r[4], r[5]) for r in rows
    ]
    assert {s.direction for s in samples} == {0, 1}  # randrw: reads and writes


def test_parse_skips_blank_lines_and_reads_hex_priority() -> None:
    samples = parse_interval_log("\n1000, 5, 0, 4096, 0x0001\n\n2000, 7.5, 1, 0, 8192, 1\n")
    assert samples == [
        LogSample(1000, 5.0, 0, 4096, None, 1),
        LogSample(2000, 7.5, 1, 0, 8192, 1),
    ]


def test_a_log_of_fio_before_3_18_without_its_priority_column_reads_alike() -> None:
    """fio 3.12-3.17 wrote no priority (it came with 3.18's per-command priorities): the
    recorded log with that column taken off is the same samples, without a priority."""
    recorded = text(JOB1)
    old = "\n".join(line.rsplit(",", 1)[0] for line in recorded.splitlines() if line.strip())
    assert all(line.count(",") == 3 for line in old.splitlines())
    new_samples, old_samples = parse_interval_log(recorded), parse_interval_log(old)
    assert [(s.time_ms, s.value, s.direction, s.block_size) for s in old_samples] == [
        (s.time_ms, s.value, s.direction, s.block_size) for s in new_samples
    ]
    assert {s.priority for s in old_samples} == {None}


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ("2000, 5, 1", "expected 4, 5 or 6 comma-separated columns, got 3"),
        ("2000, 5, 1, 0, 0, 0, 0", "got 7"),
        ("2000, fast, 1, 0, 0", "value 'fast' is not a number"),
        ("2000, nan, 1, 0, 0", "not a finite number"),
        ("2000, -3, 1, 0, 0", "not a finite number >= 0"),
        ("2000, 5, 3, 0, 0", "data direction 3 is not 0, 1 or 2"),
        ("2.5s, 5, 1, 0, 0", "time '2.5s' is not an integer"),
        ("-1000, 5, 1, 0, 0", "time -1000 is negative"),
        ("2000, 5, 1, 0, 0xZZ", "priority '0xZZ' is not an integer"),
    ],
)
def test_parse_malformed_line_names_line_and_problem(bad_line: str, problem: str) -> None:
    log = f"1000, 5, 1, 0, 0\n{bad_line}\n"
    with pytest.raises(ValueError, match="line 2: ") as info:
        parse_interval_log(log)
    assert problem in str(info.value)


# --- merging jobs and rounds ----------------------------------------------------------------


def test_merge_recorded_job_logs_sums_per_window() -> None:
    job1, job2 = parse_interval_log(text(JOB1)), parse_interval_log(text(JOB2))
    a, b = np.array(raw_rows(JOB1)), np.array(raw_rows(JOB2))
    # Recorded: job 1 stamped one window 2001 ms, and only job 2 logged the 6000 ms window.
    assert 2001 in a[:, 0] and len(a) == 5 and len(b) == 6
    merged = merge_job_logs([job1, job2])
    assert [s.time_ms for s in merged] == [1000, 2000, 3000, 4000, 5000]
    assert [s.value for s in merged] == list((a[:, 1] + b[:5, 1]).astype(float))
    assert all(s.direction == 1 for s in merged)


def test_merge_keeps_directions_apart() -> None:
    mixed = parse_interval_log(text(MIXED))
    merged = merge_job_logs([mixed, mixed])
    assert [(s.time_ms, s.direction, s.value) for s in merged] == [
        (s.time_ms, s.direction, 2 * s.value) for s in mixed
    ]


def test_merge_averages_several_samples_of_one_job_in_a_window() -> None:
    log = [LogSample(500, 10.0, 1, 0, None, None), LogSample(1000, 30.0, 1, 0, None, None)]
    assert [s.value for s in merge_job_logs([log], log_avg_msec=1000)] == [20.0]


def test_stamps_a_few_ms_early_or_late_share_a_window() -> None:
    # Seen from real fio: one job stamped its windows 999 and 1999 ms, the other 1001 and 2001.
    job1 = [LogSample(999, 10.0, 1, 0, None, 0), LogSample(1999, 11.0, 1, 0, None, 0)]
    job2 = [LogSample(1001, 20.0, 1, 0, None, 0), LogSample(2001, 21.0, 1, 0, None, 0)]
    merged = merge_job_logs([job1, job2])
    assert [(s.time_ms, s.value) for s in merged] == [(1000, 30.0), (2000, 32.0)]
    assert rounds(merged, 1, "write") == [30.0, 32.0]
    assert rounds(job1, 2, "write") == [10.5]


def test_rounds_of_one_recorded_log() -> None:
    job1 = parse_interval_log(text(JOB1))
    values = [float(r[1]) for r in raw_rows(JOB1)]
    assert rounds(job1, 1, "write") == values
    # 2 s rounds: two complete rounds, the fifth window alone is a partial round and dropped.
    assert rounds(job1, 2.0, "write") == [
        (values[0] + values[1]) / 2,
        (values[2] + values[3]) / 2,
    ]
    assert rounds(job1, 1, "read") == []


def test_rounds_by_direction_on_a_recorded_mixed_log() -> None:
    mixed = parse_interval_log(text(MIXED))
    rows = raw_rows(MIXED)
    reads = [float(r[1]) for r in rows if r[2] == 0]
    writes = [float(r[1]) for r in rows if r[2] == 1]
    assert rounds(mixed, 1, "read") == reads
    assert rounds(mixed, 1, "write") == writes
    assert rounds(mixed, 1, None) == [r + w for r, w in zip(reads, writes, strict=True)]


def test_rounds_refuse_concatenated_unmerged_logs() -> None:
    both = parse_interval_log(text(JOB1)) + parse_interval_log(text(JOB2))
    with pytest.raises(ValueError, match="merge_job_logs"):
        rounds(both, 1, "write")


def test_rounds_start_at_the_first_sample_and_refuse_a_gap() -> None:
    late = [LogSample(t, float(t), 1, 0, None, None) for t in range(7000, 12000, 1000)]
    assert rounds(late, 1, "write") == [7000.0, 8000.0, 9000.0, 10000.0, 11000.0]
    holed = late[:2] + late[3:]  # the window stamped 9000 ms (8000-9000 ms) is missing
    with pytest.raises(ValueError, match=r"round 2 \(8000-9000 ms\) holds 0 of its 1 windows"):
        rounds(holed, 1, "write")


@pytest.mark.parametrize(
    ("round_s", "direction", "match"),
    [
        (1.5, "write", "multiple of log_avg_msec"),
        (0, "write", "multiple of log_avg_msec"),
        (1, "writes", "direction must be one of"),
    ],
)
def test_rounds_reject_bad_arguments(round_s: float, direction: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rounds(parse_interval_log(text(JOB1)), round_s, direction)


def test_recorded_two_job_run_is_steady_from_round_zero() -> None:
    merged = merge_job_logs([parse_interval_log(text(JOB1)), parse_interval_log(text(JOB2))])
    per_round = rounds(merged, 1, "write")
    result = snia_steady_state(per_round)
    expected = np.array(raw_rows(JOB1))[:, 1] + np.array(raw_rows(JOB2))[:5, 1]
    assert (result.steady, result.window_start, result.window_end) == (True, 0, 4)
    assert result.average == pytest.approx(expected.mean())


@pytest.mark.integration
def test_live_fio_interval_logs(tmp_path: Path) -> None:
    fio = shutil.which("fio")
    if fio is None:
        pytest.skip("fio is not installed")
    cmd = [
        fio,
        "--name=t",
        f"--filename={tmp_path / 'data.bin'}",
        "--size=16m",
        "--rw=randwrite",
        "--bs=4k",
        "--direct=0",
        "--time_based",
        "--runtime=3",
        "--write_iops_log=live",
        "--log_avg_msec=1000",
        "--numjobs=2",
    ]
    # Buffered I/O: O_DIRECT is not available on every temporary file system.
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    logs = [parse_interval_log((tmp_path / f"live_iops.{j}.log").read_text()) for j in (1, 2)]
    assert all(len(log) >= 2 for log in logs)
    merged = merge_job_logs(logs)
    per_round = rounds(merged, 1, "write")
    assert len(per_round) >= 2 and all(v > 0 for v in per_round)
    # Both jobs' first windows end together, give or take a few ms (fio stamps 999 or 1001).
    first, second = logs[0][0], logs[1][0]
    assert abs(first.time_ms - second.time_ms) < 500
    assert per_round[0] == pytest.approx(first.value + second.value)


# --- the SNIA rule on constructed rounds ----------------------------------------------------


def test_flat_is_steady_at_window_zero() -> None:
    result = snia_steady_state([100.0] * 8)
    assert (result.steady, result.window_start, result.window_end) == (True, 0, 4)
    assert result.average == 100.0 and result.range_pct == 0.0
    assert result.slope_pct == pytest.approx(0.0, abs=1e-9)
    assert result.rounds_used == 5


def test_ramp_is_not_steady_and_reports_the_last_window() -> None:
    result = snia_steady_state([10.0 * i for i in range(1, 11)])
    assert not result.steady
    assert result.window_start is None and result.window_end is None
    assert result.average == pytest.approx(80.0)  # 60..100
    assert result.range_pct == pytest.approx(50.0)
    assert result.slope_pct == pytest.approx(50.0)
    assert result.rounds_used == 10


def test_ramp_then_flat_is_steady_at_the_first_flat_window() -> None:
    # Window 3 (80, 100 × 4) has range 20 / 96 = 20.8 % and just misses; window 4 is flat.
    result = snia_steady_state([20.0, 40.0, 60.0, 80.0, 100.0, 100.0, 100.0, 100.0, 100.0])
    assert (result.steady, result.window_start, result.window_end) == (True, 4, 8)
    assert result.rounds_used == 9


@pytest.mark.parametrize(
    ("half", "steady"),
    [(9.75, True), (10.0, True), (10.25, False)],  # range 19.5 %, exactly 20 %, 20.5 %
)
def test_range_boundary_at_twenty_percent(half: float, steady: bool) -> None:
    # Symmetric about the middle round: average exactly 100, best-fit slope exactly 0.
    values = [100 - half, 100 + half, 100.0, 100 + half, 100 - half]
    result = snia_steady_state(values)
    assert result.steady is steady
    assert result.range_pct == pytest.approx(2 * half)
    assert result.slope_pct == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("step", "steady"),
    [(2.0, True), (2.5, True), (3.0, False)],  # fit excursion 8 %, exactly 10 %, 12 %
)
def test_slope_is_the_fit_excursion_across_the_window(step: float, steady: bool) -> None:
    # A straight line: range = excursion, both within 20 %; only the 10 % slope rule decides.
    # A per-round reading of the slope (step / average = 3 %) would call step 3 steady.
    values = [100 + step * (i - 2) for i in range(5)]
    result = snia_steady_state(values)
    assert result.steady is steady
    assert result.slope_pct == pytest.approx(4 * step)


def test_slope_pct_matches_an_independent_least_squares_fit() -> None:
    values = [1000.0, 1012.0, 991.0, 1030.0, 1021.0]
    fit = stats.linregress(np.arange(5), values)
    result = snia_steady_state(values)
    assert result.slope_pct == pytest.approx(100 * abs(fit.slope) * 4 / np.mean(values))
    assert result.range_pct == pytest.approx(100 * 39 / np.mean(values))
    assert result.steady


def test_window_and_thresholds_are_parameters() -> None:
    values = [100.0, 115.0, 130.0, 130.0, 130.0, 130.0]
    # window 3: (115, 130, 130) fits a line moving 15 / 125 = 12 % > 10 %; flat from round 2.
    assert snia_steady_state(values, window=3).window_start == 2
    # window 5: (115, 130 × 4) has range 11.8 % and fit excursion 3 × 4 / 127 = 9.4 %.
    five = snia_steady_state(values, window=5)
    assert five.window_start == 1 and five.slope_pct == pytest.approx(1200 / 127)
    assert not snia_steady_state(values, window=5, max_excursion=0.10).steady
    assert not snia_steady_state(values, window=5, max_slope=0.05).steady


def test_fewer_rounds_than_a_window() -> None:
    result = snia_steady_state([100.0, 100.0, 100.0])
    assert not result.steady
    assert result.average is None and result.range_pct is None and result.slope_pct is None
    assert result.rounds_used == 3


def test_all_zero_rounds_are_not_steady() -> None:
    result = snia_steady_state([0.0] * 6)
    assert not result.steady and result.average == 0.0
    assert result.range_pct is not None and math.isinf(result.range_pct)


@pytest.mark.parametrize(
    ("values", "window"),
    [([1.0, 2.0], 1), ([1.0, -2.0, 3.0], 2), ([1.0, math.nan, 3.0], 2), ([1.0, math.inf], 2)],
)
def test_bad_input_raises(values: list[float], window: int) -> None:
    with pytest.raises(ValueError):
        snia_steady_state(values, window=window)
