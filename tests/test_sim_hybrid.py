"""The hybrid array's flash tier (STUDIES.md §3) is sized from the profile's cache, not from
the working set: its write buffer fills only once the written data outgrows it, so a 70/30
mix never gets slower as the working set shrinks."""

from __future__ import annotations

from sweeper.sim import ArrayState, Job, Prediction, load_profile, predict

PROFILE = load_profile("hybrid-hci")
STATE = ArrayState("raid1", "pool_stripe", 4, 4096, "wb-ra")
GIB = 1024**3
SIZES_GIB = (50, 100, 200, 400, 800, 1200, 1600, 3000, 6000)


def _run(rw: str, read: float, gib: float) -> Prediction:
    return predict(PROFILE, STATE, Job(rw, read, 8192, 16, 4, "libaio", 1800, 60, int(gib * GIB)))


def test_a_mix_never_slows_down_as_its_working_set_shrinks() -> None:
    for rw, read in (("randrw", 0.7), ("randread", 1.0), ("randwrite", 0.0)):
        iops = [_run(rw, read, gib).iops for gib in SIZES_GIB]
        assert iops == sorted(iops, reverse=True), (rw, [round(x) for x in iops])


def test_the_write_buffer_fills_only_when_the_writes_outgrow_it() -> None:
    tier = PROFILE.cache.flash_tier
    assert tier is not None
    buffer_gib = tier.capacity_gib * tier.write_share
    for gib in SIZES_GIB:
        p = _run("randrw", 0.7, gib)
        assert p.explain["write_cache_gib"] == buffer_gib  # the profile's, whatever the data
        fills = p.explain.get("write_cache_full_after_s") is not None
        assert fills == (gib > buffer_gib), (gib, p.explain)
