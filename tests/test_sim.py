"""The simulated array's first model: tells RAID levels, layouts, block sizes, concurrency apart."""

from __future__ import annotations

import json

import pytest

from sweeper.configuration import Configuration
from sweeper.errors import InputError
from sweeper.fio import parse_fio_output, render_job
from sweeper.load.sim import job_from_options, read_job_file
from sweeper.platforms.sim import SimPlatform
from sweeper.sim import ArrayState, Job, load_profile, predict, simulate_fio
from sweeper.sim.profile import list_profiles
from sweeper.workload import WorkloadCell

PROFILE = load_profile("ds8800-like")
GIB = 1024**3


def state(raid: str = "raid10", layout: str = "single_rank", cache: str = "wb-ra") -> ArrayState:
    multi = layout != "single_rank"
    stripe = (16 if layout == "host_stripe" else 1024**2) if multi else None
    return ArrayState(raid, layout, 4 if multi else 1, stripe, cache)


def job(rw: str = "randread", bs: int = 8192, jobs: int = 16, read: float | None = None) -> Job:
    frac = read if read is not None else (1.0 if rw in ("read", "randread") else 0.0)
    return Job(rw, frac, bs, 1, jobs, "psync", 60, 5, 360 * GIB)


def iops(s: ArrayState, j: Job) -> float:
    return predict(PROFILE, s, j).iops


def test_write_penalty_orders_raid_levels_for_random_writes() -> None:
    j = job("randwrite")
    for cache in ("wb-ra", "wt-ra"):
        r10, r5, r6 = (
            iops(state(r, "host_stripe", cache), j) for r in ("raid10", "raid5", "raid6")
        )
        assert r10 > r5 > r6
    # Write-through shows the bare penalty: RAID 5 and 6 read and rewrite 2 and 3 drives in
    # place (a positioning and a rotation each), RAID 10 writes 2 (a positioning each): the
    # rotation makes a parity write cost more than twice a mirrored one.
    r10, r5, r6 = (iops(state(r, "host_stripe", "wt-ra"), j) for r in ("raid10", "raid5", "raid6"))
    assert 2.2 < r10 / r5 < 3.5
    assert r5 / r6 == pytest.approx(1.5, rel=0.15)


def test_more_ranks_serve_more_random_io() -> None:
    j = job("randwrite")
    assert iops(state("raid5", "host_stripe"), j) > 3 * iops(state("raid5", "single_rank"), j)


def test_mirrored_reads_are_faster() -> None:
    j = job("randread")
    assert iops(state("raid10", "host_stripe"), j) > iops(state("raid5", "host_stripe"), j)


def test_pool_affinity_serves_random_reads_from_one_controller() -> None:
    j = job("randread")
    assert iops(state("raid10", "host_stripe"), j) > iops(state("raid10", "pool_stripe"), j)


def test_block_size_trades_iops_for_bandwidth() -> None:
    small, large = job("read", 4096), job("read", 262144)
    s = state("raid5", "host_stripe")
    assert iops(s, small) > iops(s, large)
    assert iops(s, large) * 262144 > iops(s, small) * 4096


def test_latency_grows_with_queueing() -> None:
    s = state("raid5", "single_rank")
    lat = [predict(PROFILE, s, job("randread", jobs=n)).read_lat_s for n in (1, 4, 16, 64)]
    assert lat == sorted(lat) and lat[-1] > 2 * lat[0]
    tput = [iops(s, job("randread", jobs=n)) for n in (1, 4, 16, 64)]
    assert tput == sorted(tput)


def test_write_back_hides_latency_write_through_does_not() -> None:
    j = job("randwrite", jobs=1)
    wb = predict(PROFILE, state("raid10", "host_stripe", "wb-ra"), j).write_lat_s
    wt = predict(PROFILE, state("raid10", "host_stripe", "wt-ra"), j).write_lat_s
    assert wt > 3 * wb


