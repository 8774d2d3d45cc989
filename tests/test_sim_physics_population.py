"""Large populations (thousands of I/Os in flight) are solved quickly, and their answer
agrees with exact MVA's."""

from __future__ import annotations

import time

import pytest

from sweeper.sim import ArrayState, Job, load_profile, network, predict
from sweeper.sim.model import _predict_once

GIB = 1024**3


def test_thousands_of_ios_in_flight_take_well_under_a_second() -> None:
    ds = load_profile("ds8800-like")
    state = ArrayState("raid5", "single_rank", 1, None, "wb-ra")
    start = time.perf_counter()
    predict(ds, state, Job("randread", 1.0, 4096, 4096, 256, "libaio", 300, 5, 100 * GIB))
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("rw,fr", [("randread", 1.0), ("randrw", 0.7), ("randwrite", 0.0)])
def test_the_large_population_answer_agrees_with_exact_mva(monkeypatch, rw: str, fr: float) -> None:
    ds = load_profile("ds8800-like")
    state = ArrayState("raid10", "pool_stripe", 2, 1024**2, "wt-nora")
    job = Job(rw, fr, 8192, 1500, 1, "libaio", 300, 5, 100 * GIB)
    _predict_once.cache_clear()
    fast = predict(ds, state, job)
    monkeypatch.setattr(network, "EXACT_POPULATION", 10**6)
    _predict_once.cache_clear()
    exact = predict(ds, state, job)
    _predict_once.cache_clear()
    # Schweitzer is within 0.1% of exact MVA here; the drives' queue, solved to a fixed
    # point within 2%, can carry that to about 1%
    assert fast.iops == pytest.approx(exact.iops, rel=0.015)
    if fr > 0:
        assert fast.read_lat_s == pytest.approx(exact.read_lat_s, rel=0.015)
    if fr < 1:
        assert fast.write_lat_s == pytest.approx(exact.write_lat_s, rel=0.015)
