"""The reference study's recommendations (STUDIES.md §1) on the simulated array as the study
built it (RAID 10 on two sites: two ranks of 4+4, 16 drives), with the shipped study classes
and with the classes built from its stated reasons alone: redo logs → RAID 10 with pool
striping, data files → RAID 10 with host LVM striping.

Each class is scored as the recommender scores it (the weighted geometric mean of its cells'
IOPS, a configuration that breaks a limit ranked after those that keep it), on the model's
noise-free figures; the winner must lead by more than the run-to-run noise.
(tests/integration/test_sim_findings.py ranks a real sweep of examples/ds8800-study.yaml.)
"""

from __future__ import annotations

import math

import pytest

from recommender.classes import WorkloadClass, load_class
from sweeper.sim import ArrayState, Job, load_profile, predict
from sweeper.workload import WorkloadCell
from tests.support.paths import ROOT

PROFILE = load_profile("ds8800-like")
CLASSES = ROOT / "examples" / "classes"
RANKS = {"raid5": 4, "raid6": 4, "raid10": 2}
STRIPES = {"single_rank": None, "host_stripe": 16, "pool_stripe": 1024**2}
GIB = 1024**3


def _state(raid: str, layout: str) -> ArrayState:
    ranks = RANKS[raid] if STRIPES[layout] else 1
    return ArrayState(raid, layout, ranks, STRIPES[layout], "wb-ra")


def _cell(raid: str, layout: str, key: str) -> tuple[float, float, float]:
    """IOPS and mean read and write latency (ms) of one class cell, noise-free."""
    cell = WorkloadCell.parse(key)
    rw, pct = cell.pattern.rw, cell.pattern.read_pct
    read = pct / 100 if pct is not None else (1.0 if rw in ("read", "randread") else 0.0)
    jobs = cell.concurrency.numjobs
    job = Job(rw, read, cell.block_size, 1, jobs, "sync", 300, 6, 360 * GIB)
    p = predict(PROFILE, _state(raid, layout), job)
    return p.iops, p.read_lat_s * 1000, p.write_lat_s * 1000


def _scores(wclass: WorkloadClass) -> dict[tuple[str, str], tuple[bool, float]]:
    out = {}
    for raid in RANKS:
        for layout in STRIPES:
            logs, weights, keeps = 0.0, 0.0, True
            for c in wclass.cells:
                iops, read_ms, write_ms = _cell(raid, layout, c.cell)
                logs += c.weight * math.log(iops)
                weights += c.weight
                for lim in wclass.limits:
                    if lim.cells is None or c.cell in lim.cells:
                        value = read_ms if lim.direction == "read" else write_ms
                        keeps &= value <= lim.max_ms
            out[(raid, layout)] = (keeps, math.exp(logs / weights))
    return out


@pytest.mark.parametrize(
    ("name", "best"),
    [
        ("study_redo_log", ("raid10", "pool_stripe")),
        ("study_redo_log_reasons", ("raid10", "pool_stripe")),
        ("study_data_file", ("raid10", "host_stripe")),
        ("study_data_file_reasons", ("raid10", "host_stripe")),
    ],
)
def test_the_study_recommendation_leads_clearly(name: str, best: tuple[str, str]) -> None:
    scores = _scores(load_class(CLASSES / f"{name}.yaml"))
    ranked = sorted(scores, key=lambda k: scores[k], reverse=True)  # limit kept, then score
    assert ranked[0] == best, [(k, scores[k]) for k in ranked[:3]]
    assert scores[best][0], "the recommended configuration keeps the class's limit"
    runner_up = scores[ranked[1]][1]
    # ahead by more than the run-to-run noise (RAID 10 has half the drives of RAID 5/6)
    lead = 1 + 1.5 * PROFILE.noise_cv
    assert scores[best][1] > lead * runner_up, (ranked[1], scores[best][1] / runner_up)