def fio_output(rep: int, seed: int = 1) -> dict:
    return simulate_fio(
        PROFILE,
        state(),
        job(),
        job_name="t",
        job_options={"rw": "randread"},
        global_options={},
        seed=(seed, "k", "c", rep),
        timestamp=0,
    )


def test_deterministic_for_a_seed_with_noise_between_repetitions() -> None:
    a, b = fio_output(1), fio_output(1)
    assert a == b
    values = {fio_output(rep)["jobs"][0]["read"]["iops"] for rep in range(1, 6)}
    assert len(values) == 5
    spread = (max(values) - min(values)) / min(values)
    assert 0.005 < spread < 0.25


def test_output_is_fio_json_the_parser_reads() -> None:
    out = fio_output(1)
    parsed = parse_fio_output(json.dumps(out))
    assert parsed.write is None
    assert parsed.read is not None
    assert parsed.read.iops == pytest.approx(out["jobs"][0]["read"]["iops"])
    assert parsed.read.lat_p50_ms < parsed.read.lat_p99_ms < parsed.read.lat_p999_ms


def test_the_job_file_is_what_the_model_reads() -> None:
    cell = WorkloadCell.parse("randrw70/16k/qd4x8")
    text = render_job(cell, filename="/dev/x", engine="libaio", runtime_s=30, ramp_s=5, size=GIB)
    glob, opts, name = read_job_file(text)
    j = job_from_options(glob | opts, 0)
    assert (j.rw, j.read_fraction, j.block_size, j.iodepth, j.numjobs) == (
        "randrw",
        0.7,
        16384,
        4,
        8,
    )
    assert (j.engine, j.runtime_s, j.ramp_s, j.working_set) == ("libaio", 30, 5, GIB)


def test_platform_limits_ranks_by_profile() -> None:
    assert PROFILE.max_ranks("raid10") == 10
    too_many = Configuration("raid10", "host_stripe", "wb-ra", 12, 16)
    (problem,) = SimPlatform.configuration_problems(too_many, {})
    assert "12 ranks of raid10 exceed the 10" in problem


def test_reconfiguration_time_reflects_what_changes(tmp_path) -> None:
    p = SimPlatform({}, tmp_path)
    a = Configuration("raid5", "single_rank", "wb-ra")
    b = Configuration("raid5", "single_rank", "wt-ra")
    c = Configuration("raid10", "single_rank", "wb-ra")
    assert p.reconfiguration_time(a, b) < p.reconfiguration_time(a, c)
    assert p.reconfiguration_time(None, a) == p.reconfiguration_time(a, c)


