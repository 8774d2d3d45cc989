"""What ``raidsweep capture`` costs the host it watches: its own CPU and the workload's IOPS.

One loop device under a steady fio job (8k random 70/30, libaio, queue depth 4, direct I/O),
run bare and while ``raidsweep capture`` records it, with counters alone (``--trace off``)
and with the kernel's block tracer (``--trace on``). Prints, per mode, the capture's CPU time
as a share of one core (from the capture's own end record: its process time, threads
included) and fio's IOPS against the bare run. Goals: counters alone < 1% of a core and
≥ 0.97 of the bare IOPS; the tracer has no goal (its cost grows with the request rate and is
printed per 10,000 requests/s so that it can be weighed before using it on production).

Run as root from the repository: .venv/bin/python benchmarks/capture_overhead.py [seconds] [rounds]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAIDSWEEP = ROOT / ".venv" / "bin" / "raidsweep"
JOB = [
    "--name=load",
    "--rw=randrw",
    "--rwmixread=70",
    "--bs=8k",
    "--ioengine=libaio",
    "--iodepth=4",
    "--direct=1",
    "--size=192m",
    "--time_based",
]
CPU_GOAL_PCT, IOPS_GOAL = 1.0, 0.97


def fio(device: str, seconds: int) -> float:
    out = subprocess.run(
        ["fio", "--output-format=json", f"--runtime={seconds}", f"--filename={device}", *JOB],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    job = json.loads(out)["jobs"][0]
    return job["read"]["iops"] + job["write"]["iops"]


def captured(device: str, seconds: int, trace: str, folder: Path) -> tuple[float, dict]:
    output = folder / f"capture-{trace}.jsonl"
    proc = subprocess.Popen(
        [
            str(RAIDSWEEP),
            "capture",
            "-d",
            device,
            "-o",
            str(output),
            "--duration",
            f"{seconds + 3}s",
            "--trace",
            trace,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    iops = fio(device, seconds)
    _, errors = proc.communicate(timeout=seconds + 60)
    if proc.returncode:
        sys.exit(f"raidsweep capture failed: {errors}")
    end = json.loads(output.read_text().splitlines()[-1])["end"]
    return iops, end


def main() -> None:
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        image = folder / "img"
        with open(image, "wb") as fh:
            fh.truncate(256 * 1024**2)
        device = subprocess.run(
            ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
        ).stdout.strip()
        ratios: dict[str, list[float]] = {"off": [], "on": []}
        cpus: dict[str, list[float]] = {"off": [], "on": []}
        ends: dict[str, dict] = {}
        try:
            for _ in range(rounds):  # interleaved, so that the machine's other load hits all
                for mode in ("off", "on"):
                    bare = fio(device, seconds)
                    iops, ends[mode] = captured(device, seconds, mode, folder)
                    (folder / f"capture-{mode}.jsonl").unlink()
                    ratios[mode].append(iops / bare)
                    cpus[mode].append(100 * ends[mode]["cpu_s"] / ends[mode]["wall_s"])
        finally:
            subprocess.run(["losetup", "-d", device], check=False)
    print(
        f"fio 8k random 70/30 qd4 on a loop device, {seconds} s per run, {rounds} rounds "
        f"(each capture against a bare run just before it; medians); bare: {bare:,.0f} IOPS"
    )
    for mode in ("off", "on"):
        cpu_pct, ratio = statistics.median(cpus[mode]), statistics.median(ratios[mode])
        end = ends[mode]
        name = "counters alone (--trace off)" if mode == "off" else "block tracer (--trace on)"
        line = (
            f"{name}: capture CPU {cpu_pct:.2f}% of one core, fio at {ratio:.3f} of its bare IOPS"
        )
        if mode == "off":
            cpu_ok, iops_ok = cpu_pct < CPU_GOAL_PCT, ratio >= IOPS_GOAL
            line += (
                f"; goals < {CPU_GOAL_PCT:g}% ({'met' if cpu_ok else 'MISSED'}), "
                f"≥ {IOPS_GOAL} of bare ({'met' if iops_ok else 'MISSED'})"
            )
        else:
            line += (
                f"; {cpu_pct / (bare * ratio / 10_000):.1f}% of a core per 10,000 requests/s, "
                f"events lost by the kernel: {end['trace_lost']:,}"
            )
        print(line)


if __name__ == "__main__":
    main()
