"""The simulated array as the load: what it reads from the job file (working set, sync,
skew, data) and the write cache it carries from one run of a configuration to the next."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sweeper.configuration import Configuration
from sweeper.fio import parse_fio_output, render_job
from sweeper.load.sim import SimDriver, job_from_options, read_job_file
from sweeper.sim import ArrayState, Job, load_profile, predict
from sweeper.sim.geometry import reduction_ratio
from sweeper.sim.skew import hot_share
from sweeper.spec import load_spec
from sweeper.workload import WorkloadCell
from tests.support.paths import ROOT

PROFILE = load_profile("ds8800-like")
GIB = 1024**3
POOL = {"raid_level": "raid10", "layout": "pool_stripe", "ranks": 4, "stripe_kib": 1024**2}


def driver(params: dict[str, Any] | None = None) -> SimDriver:
    """A driver for one configuration, as the platform makes one after each reconfiguration."""
    config = Configuration.from_params((params or POOL) | {"cache_policy": "wb-ra"})
    raw = config.params() | {"health": "optimal"}
    state = ArrayState(
        config.raid_level,
        config.layout,
        config.ranks or 1,
        config.stripe_kib,
        config.cache_policy,
    )
    matrix = load_spec(ROOT / "examples" / "ds8800-study.yaml")[0].matrix
    d = SimDriver(PROFILE, matrix, 7, lambda: (raw, state))
    d.prepare()
    return d


def run(d: SimDriver, cell: str, repetition: int = 1) -> tuple[float, dict[str, Any]]:
    out = d.run(WorkloadCell.parse(cell), repetition)
    result = parse_fio_output(out.stdout)
    assert out.model is not None
    total = sum(d.iops for d in (result.read, result.write) if d is not None)
    return total, out.model


def job_of(cell: str, size: int = 360 * GIB) -> Job:
    cells = WorkloadCell.parse(cell)
    text = render_job(cells, filename="/dev/x", engine="sync", runtime_s=300, ramp_s=6, size=size)
    glob, opts, _ = read_job_file(text)
    return job_from_options(glob | opts, size)


def test_the_write_cache_is_as_the_run_before_left_it() -> None:
    d = driver()
    first, model = run(d, "randwrite/4k/qd1x20")
    # The cell before it in the matrix reads: five minutes of reads destage everything.
    assert model["write_cache_dirty_at_start"] == 0
    again, model2 = run(d, "randwrite/4k/qd1x20", 2)
    assert model2["write_cache_dirty_at_start"] == model["write_cache_dirty_at_end"] == 1.0
    assert first > 1.1 * again  # the second run cannot borrow an empty cache
    # Deterministic from the run order alone: a fresh driver (a resumed sweep) answers each
    # repetition as the uninterrupted sweep did.
    assert run(driver(), "randwrite/4k/qd1x20", 2)[0] == pytest.approx(again)
    assert run(driver(), "randwrite/4k/qd1x20")[0] == pytest.approx(first)


def test_its_output_says_a_model_wrote_it() -> None:
    # fio's format, read by fio's parser, but no fio ran: the version names the model.
    out = driver().run(WorkloadCell.parse("randread/8k/qd1x20"), 1)
    version = parse_fio_output(out.stdout).fio_version
    assert version == f"fio-3.33 (simulated by raidsweep, profile {PROFILE.name})"


def test_each_rank_holds_at_most_its_share_of_a_servers_write_cache() -> None:
    """NVS per rank: one rank may hold a quarter of its server's 2 GiB dirty."""
    caches = {}
    for layout in ("single_rank", "host_stripe", "pool_stripe"):
        params = POOL | {"layout": layout}
        if layout == "single_rank":
            params = {"raid_level": "raid10", "layout": layout}
        elif layout == "host_stripe":
            params |= {"stripe_kib": 16}
        caches[layout] = run(driver(params), "randwrite/8k/qd1x20")[1]["write_cache_gib"]
    assert caches == {"single_rank": 0.5, "host_stripe": 2.0, "pool_stripe": 2.0}


def test_sequential_streams_with_their_own_regions_span_the_whole_working_set() -> None:
    assert job_of("write/64k/qd1x20").working_set == pytest.approx(360 * GIB, rel=1e-4)
    assert job_of("randwrite/64k/qd1x20").working_set == 360 * GIB
    assert job_of("write/64k/qd1x1").working_set == 360 * GIB