def test_bad_profile_names_its_place(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((PROFILE_TEXT := open(_profile_path()).read()).replace("count: 80", "count: -1"))
    assert PROFILE_TEXT
    with pytest.raises(InputError) as info:
        load_profile(str(bad))
    assert any("drives.count" in p for p in info.value.problems)


def _profile_path():
    from sweeper.sim.profile import PROFILE_DIR

    return PROFILE_DIR / "ds8800-like.yaml"


def test_a_failed_drive_slows_random_reads_and_a_rebuild_more() -> None:
    j = job("randread", jobs=32)
    base = state("raid5", "host_stripe")
    optimal = iops(base, j)
    degraded = iops(ArrayState(**{**base.__dict__, "health": "degraded"}), j)
    rebuilding = iops(ArrayState(**{**base.__dict__, "health": "rebuilding"}), j)
    assert optimal > degraded > rebuilding


def test_snapshots_cost_first_writes_and_fade_with_long_runs() -> None:
    s = state("raid5", "pool_stripe", "wt-ra")
    snap = ArrayState(**{**s.__dict__, "snapshots": True})
    short = Job("randwrite", 0.0, 8192, 1, 16, "psync", 60, 5, 8 * GIB)
    long = Job("randwrite", 0.0, 8192, 1, 16, "psync", 7200, 5, 8 * GIB)
    assert iops(snap, short) < 0.8 * iops(s, short)
    assert iops(snap, long) / iops(s, long) > iops(snap, short) / iops(s, short)


def test_data_reduction_costs_controller_time_on_writes() -> None:
    flash = load_profile("allflash-nvme")
    s = ArrayState("raid6", "pool_stripe", 4, 16384, "wb-ra")
    dr = ArrayState(**{**s.__dict__, "data_reduction": True})
    j = Job("randwrite", 0.0, 32768, 32, 8, "libaio", 60, 5, 10 * 10**12)
    plain, reduced = predict(flash, s, j), predict(flash, dr, j)
    assert reduced.iops < plain.iops and reduced.write_lat_s > plain.write_lat_s


def test_latency_percentiles_come_from_the_mixture() -> None:
    # 8k random reads with a 32% hit ratio: p50 lies among misses, p1 among hits.
    out = simulate_fio(
        PROFILE,
        state("raid5", "host_stripe"),
        job("randread", jobs=20),
        job_name="t",
        job_options={},
        global_options={},
        seed=(1,),
        timestamp=0,
    )
    pct = {float(k): v for k, v in out["jobs"][0]["read"]["clat_ns"]["percentile"].items()}
    assert pct[1.0] < 1_000_000 < pct[50.0] < pct[99.0] < pct[99.9] < pct[99.99]


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        ("raid10: {data: 4, redundancy: 4}", "raid10: {data: 4, redundancy: 3}"),
        ("raid5: {data: 7, redundancy: 1}", "raid5: {data: 8, redundancy: 1}"),
        ("rpm: 10000", "rpm: null"),
        ("extent_kib: [16384, 1048576]", "extent_kib: [16384, 1000]"),
    ],
)
def test_an_inconsistent_profile_is_rejected_with_its_place(tmp_path, edit, problem) -> None:
    text = _profile_path().read_text()
    assert edit in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(edit, problem))
    with pytest.raises(InputError) as info:
        load_profile(str(bad))
    rendered = info.value.render()
    place = {"raid10": "raid_groups", "raid5": "raid_groups", "rpm": "drives", "extent": "pool"}
    assert place[edit.split(":")[0].split("_")[0]] in rendered
    assert any(
        w in rendered for w in ("odd", "even group width", "do not fit", "rpm", "power of two")
    )


def test_a_stripe_larger_than_the_extent_is_rejected(tmp_path, monkeypatch) -> None:
    small = PROFILE.model_copy(
        update={"pool": PROFILE.pool.model_copy(update={"extent_kib": [1024]})}
    )
    monkeypatch.setattr("sweeper.platforms.sim._profile", lambda options: small)
    config = Configuration("raid5", "pool_stripe", "wb-ra", 4, 1024)
    (problem,) = SimPlatform.configuration_problems(config, {})
    assert problem == "a raid5 stripe of 1792 KiB is larger than the 1024 KiB extent"


@pytest.mark.parametrize("profile_name", list_profiles())
def test_every_profile_answers_writes_with_snapshots_and_data_reduction(
    profile_name: str,
) -> None:
    """Writes whose back end takes nothing more to destage (a snapshot's redirect, data
    reduction) leave the write cache filling at rate 0: it never fills, no division by 0."""
    profile = load_profile(profile_name)
    for level in profile.raid_groups:
        for snapshots, reduction in ((True, False), (False, True), (True, True)):
            if (snapshots and profile.snapshots is None) or (
                reduction and profile.data_reduction is None
            ):
                continue
            state = ArrayState(level, "single_rank", 1, None, "wb-ra", snapshots, reduction)
            for rw in ("randwrite", "write"):
                job = Job(rw, 0.0, 4096, 16, 1, "libaio", 30.0, 0.0, 100 * 1024**3)
                p = predict(profile, state, job)
                assert p.phases and all(ph.iops > 0 for ph in p.phases)
