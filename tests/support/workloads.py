"""Known workloads run with real fio on a block device while ``raidsweep capture`` records
it, and what fio says was run: the source of the capture fixtures and of the
characterisation test."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.cli import finish, start

#: phase 1: 8k random 70/30 at queue depth 4 beside a stream of 64k sequential writes. The
#: random job has no random map: with one, fio takes the next free block once a pass over the
#: region fills up, so a fast device sees a share of the "random" job as sequential runs.
#: In MIXED both are held to an OLTP device's rate (2,000 and 400 requests/s): unthrottled, a loop
#: device takes 80,000-150,000 requests/s, more than the block tracer's reader keeps up with on two
#: cores (about 70,000; when it lost events on a busy host, the mix came out wrong).
_RANDOM = [
    "--name=oltp",
    "--rw=randrw",
    "--rwmixread=70",
    "--bs=8k",
    "--ioengine=libaio",
    "--iodepth=4",
    "--size=96m",
    "--norandommap",
]
_STREAM = ["--name=log", "--rw=write", "--bs=64k", "--ioengine=psync", "--offset=128m"]
MIXED = [[*_RANDOM, "--rate_iops=1400,600"], [*_STREAM, "--size=96m", "--rate_iops=,400"]]
#: phase 1 without the stream, at the device's own pace (what counters alone can tell apart;
#: they cost nothing at any rate)
OLTP = [_RANDOM]
#: phase 2: 1m sequential reads
SCAN = [["--name=scan", "--rw=read", "--bs=1m", "--ioengine=psync", "--size=224m"]]


@dataclass(frozen=True)
class Run:
    """What fio ran: per job its read and write IOPS, per phase; and when phase 2 began."""

    phases: list[dict[str, tuple[float, float]]]
    change_t: float
    capture_output: str


def fio(device: str, jobs: list[list[str]], seconds: int) -> dict[str, tuple[float, float]]:
    args = ["fio", "--output-format=json", "--direct=1", "--time_based", f"--runtime={seconds}"]
    for job in jobs:
        args += [*job, f"--filename={device}"]
    doc = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return {j["jobname"]: (j["read"]["iops"], j["write"]["iops"]) for j in doc["jobs"]}


def two_phases(
    device: str, output: Path, first: list[list[str]], trace: str, seconds: int = 10
) -> Run:
    """``raidsweep capture`` of ``device`` into ``output`` while fio runs ``first``, then
    ``SCAN``, each for ``seconds``, with idle seconds around them."""
    proc = start(
        "capture",
        "-d",
        device,
        "-o",
        output,
        "--duration",
        f"{2 * seconds + 5}s",
        "--trace",
        trace,
    )
    time.sleep(1.5)
    one = fio(device, first, seconds)
    change = time.time()
    two = fio(device, SCAN, seconds)
    status, text = finish(proc)
    assert status == 0, text
    return Run([one, two], change, text)


def expected_mix(run: Run) -> tuple[float, dict[str, float]]:
    """Phase 1's read share of requests and each job's share of them."""
    jobs = run.phases[0]
    total = sum(r + w for r, w in jobs.values())
    reads = sum(r for r, _ in jobs.values())
    return reads / total, {name: (r + w) / total for name, (r, w) in jobs.items()}