def test_sync_writes_wait_for_a_flush_each() -> None:
    state = ArrayState("raid10", "pool_stripe", 4, 1024**2, "wb-ra")
    plain = job_of("write/4k/qd1x1")
    synced = job_of("write/4k/qd1x1/fdatasync")
    dsync = job_of("write/4k/qd1x1/dsync")
    assert (plain.sync, synced.sync, dsync.sync) == (None, "fdatasync", "dsync")
    a, b = predict(PROFILE, state, plain), predict(PROFILE, state, synced)
    assert b.iops < 0.8 * a.iops  # a flush round trip after every write
    assert b.write_lat_s == pytest.approx(a.write_lat_s, rel=0.05)  # not in the write's own
    # one I/O in flight: the cycle is the write and its flush
    assert 1 / b.iops == pytest.approx(b.write_lat_s + b.flush_s, rel=0.05)
    # O_DSYNC writes into a non-volatile write cache: committed on arrival
    assert predict(PROFILE, state, dsync).iops == pytest.approx(a.iops)
    d = driver()
    out = d.run(WorkloadCell.parse("write/4k/qd1x1/fdatasync"), 1)
    parsed = parse_fio_output(out.stdout)
    assert parsed.sync is not None and parsed.write is not None
    assert parsed.sync.count == json.loads(out.stdout)["jobs"][0]["write"]["total_ios"]
    assert parsed.sync.lat_mean_ms == pytest.approx(b.flush_s * 1000, rel=0.01)


@pytest.mark.parametrize("c", [0.0, 0.05, 0.3, 1.0])
def test_uniform_access_hits_the_cached_share(c: float) -> None:
    assert hot_share(None, c, 1e6) == c
    assert hot_share("pareto:0.5", c, 1e6) == pytest.approx(c)  # fio's pareto:0.5 is uniform


def test_skewed_access_raises_the_read_cache_hit_ratio() -> None:
    blocks = 360 * GIB / 8192
    assert hot_share("zipf:1.2", 0.1, blocks) > hot_share("zipf:0.8", 0.1, blocks) > 0.1
    assert hot_share("pareto:0.9", 0.1, blocks) == pytest.approx(0.9)  # fio's 90/10 rule
    assert hot_share("normal:20", 0.1, blocks) > 0.1
    state = ArrayState("raid10", "host_stripe", 4, 16, "wb-ra")
    uniform = predict(PROFILE, state, job_of("randread/8k/qd1x20"))
    zipf = predict(PROFILE, state, job_of("randread/8k/qd1x20/zipf1.2"))
    assert zipf.explain["read_hit"] > 0.9 > uniform.explain["read_hit"]
    assert zipf.iops > 3 * uniform.iops
    # and hot data rewritten in the write cache is destaged once
    assert predict(PROFILE, state, job_of("randwrite/8k/qd1x20/zipf1.2")).iops > 2 * (
        predict(PROFILE, state, job_of("randwrite/8k/qd1x20")).iops
    )


def test_the_data_profile_sets_the_reduction_ratio() -> None:
    assert reduction_ratio(3.0, job_of("randwrite/8k/qd1x20")) == 3.0  # the profile's data
    assert reduction_ratio(3.0, job_of("randwrite/8k/qd1x20/cmp50dd20")) == pytest.approx(2.5)
    assert reduction_ratio(3.0, job_of("randwrite/8k/qd1x20/cmp0dd0")) == 1.0
    assert reduction_ratio(3.0, job_of("randwrite/8k/qd1x20/cmp100dd0")) == 20.0
    flash = load_profile("allflash-nvme")
    assert flash.data_reduction is not None
    state = ArrayState("raid6", "pool_stripe", 4, 16384, "wb-ra", data_reduction=True)
    random_data = predict(flash, state, job_of("write/256k/qd1x20/cmp0dd0", 10**12))
    reducible = predict(flash, state, job_of("write/256k/qd1x20/cmp75dd50", 10**12))
    assert reducible.iops >= random_data.iops
    assert reducible.explain["reduction_ratio"] == 8.0
