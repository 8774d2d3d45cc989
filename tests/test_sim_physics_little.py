"""Little's law in the simulated array: latency and throughput come from the same demands.

A closed loop of ``N`` I/Os in flight with no think time completes ``X = N / R`` a second,
``R`` the mean time one I/O takes (reads and writes weighted by their shares, plus the flush
that follows each write where the job asks for one). A latency floor the queueing network
never charges, or a throughput the network reaches at a speed the media cannot give, breaks
it; so does a write-through write that does not wait for the drive.
"""

from __future__ import annotations

import itertools

import pytest

from sweeper.sim import ArrayState, Job, load_profile, predict

KIB = 1024
GIB = 1024**3
PROFILES = ("ds8800-like", "allflash-nvme", "hybrid-hci")
LAYOUTS = {"single_rank": (1, None), "host_stripe": (4, 16), "pool_stripe": (4, 1024**2)}
PATTERNS = {"read": 1.0, "write": 0.0, "randread": 1.0, "randwrite": 0.0, "randrw": 0.7}


def _runs():
    profiles = {name: load_profile(name) for name in PROFILES}
    for name, raid, layout, policy, (rw, fr), bs, (depth, jobs) in itertools.product(
        PROFILES,
        ("raid5", "raid6", "raid10"),
        LAYOUTS,
        ("wb-ra", "wt-nora"),
        PATTERNS.items(),
        (4, 64, 1024),
        ((1, 1), (32, 1), (1, 16), (16, 4)),
    ):
        profile = profiles[name]
        if raid not in profile.raid_groups:
            continue
        ranks, stripe = LAYOUTS[layout]
        state = ArrayState(raid, layout, ranks, stripe, policy)
        engine = "libaio" if depth > 1 else "psync"
        yield profile, state, Job(rw, fr, bs * KIB, depth, jobs, engine, 300, 5, 200 * GIB)


def _cycle(phase, job: Job, flush: float) -> float:
    """Mean time one I/O of ``phase`` takes, the flush after a write included."""
    fr = job.read_fraction

    def mean(comps) -> float:
        weight = sum(c.weight for c in comps)
        return sum(c.weight * c.mean_s for c in comps) / weight if weight else 0.0

    return fr * mean(phase.read) + (1 - fr) * (mean(phase.write) + flush)


def test_every_run_obeys_littles_law() -> None:
    broken = []
    for profile, state, job in _runs():
        pred = predict(profile, state, job, dirty_start=0.0)
        n = job.outstanding * profile.host.load_hosts
        for phase in pred.phases:
            if phase.share <= 0:
                continue
            xr = phase.iops * _cycle(phase, job, pred.flush_s)
            if abs(xr / n - 1) > 0.01:
                broken.append((profile.name, state, job.rw, job.block_size, n, round(xr, 3)))
    assert not broken, f"{len(broken)} runs break X·R = N, e.g. {broken[:5]}"


@pytest.mark.parametrize("raid", ["raid10", "raid5", "raid6"])
def test_a_write_through_sequential_write_waits_for_the_spinning_media(raid: str) -> None:
    # With its write cache off, a spinning drive writes a block when its sector comes round:
    # no drive completes more than one write-through write a rotation, whatever the queue.
    profile = load_profile("ds8800-like")
    state = ArrayState(raid, "single_rank", 1, None, "wt-nora")
    per_rotation = profile.drives.rpm / 60
    drives = profile.raid_groups[raid].width
    for depth in (1, 32):
        job = Job("write", 0.0, 4 * KIB, depth, 1, "libaio", 300, 5, 50 * GIB)
        assert predict(profile, state, job).iops <= drives * per_rotation, (raid, depth)
