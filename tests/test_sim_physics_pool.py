"""More drives never slow the simulated array down, and a failed drive and its rebuild only
cost: on every layout and RAID level, for random reads, writes and mixes from 1 to 1024
I/Os in flight under both cache policies, more ranks (the same working set) or wider ranks
give at least the throughput, and optimal ≥ degraded ≥ rebuilding (a rebuilding rank is a
degraded one plus the rebuild's own work on its drives).

On a pool a read miss holds a slot of the virtualisation path through its drive access: only
the slots' holders are at the drives, so a drive never queues more of those reads than the
pool has slots, and fewer drives never reorder a deeper queue into a shorter hold."""

from __future__ import annotations

import functools

import pytest

from sweeper.sim import ArrayState, Job, load_profile, predict

GIB = 1024**3
PROFILE = load_profile("ds8800-like")
LEVELS = ("raid5", "raid6", "raid10")
POLICIES = ("wb-ra", "wt-nora")
PATTERNS = {"randread": 1.0, "randwrite": 0.0, "randrw": 0.7}
IN_FLIGHT = (1, 16, 1024)
STRIPE = {"single_rank": None, "host_stripe": 16, "pool_stripe": 1024**2}
#: the working set of every comparison: larger than one server's read cache, smaller than
#: the narrowest volume of the grid (one rank of two data drives)
WORKING_SET = 400 * GIB
#: below the fixed points' tolerance: the figures are compared, not their rounding
SLACK = 1e-6


@functools.cache
def _iops(
    level: str, layout: str, ranks: int, policy: str, rw: str, bs: int, n: int, **kw
) -> float:
    state = ArrayState(level, layout, ranks, STRIPE[layout], policy, **kw)
    job = Job(rw, PATTERNS[rw], bs, n, 1, "libaio", 300, 5, WORKING_SET)
    return predict(PROFILE, state, job).iops


def _never_lower(series: list[tuple[object, float]]) -> list[tuple[object, object, int, int]]:
    return [
        (a, b, round(xa), round(xb))
        for (a, xa), (b, xb) in zip(series, series[1:], strict=False)
        if xb < xa * (1 - SLACK)
    ]


@pytest.mark.parametrize("level", LEVELS)
def test_more_ranks_never_give_less_throughput(level: str) -> None:
    # Host striping cuts an I/O larger than its 16 KiB stripe into one piece per LUN up to
    # the pieces it has: more LUNs there mean more, smaller requests (more positionings and
    # commands, a slower slowest piece), a real cost; the property holds where the pieces
    # stay (4k, and 64k from four LUNs on).
    broken = []
    for policy in POLICIES:
        for rw in PATTERNS:
            for n in IN_FLIGHT:
                for layout, bs, ranks in (
                    ("pool_stripe", 4096, (1, 2, 3, 4, 6)),
                    ("pool_stripe", 65536, (1, 2, 4)),
                    ("host_stripe", 4096, (1, 2, 4)),
                    ("host_stripe", 65536, (4, 6)),
                ):
                    series = [(r, _iops(level, layout, r, policy, rw, bs, n)) for r in ranks]
                    broken += [(layout, policy, rw, bs, n, *b) for b in _never_lower(series)]
    assert not broken, broken


@pytest.mark.parametrize("level", LEVELS)
def test_wider_ranks_never_give_less_throughput(level: str) -> None:
    widths = [w for w in range(2, PROFILE.site_width + 1) if not PROFILE.width_problem(level, w)]
    widths = sorted({*widths[::2], widths[-1]})  # the narrowest, every other one, the widest
    broken = []
    for layout, ranks in (("single_rank", 1), ("host_stripe", 4), ("pool_stripe", 4)):
        for policy in POLICIES:
            for rw in PATTERNS:
                for n in IN_FLIGHT:
                    series = [
                        (w, _iops(level, layout, ranks, policy, rw, 4096, n, rank_drives=w))
                        for w in widths
                    ]
                    broken += [(layout, policy, rw, n, *b) for b in _never_lower(series)]
    assert not broken, broken


@pytest.mark.parametrize("level", LEVELS)
def test_optimal_beats_degraded_beats_rebuilding(level: str) -> None:
    broken = []
    for layout, ranks in (("single_rank", 1), ("host_stripe", 4), ("pool_stripe", 4)):
        for policy in POLICIES:
            for rw in PATTERNS:
                for n in IN_FLIGHT:
                    series = [
                        (h, _iops(level, layout, ranks, policy, rw, 4096, n, health=h))
                        for h in ("rebuilding", "degraded", "optimal")
                    ]
                    broken += [(layout, policy, rw, n, *b) for b in _never_lower(series)]
    assert not broken, broken


def test_the_probes_pool_cases() -> None:
    """The cases that showed the defect: RAID 10 ranks on a pool under a write-through
    mix, a RAID 5 pool failing and rebuilding, and narrow against wide ranks."""
    mix = Job("randrw", 0.7, 4096, 256, 1, "libaio", 300, 5, 100 * GIB)
    by_ranks = [
        predict(PROFILE, ArrayState("raid10", "pool_stripe", r, 1024**2, "wt-nora"), mix).iops
        for r in (1, 2, 3, 4, 5)
    ]
    assert by_ranks == sorted(by_ranks), by_ranks
    reads = Job("randread", 1.0, 4096, 32, 1, "libaio", 300, 5, 200 * GIB)
    pool = ArrayState("raid5", "pool_stripe", 4, 1024**2, "wb-ra")
    health = {
        h: predict(PROFILE, ArrayState(**{**pool.__dict__, "health": h}), reads).iops
        for h in ("optimal", "degraded", "rebuilding")
    }
    assert health["optimal"] > health["degraded"] > health["rebuilding"], health
    deep = Job("randread", 1.0, 4096, 64, 1, "libaio", 300, 5, 200 * GIB)
    narrow = predict(PROFILE, ArrayState(**{**pool.__dict__, "rank_drives": 3}), deep).iops
    assert narrow < predict(PROFILE, pool, deep).iops
    # 1024 reads in flight wait for the pool's slots, not at the drives: a busy drive
    # holds no more reads than there are slots (command queueing has no more to choose)
    many = Job("randread", 1.0, 4096, 1024, 1, "libaio", 300, 5, WORKING_SET)
    for ranks in (1, 2, 4):
        pred = predict(PROFILE, ArrayState("raid5", "pool_stripe", ranks, 1024**2, "wb-ra"), many)
        assert pred.explain["drive_queue"] <= PROFILE.pool.slots, (ranks, pred.explain)


def test_a_rebuild_is_work_on_the_drives_not_fewer_drives() -> None:
    job = Job("randread", 1.0, 4096, 64, 1, "libaio", 300, 5, WORKING_SET)
    state = ArrayState("raid5", "host_stripe", 4, 16, "wb-ra", health="degraded")
    degraded = predict(PROFILE, state, job)
    rebuilding = predict(PROFILE, ArrayState(**{**state.__dict__, "health": "rebuilding"}), job)
    # the same drives serve host I/O (a rank of 8 with one failed: 7 each) ...
    assert degraded.explain["drives_busy"] == rebuilding.explain["drives_busy"] == 28
    # ... with the rebuild's share of their time taken: at most 1 − share of the rate
    share = PROFILE.timing.rebuild_share
    assert rebuilding.iops <= degraded.iops * (1 - share) * 1.01
