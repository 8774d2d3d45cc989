"""Physical invariants of every simulated run: the reference study's whole matrix on the
DS8800-like array as the study built it and the all-flash concurrency curve (workers per
load VM), through fio's JSON as a sweep sees it.

No percentile below the path's own minimum service time, percentiles in order, throughput
within the host links and the run's hard limits, utilisation at most 1.
"""

from __future__ import annotations

import itertools

import pytest

from sweeper.sim import ArrayState, Job, load_profile, predict, simulate_fio

KIB = 1024
GIB = 1024**3
LAYOUTS = {
    "single_rank": (1, None),
    "host_stripe": (4, 16),
    "pool_stripe": (4, 1024**2),
}
PATTERNS = {"read": 1.0, "write": 0.0, "randread": 1.0, "randwrite": 0.0, "randrw": 0.8}
BLOCKS = (4, 8, 16, 32, 64, 128, 256)


def _study_runs():
    for raid, layout, (rw, fr), bs in itertools.product(
        ("raid5", "raid6", "raid10"), LAYOUTS, PATTERNS.items(), BLOCKS
    ):
        ranks, stripe = LAYOUTS[layout]
        # as the study built it: RAID 10 on two sites, two ranks of 4+4 (16 drives)
        ranks = 2 if raid == "raid10" and ranks > 1 else ranks
        state = ArrayState(raid, layout, ranks, stripe, "wb-ra")
        yield "ds8800-like", state, Job(rw, fr, bs * KIB, 1, 20, "sync", 300, 6, 360 * GIB)


def _curve_runs():
    state = ArrayState("raid6", "pool_stripe", 4, 16384, "wb-ra")
    for (rw, fr, bs), n in itertools.product(
        (("randread", 1.0, 8), ("randwrite", 0.0, 8), ("read", 1.0, 128), ("write", 0.0, 128)),
        (1, 4, 16, 32, 64, 128, 256, 512),
    ):
        yield "allflash-nvme", state, Job(rw, fr, bs * KIB, 1, n, "sync", 300, 30, 30 * 10**12)


RUNS = list(_study_runs()) + list(_curve_runs())


def _check(profile_name: str, state: ArrayState, job: Job, seed: int) -> None:
    profile = load_profile(profile_name)
    pred = predict(profile, state, job)
    out = simulate_fio(
        profile,
        state,
        job,
        job_name="j",
        job_options={},
        global_options={},
        seed=(seed, state, job),
        timestamp=0,
    )
    where = (profile_name, state, job.rw, job.block_size, job.numjobs, seed)
    model = out["raidsweep_model"]
    assert 0 <= model["utilisation"] <= 1, where
    links = profile.host.hbas * profile.host.link_mib_s * 1024**2
    total_bytes = 0.0
    for name in ("read", "write"):
        comps = [c for p in pred.phases for c in getattr(p, name)]
        side = out["jobs"][0][name]
        if not comps:
            assert side["total_ios"] == 0, where
            continue
        floor_ns = min(c.floor_s for c in comps) * 1e9
        assert floor_ns > 0, where
        lat = side["clat_ns"]
        pct = [lat["percentile"][k] for k in sorted(lat["percentile"], key=float)]
        assert pct == sorted(pct), where
        assert lat["min"] >= floor_ns - 1, where
        assert pct[0] >= floor_ns - 1, where
        assert lat["mean"] >= floor_ns, where
        assert lat["max"] >= pct[-1], where
        total_bytes += side["bw_bytes"]
    assert total_bytes <= links * 1.0001, where
    iops = sum(out["jobs"][0][d]["iops"] for d in ("read", "write"))
    assert iops <= pred.ceiling * 1.0001 + 1 / job.runtime_s, where


@pytest.mark.parametrize(("profile_name", "state", "job"), RUNS)
def test_every_run_is_physical(profile_name: str, state: ArrayState, job: Job) -> None:
    for seed in (1, 2, 3):
        _check(profile_name, state, job, seed)
