"""The local telemetry sampler stays out of fio's way: its thread runs at nice 19 (the rest of
the sweeper's process at its own priority) and records the CPU time it used."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from sweeper.load.sampler import SAMPLER_NICE, Sampler


def test_the_sampler_thread_alone_runs_at_the_lowest_priority(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    target.write_bytes(b"\0" * 4096)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    sampler = Sampler(str(target), interval_s=0.05)
    sampler.start()
    try:
        deadline = time.monotonic() + 5
        while len(sampler.samples) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        (thread,) = [t for t in threading.enumerate() if t.name == "telemetry"]
        assert thread.native_id is not None
        assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == SAMPLER_NICE
        assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the caller's is unchanged
    finally:
        sampler.stop()
    record = sampler.record(None)
    assert record["samples"] >= 4
    # Reading two /proc files a few times costs milliseconds, not a share of a core.
    assert 0 <= record["sampler_cpu_s"] < 0.5
