"""The all-flash concurrency curve (STUDIES.md §2) on the simulated array's model: three
load VMs, each raising its own number of synchronous workers (the counts are per VM), 8k
random reads and writes and 128k sequential reads and writes over the whole array."""

from __future__ import annotations

import pytest

from recommender.curves import CurvePoint, analyse_curve
from sweeper.sim import ArrayState, Job, load_profile, predict
from sweeper.sim.model import Prediction
from sweeper.sim.profile import ArrayProfile

PROFILE = load_profile("allflash-nvme")
STATE = ArrayState("raid6", "pool_stripe", 4, 16384, "wb-ra")
WORKERS = (1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256, 512)  # per load VM
PATTERNS = {"randread": (1.0, 8), "randwrite": (0.0, 8), "read": (1.0, 128), "write": (0.0, 128)}


def _point(rw: str, workers: int, profile: ArrayProfile = PROFILE) -> Prediction:
    read, kib = PATTERNS[rw]
    return predict(
        profile, STATE, Job(rw, read, kib * 1024, 1, workers, "sync", 300, 30, 30 * 10**12)
    )


def _curve(rw: str, profile: ArrayProfile = PROFILE) -> tuple[list[float], list[float]]:
    points = [_point(rw, n, profile) for n in WORKERS]
    lat = [p.read_lat_s if PATTERNS[rw][0] else p.write_lat_s for p in points]
    return [p.iops for p in points], lat


def test_the_worker_counts_are_per_load_vm() -> None:
    assert PROFILE.host.load_hosts == 3
    one_vm = PROFILE.model_copy(update={"host": PROFILE.host.model_copy(update={"load_hosts": 1})})
    # Three VMs' single workers carry three times one VM's, at the same latency.
    assert _point("randread", 1).iops == pytest.approx(
        3 * _point("randread", 1, one_vm).iops, rel=0.02
    )


def test_random_reads_stay_flat_to_32_workers_per_vm_then_bend_and_saturate_gradually() -> None:
    iops, lat = _curve("randread")
    at32 = WORKERS.index(32)
    # Speed: one worker per VM; latency flat while the controllers have headroom
    assert all(x < 1.1 * lat[0] for x in lat[: at32 + 1])
    # Optimum (the knee): the last point where throughput rises faster than latency, as
    # ``raidsweep curves`` finds it (each VM's workers stand for I/Os in flight: three VMs)
    optimum = analyse_curve(
        [CurvePoint(n, x, 1000 * r) for n, x, r in zip(WORKERS, iops, lat, strict=True)]
    ).optimum
    assert optimum is not None
    knee = WORKERS.index(optimum.outstanding)
    assert 32 <= WORKERS[knee] <= 64
    # No hard wall at the knee: it carries less than 95% of the maximum, which comes later
    assert iops[knee] < 0.95 * max(iops)
    assert iops == sorted(iops)
    # Maximum: saturation; beyond it only latency grows (Little's law)
    assert iops[-1] / iops[-2] < 1.02 and lat[-1] > 4 * lat[at32]


def test_writes_cost_the_controllers_and_the_back_end() -> None:
    reads, _ = _curve("randread")
    writes, write_lat = _curve("randwrite")
    # The partner controller's copy of every write: writes saturate below reads
    assert max(writes) < 0.7 * max(reads)
    assert write_lat[0] < 1.1 * write_lat[1]  # a write waits for cache, not for flash
    # The RAID 6 read-modify-write's page reads and programs load the dies: slower
    # programs lower the write ceiling, and leave the read ceiling as it was.
    drives = PROFILE.drives.model_copy(update={"program_us": 20 * (PROFILE.drives.program_us or 0)})
    slow = PROFILE.model_copy(update={"drives": drives})
    assert max(_curve("randwrite", slow)[0]) < 0.8 * max(writes)
    assert max(_curve("randread", slow)[0]) == pytest.approx(max(reads), rel=0.01)


@pytest.mark.parametrize("rw", ["read", "write"])
def test_sequential_streams_saturate_their_limit(rw: str) -> None:
    iops, lat = _curve(rw)
    assert iops == sorted(iops)
    assert iops[-1] / iops[-2] < 1.02 and lat[-1] > 10 * lat[0]
