"""The capture's pure parts on captures recorded from real fio runs (tests/fixtures/capture,
recorded by its record.py): trace lines, intervals, bins, phases and the recovered mix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from recommender.classes import WorkloadClass
from sweeper.capture.bins import concurrency_jobs, inferred_sequential, size_bin
from sweeper.capture.characterize import Options, characterize
from sweeper.capture.format import read_capture
from sweeper.capture.phases import busy, phases
from sweeper.capture.seconds import Second, seconds
from sweeper.capture.trace import TraceTally, bucket_upper_ms, latency_bucket, parse_line
from sweeper.errors import InputError
from sweeper.workload import WorkloadCell
from tests.support.paths import FIXTURES

HERE = FIXTURES / "capture"
K = 1024


def _run(name: str) -> dict:
    return json.loads((HERE / f"{name}.run.json").read_text())


def _jobs_share(run: dict) -> tuple[float, dict[str, float]]:
    jobs = run["phases"][0]
    total = sum(r + w for r, w in jobs.values())
    return sum(r for r, _ in jobs.values()) / total, {
        n: (r + w) / total for n, (r, w) in jobs.items()
    }


def test_size_bins_are_the_nearest_power_of_two() -> None:
    assert size_bin(6 * K) == 8 * K and size_bin(5 * K) == 4 * K
    assert size_bin(8 * K) == 8 * K and size_bin(100) == 512
    assert size_bin(900 * K) == 1024 * K and size_bin(1 << 40) == 16 * 1024 * K


def test_concurrency_is_a_power_of_two_of_jobs() -> None:
    assert [concurrency_jobs(x) for x in (0.2, 1.0, 1.4, 3.0, 5.0, 6.0, 40.0)] == [
        1,
        1,
        1,
        4,
        4,
        8,
        32,
    ]


def test_counters_infer_sequential_from_merges_or_size() -> None:
    assert inferred_sequential(100, 30, 8 * K)[0]
    assert inferred_sequential(100, 0, 512 * K)[0]
    random, why = inferred_sequential(100, 5, 8 * K)
    assert not random and "5% merged" in why


def test_latency_buckets_bound_the_time() -> None:
    for seconds_ in (2e-6, 1e-4, 3.3e-3, 0.5):
        upper = bucket_upper_ms(latency_bucket(seconds_))
        assert seconds_ * 1000 <= upper * 1.0001 < seconds_ * 1000 * 1.19 + 1e-3


def test_recorded_trace_lines_parse_into_the_jobs_requests() -> None:
    lines = (HERE / "trace.txt").read_text().splitlines()
    events = [e for e in map(parse_line, lines) if e is not None]
    assert {e.action for e in events} == {"Q", "C"}
    queued = [e for e in events if e.action == "Q"]
    assert {(e.direction, e.sectors * 512) for e in queued} <= {
        ("R", 8 * K),
        ("W", 8 * K),
        ("W", 64 * K),
    }
    device = (HERE / "device").read_text().strip().replace(":", ",")
    tally = TraceTally({device: "dev"}, start=events[0].ts - 0.5, interval=1.0)
    for line in lines:
        tally.feed(line)
    groups = [g for tick in tally.take().values() for g in tick["dev"]["groups"]]
    per = {}
    for direction, size, sequential, n, _ in groups:
        per[(direction, size, sequential)] = per.get((direction, size, sequential), 0) + n
    assert sum(per.values()) == len(queued)
    # the 64k stream is sequential, the 8k job's requests random
    assert per.get(("W", 64 * K, True), 0) > 10 * per.get(("W", 64 * K, False), 0)
    assert per.get(("R", 8 * K, False), 0) > 10 * per.get(("R", 8 * K, True), 0)


@pytest.mark.parametrize("name", ["mixed", "counters"])
def test_intervals_add_up_to_the_counters(name: str) -> None:
    capture = read_capture(HERE / f"{name}.jsonl")
    series = seconds(capture)
    device = capture.header.devices[0]
    first, last = capture.samples[0]["diskstats"][device], capture.samples[-1]["diskstats"][device]
    assert sum(s.reads for s in series) == last[0] - first[0]
    assert sum(s.write_bytes for s in series) == (last[6] - first[6]) * 512
    assert len(series) == len(capture.samples) - 1


@pytest.mark.parametrize("name", ["mixed", "counters"])
def test_the_phase_boundary_is_where_fio_changed(name: str) -> None:
    capture = read_capture(HERE / f"{name}.jsonl")
    active, idle = busy(seconds(capture))
    assert idle, "the idle seconds before and after the runs are set aside"
    found = phases(active, 8)
    assert len(found) == 2
    assert abs(found[1].t_start - _run(name)["change_t"]) <= 2.0


def _second(t: float, kind: str, rng: np.random.Generator) -> Second:
    """One second of 4k random reads at 10,000/s (``A``) or 1 MiB writes at 500/s (``B``),
    each rate with a few percent of noise."""
    f = float(rng.uniform(0.95, 1.05))
    if kind == "A":
        n = int(10_000 * f)
        return Second(t=t, dt=1.0, reads=n, read_bytes=4096 * n, read_ms=n // 2500)
    n = int(500 * f)
    return Second(t=t, dt=1.0, writes=n, write_bytes=2**20 * n, write_ms=8 * n)


@pytest.mark.parametrize(
    "lengths", [(300, 60, 900), (40, 31, 45), (900, 60, 300), (40, 40, 40), (500, 20, 20)]
)
def test_a_short_phase_inside_a_long_one_is_a_phase(lengths: tuple[int, int, int]) -> None:
    """An hour's backup inside a day of OLTP, in small: A, then B, then A again. One split of
    the whole leaves A's median on both sides; the local search finds B where it is."""
    rng = np.random.default_rng(sum(lengths))
    kinds = ["A"] * lengths[0] + ["B"] * lengths[1] + ["A"] * lengths[2]
    series = [_second(float(i + 1), k, rng) for i, k in enumerate(kinds)]
    found = phases(series, 20)
    assert [(p.start, p.stop) for p in found] == [
        (0, lengths[0]),
        (lengths[0], lengths[0] + lengths[1]),
        (lengths[0] + lengths[1], len(kinds)),
    ]


