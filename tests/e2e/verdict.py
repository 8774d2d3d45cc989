"""A sweep on the simulated array built so that its decision has a tie and a limit breach:
RAID 5 and RAID 6, each with the write cache on and off, ranked by one class that scores
random 8k reads at one I/O in flight (where RAID level and write cache change nothing, so the
configurations tie) and bounds the p99 write latency of random 8k writes at 20 ms (which only
a write cache keeps: write-through breaks it). The tie is broken by data-loss risk first, so
RAID 6 is recommended over a RAID 5 that may have the higher mean score."""

from __future__ import annotations

from pathlib import Path

import yaml

from sweeper.store import ParquetStore
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import sweep

SWEEP = "verdict"
CLASS = "tied_reads"
TIE_BREAK = ["loss_risk", "usable_capacity", "cost"]
LIMITED_CELL = "randwrite/8k/qd1x1"


def verdict_store(folder: Path) -> ParquetStore:
    """The sweep run to its end into ``folder/store`` (about ten seconds); its store."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = quick_base() | {"name": SWEEP, "description": "a tie and a limit breach"}
    spec["config_space"] = {
        "raid_level": ["raid5", "raid6"],
        "layout": ["single_rank", "host_stripe"],
        "ranks": [2],
        "stripe_kib": [64],
        "cache_policy": ["wb-ra", "wt-ra"],
    }
    spec["matrix"] |= {
        "patterns": ["randread", "randwrite"],
        "block_sizes": ["8k", "64k"],
        "concurrency": ["1x1", "1x16"],
        "repetitions": 3,
    }
    spec["prices"] = {"per_drive": 450, "fixed": 60000, "currency": "USD"}
    wclass = {
        "name": CLASS,
        "description": "random reads at one I/O in flight, random writes within 20 ms",
        "metric": "iops",
        # The write cell weighs almost nothing in the score: it is there for its limit.
        "cells": [
            {"cell": "randread/8k/qd1x1", "weight": 1},
            {"cell": LIMITED_CELL, "weight": 0.001},
        ],
        "limits": [{"metric": "write_lat_p99", "max": "20ms", "cells": [LIMITED_CELL]}],
        "tie_break": TIE_BREAK,
    }
    path = folder / f"{CLASS}.yaml"
    path.write_text(yaml.safe_dump(wclass, sort_keys=False))
    spec["classes"] = [str(path), "redo_log"]
    store, outcome = sweep(write_spec(folder, spec, SWEEP), folder / "store")
    assert outcome.complete
    return store
