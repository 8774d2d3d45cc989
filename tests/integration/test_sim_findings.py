"""What must emerge from the simulated array's mechanisms with the shipped profiles.

The reference study's findings (STUDIES.md §1) are checked on a real sweep of
examples/ds8800-study.yaml (945 runs through Ansible, the runner and the store); the
all-flash curve and the hybrid cache-tier cliff on the model itself.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from recommender.data import load_rankings
from sweeper.sim import ArrayState, Job, load_profile, predict
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.paths import ROOT

STUDY = ROOT / "examples" / "ds8800-study.yaml"
LEVELS = ("raid5", "raid6", "raid10")
LAYOUTS = ("single_rank", "host_stripe", "pool_stripe")
KIB = 1024


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[ParquetStore, pd.DataFrame]:
    spec, inventory = load_spec(STUDY)
    store = ParquetStore(tmp_path_factory.mktemp("ds8800"))
    outcome = run_sweep(spec, inventory, store)
    assert outcome.runs_written == 945 and not outcome.configurations_failed
    runs = store.runs(spec.name)
    return store, runs


@pytest.fixture(scope="module")
def means(study) -> pd.DataFrame:
    """Mean IOPS of the three repetitions per (raid, layout, pattern, block size)."""
    _, runs = study
    return runs.groupby(["raid_level", "layout", "pattern", "block_size"])["iops"].mean()


def test_every_run_is_a_measurement_with_its_mechanisms_disclosed(study) -> None:
    _, runs = study
    assert len(runs) == 945 and runs["config_key"].nunique() == 9
    assert (runs.groupby(["config_key", "cell_key"]).size() == 3).all()
    full = study[0].runs("ds8800-study", config_key="raid10/pool_stripe/ranks2/stripe1g/wb-ra")
    assert len(full) == 105


def test_sequential_throughput_barely_depends_on_raid_level(means) -> None:
    spreads = []
    for layout in LAYOUTS:
        for pattern in ("read", "write"):
            for bs in (4, 8, 16, 32, 64, 128, 256):
                values = [means[(r, layout, pattern, bs * KIB)] for r in LEVELS]
                spreads.append(max(values) / min(values))
    # Mostly independent: the cache and the host links decide, not the back end. Only a
    # single RAID 10 rank (4 data drives) shows its back end at the largest blocks.
    assert sorted(spreads)[len(spreads) // 2] < 1.08
    assert max(spreads) < 1.45


def test_raid10_is_best_for_random_reads(means) -> None:
    # RAID 10 on two ranks (16 drives) against RAID 5/6 on four (32). One cell gives way, as
    # on the model alone (test_sim_layouts): host-striped 32k reads, which the 16 KiB stripe
    # cuts into two pieces on two LUNs, so each of RAID 10's two ranks positions once per
    # read as RAID 5's do, with half the drives; there RAID 10 keeps over 0.8 of the best.
    for layout in LAYOUTS:
        for bs in (4, 8, 16, 32, 64, 128, 256):
            r10 = means[("raid10", layout, "randread", bs * KIB)]
            others = max(means[(r, layout, "randread", bs * KIB)] for r in ("raid5", "raid6"))
            if (layout, bs) == ("host_stripe", 32):
                assert r10 > 0.8 * others, (layout, bs, r10 / others)
            else:
                assert r10 > others, (layout, bs, r10 / others)


def test_single_rank_is_far_worse_for_random_writes(means) -> None:
    # Block sizes the 16 KiB host stripe does not split: one rank's 8 drives destage
    # what four ranks' 32 drives share.
    for raid in LEVELS:
        for bs in (4, 8, 16):
            single = means[(raid, "single_rank", "randwrite", bs * KIB)]
            for layout in ("host_stripe", "pool_stripe"):
                assert single < 0.6 * means[(raid, layout, "randwrite", bs * KIB)]


def test_random_write_order_is_raid10_raid5_raid6(means) -> None:
    for layout in LAYOUTS:
        for bs in (4, 8, 16, 32, 64, 128, 256):
            r10, r5, r6 = (
                means[(r, layout, "randwrite", bs * KIB)] for r in ("raid10", "raid5", "raid6")
            )
            assert r10 > r5 > r6, (layout, bs)


def test_raid6s_write_penalty_shows_mostly_with_pool_striping(study) -> None:
    # One server's device adapter computes P and Q for all four of a pool's ranks. The
    # repetitions after the first: the first random-write run after the read cells starts
    # with the write cache the reads left clean and is served from it for its first seconds.
    _, runs = study
    steady = runs[(runs["pattern"] == "randwrite") & (runs["repetition"] > 1)]
    means = steady.groupby(["raid_level", "layout", "block_size"])["iops"].mean()
    # Each mean is of two runs with 2.5% noise: lower at every block size, and by more
    # than a tenth over the study's block sizes.
    gaps = []
    for bs in (4, 8, 16, 32, 64, 128, 256):
        ratio = {
            layout: means[("raid6", layout, bs * KIB)] / means[("raid5", layout, bs * KIB)]
            for layout in LAYOUTS
        }
        others = min(ratio["single_rank"], ratio["host_stripe"])
        assert ratio["pool_stripe"] < others, (bs, ratio)
        gaps.append(ratio["pool_stripe"] / others)
    assert sum(gaps) / len(gaps) < 0.9, gaps


@pytest.mark.parametrize(
    ("redo_class", "data_class"),
    [
        ("study_redo_log", "study_data_file"),  # the workloads as the study measured them
        ("study_redo_log_reasons", "study_data_file_reasons"),  # by its stated reasons only
    ],
)
def test_recommendations_follow_the_study(study, redo_class: str, data_class: str) -> None:
    """Redo logs (write-latency bound) → RAID 10 with pool striping, alone at rank 1; data
    files (random-read bound) → RAID 10 ranks with host LVM striping, the pick. By the study's
    stated reasons it is alone at rank 1; with the study's measured 4:1 mix, RAID 5 and 6
    host stripes on twice the drives come within its interval and share rank 1."""
    store, _ = study
    ranked, _ = load_rankings(store, store.get_sweep("ds8800-study"))
    best = {c: ranked[(ranked["class"] == c) & (ranked["rank"] == 1)] for c in ranked["class"]}
    redo = list(best[redo_class]["config_key"])
    data = list(best[data_class]["config_key"])
    assert redo == ["raid10/pool_stripe/ranks2/stripe1g/wb-ra"]
    pick = ranked[ranked["class"] == data_class].iloc[0]["config_key"]
    assert pick == "raid10/host_stripe/ranks2/stripe16k/wb-ra"
    if data_class.endswith("_reasons"):
        assert data == [pick]
    else:
        assert all("/host_stripe/" in k for k in data), data


def test_pool_striping_is_weaker_for_sequential_and_random_reads(means) -> None:
    for raid in LEVELS:
        for bs in (4, 8, 16):  # below the host stripe, where LVM does not split
            for pattern in ("read", "write", "randread"):
                pool = means[(raid, "pool_stripe", pattern, bs * KIB)]
                assert pool < 0.9 * means[(raid, "host_stripe", pattern, bs * KIB)]
            seq_pool = means[(raid, "pool_stripe", "read", bs * KIB)]
            assert seq_pool < 0.75 * means[(raid, "single_rank", "read", bs * KIB)]


def _predict(profile, state: ArrayState, rw: str, bs: int) -> float:
    read = 1.0 if rw in ("read", "randread") else 0.0
    return predict(profile, state, Job(rw, read, bs, 1, 20, "sync", 300, 6, 360 * 1024**3)).iops


def test_pool_weakness_is_the_named_mechanisms_not_a_special_case() -> None:
    """Take away the two mechanisms in the profile and pool striping catches up."""
    profile = load_profile("ds8800-like")
    symmetric = profile.model_copy(
        update={
            "affinity": profile.affinity.model_copy(update={"pool_stripe": "all"}),
            "pool": profile.pool.model_copy(
                update={"extent_map_us": 0.0, "path_mib_s": None, "stage_us": 0.0}
            ),
        }
    )
    pool = ArrayState("raid10", "pool_stripe", 4, 1024**2, "wb-ra")
    host = ArrayState("raid10", "host_stripe", 4, 16, "wb-ra")
    for rw in ("read", "randread"):
        gap = _predict(profile, pool, rw, 8 * KIB) / _predict(profile, host, rw, 8 * KIB)
        closed = _predict(symmetric, pool, rw, 8 * KIB) / _predict(symmetric, host, rw, 8 * KIB)
        assert gap < 0.9 and closed > 0.97, (rw, gap, closed)


def test_allflash_curve_has_flat_latency_a_knee_and_saturation() -> None:
    profile = load_profile("allflash-nvme")
    state = ArrayState("raid6", "pool_stripe", 4, 16384, "wb-ra")
    workers = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    points = [
        predict(profile, state, Job("randread", 1.0, 8192, 1, n, "sync", 300, 30, 30 * 10**12))
        for n in workers
    ]
    iops = [p.iops for p in points]
    lat = [p.read_lat_s for p in points]
    # Speed: one worker; flat latency while the controllers have headroom
    assert all(x < 1.1 * lat[0] for x in lat[: workers.index(32) + 1])
    # Optimum: the last point where throughput still rises faster than latency
    knee = max(i for i in range(1, len(workers)) if iops[i] / iops[i - 1] > lat[i] / lat[i - 1])
    assert 32 <= workers[knee] <= 256
    # Maximum: saturation; beyond it only latency grows (Little's law)
    assert iops[-1] / iops[-2] < 1.02
    assert lat[-1] > 4 * lat[0]
    assert iops == sorted(iops)


def test_hybrid_drops_when_the_working_set_leaves_the_cache_tier() -> None:
    profile = load_profile("hybrid-hci")
    tier = profile.cache.flash_tier
    assert tier is not None
    state = ArrayState("raid1", "pool_stripe", 4, 4096, "wb-ra")
    read_tier = tier.capacity_gib * (1 - tier.write_share) * profile.cache.efficiency

    def iops(gib: float) -> float:
        job = Job("randread", 1.0, 4096, 16, 4, "libaio", 1800, 60, int(gib * 1024**3))
        return predict(profile, state, job).iops

    fits, spills = iops(0.8 * read_tier), iops(1.5 * read_tier)
    assert fits > 10 * spills
    assert iops(0.4 * read_tier) / fits < 1.1  # inside the tier, size hardly matters


def test_model_disclosure_is_stored_with_the_run(study) -> None:
    """Each run says which mechanisms decided it: a pool volume has one controller."""
    store, _ = study
    runs = store.runs("ds8800-study", config_key="raid10/pool_stripe/ranks2/stripe1g/wb-ra")
    detail = store.run_detail(runs.iloc[0]["run_id"])
    assert detail is not None
    assert json.loads(detail["disclosure"])["model"]["controllers"] == 1
    host = store.runs("ds8800-study", config_key="raid10/host_stripe/ranks2/stripe16k/wb-ra")
    detail = store.run_detail(host.iloc[0]["run_id"])
    assert detail is not None
    assert json.loads(detail["disclosure"])["model"]["controllers"] == 2