def test_steady_noise_is_one_phase() -> None:
    rng = np.random.default_rng(3)
    series = [_second(float(i + 1), "A", rng) for i in range(2000)]
    assert len(phases(series, 20)) == 1


def _classes(name: str) -> list:
    capture = read_capture(HERE / f"{name}.jsonl")
    classes, _ = characterize(seconds(capture), Options(name, min_phase_s=8))
    for c in classes:
        WorkloadClass.model_validate(c.document)
    return classes


def _cells(phase) -> dict[str, float]:
    return {c["cell"]: c["weight"] for c in phase.document["cells"]}


def _read_share(phase) -> float:
    weights = _cells(phase)
    return sum(
        w * WorkloadCell.parse(cell).pattern.read_fraction for cell, w in weights.items()
    ) / sum(weights.values())


def test_the_traced_mix_is_recovered() -> None:
    """8k random 70/30 at queue depth 4 beside 64k sequential writes, then 1m sequential
    reads: read share ±5 points, the dominant bins exact, weights ±10 points."""
    mixed, scan = _classes("mixed")
    read_share, jobs = _jobs_share(_run("mixed"))
    assert abs(_read_share(mixed) - read_share) <= 0.05
    assert abs(mixed.read_share - read_share) <= 0.05
    weights = _cells(mixed)
    oltp = [c for c in weights if c.startswith("randrw") and "/8k/" in c]
    log = [c for c in weights if c.startswith("write/64k/")]
    assert len(oltp) == 1 and len(log) == 1, weights
    assert abs(weights[oltp[0]] - 100 * jobs["oltp"]) <= 10
    assert abs(weights[log[0]] - 100 * jobs["log"]) <= 10
    assert mixed.document["metric"] == "iops"
    assert [c.split("/")[:2] for c in _cells(scan)] == [["read", "1m"]]
    assert scan.document["metric"] == "mbps"
    assert {lim["metric"] for lim in mixed.document["limits"]} == {"read_lat_p99", "write_lat_p99"}


def test_counters_alone_recover_read_share_bins_and_phases() -> None:
    oltp, scan = _classes("counters")
    read_share, _ = _jobs_share(_run("counters"))
    assert abs(oltp.read_share - read_share) <= 0.05
    assert abs(_read_share(oltp) - read_share) <= 0.05
    (cell,) = _cells(oltp)
    assert cell.startswith("randrw") and cell.split("/")[1] == "8k"
    assert [c.split("/")[:2] for c in _cells(scan)] == [["read", "1m"]]
    assert any("diskstats alone" in line for line in oltp.explanation)


def test_the_explanation_accounts_for_every_cell() -> None:
    mixed, _ = _classes("mixed")
    text = "\n".join(mixed.explanation)
    for cell in _cells(mixed):
        assert cell in text
    for cell, share in mixed.dropped:
        assert f"dropped as noise: {cell.key} ({share:.1%}" in text


def test_a_broken_capture_is_refused_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = (HERE / "counters.jsonl").read_text().splitlines()
    lines[3] = lines[3][:20]
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="line 4: not JSON"):
        read_capture(bad)
    bad.write_text('{"format": "raidsweep.capture/1"}\n')
    with pytest.raises(InputError, match="line 1: host"):
        read_capture(bad)
    cut = tmp_path / "cut.jsonl"
    shutil.copy(HERE / "counters.jsonl", cut)
    with open(cut, "a") as fh:  # a capture killed mid-line keeps what came before
        fh.write('{"tick": 99, "t": 1')
    assert len(read_capture(cut).samples) == len(read_capture(HERE / "counters.jsonl").samples)


def test_trace_lines_tally_alike_one_at_a_time_or_in_blocks() -> None:
    """The reader hands over whole lines in blocks of any length (as the pipe gives them)."""
    lines = (HERE / "trace.txt").read_text().splitlines()
    device = (HERE / "device").read_text().strip().replace(":", ",")
    start = next(e for e in map(parse_line, lines) if e is not None).ts - 0.5
    one, blocks = (TraceTally({device: "dev"}, start=start, interval=1.0) for _ in range(2))
    for line in lines:
        one.feed(line)
    at, sizes = 0, [1, 7, 50, 333, 1000]
    while at < len(lines):
        size = sizes[at % len(sizes)]
        blocks.feed("\n".join(lines[at : at + size]) + "\n")
        at += size
    assert one.lines == blocks.lines > 0
    assert one.take() == blocks.take()
