"""What ``raidsweep capture`` costs the host it watches: its own CPU and the workload's IOPS.

One loop device under a steady fio job (8k random 70/30, libaio, queue depth 4, direct I/O),
run bare and while ``raidsweep capture`` records it, with counters alone (``--trace off``)
and with the kernel's block tracer (``--trace on``). Prints, per mode, the capture's CPU time
as a share of one core (from the capture's own end record: its process time, threads
included) and fio's IOPS against the bare run. Goals: counters alone < 1% of a core and
≥ 0.97 of the bare IOPS. The tracer's cost grows with the request rate (printed per 10,000
requests/s so that it can be weighed before using it on production); its goal is to keep up
with an OLTP-class device: no event lost with fio held at 30,000 requests/s (unthrottled,
a loop device may go faster than the reader, and the kernel then drops what it cannot hold).

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
#: the request rate at which the tracer must lose no event (70% reads, 30% writes)
TRACE_RATE = 30_000
MODES = {
    "off": "counters alone (--trace off)",
    "on": "block tracer (--trace on)",
    "held": f"block tracer at {TRACE_RATE:,} requests/s",
}


def fio(device: str, seconds: int, held: bool = False) -> float:
    rate = [f"--rate_iops={TRACE_RATE * 7 // 10},{TRACE_RATE * 3 // 10}"] if held else []
    out = subprocess.run(
        ["fio", "--output-format=json", f"--runtime={seconds}", f"--filename={device}", *JOB]
        + rate,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    job = json.loads(out)["jobs"][0]
    return job["read"]["iops"] + job["write"]["iops"]


def captured(
    device: str, seconds: int, trace: str, folder: Path, held: bool = False
) -> tuple[float, dict]:
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
    iops = fio(device, seconds, held)
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
        ratios: dict[str, list[float]] = {mode: [] for mode in MODES}
        cpus: dict[str, list[float]] = {mode: [] for mode in MODES}
        lost: dict[str, list[int]] = {mode: [] for mode in MODES}
        rates: list[float] = []
        try:
            for _ in range(rounds):  # interleaved, so that the machine's other load hits all
                for mode in MODES:
                    held = mode == "held"
                    bare = fio(device, seconds, held)
                    trace = "off" if mode == "off" else "on"
                    iops, end = captured(device, seconds, trace, folder, held)
                    (folder / f"capture-{trace}.jsonl").unlink()
                    ratios[mode].append(iops / bare)
                    cpus[mode].append(100 * end["cpu_s"] / end["wall_s"])
                    lost[mode].append(end["trace_lost"] or 0)
                    if mode == "on":
                        rates.append(iops)
        finally:
            subprocess.run(["losetup", "-d", device], check=False)
    print(
        f"fio 8k random 70/30 qd4 on a loop device, {seconds} s per run, {rounds} rounds "
        "(each capture against a bare run just before it; medians); unthrottled it ran "
        f"{statistics.median(rates):,.0f} IOPS while traced"
    )
    for mode, name in MODES.items():
        cpu_pct, ratio = statistics.median(cpus[mode]), statistics.median(ratios[mode])
        line = f"{name}: capture CPU {cpu_pct:.2f}% of one core, fio at {ratio:.3f} of bare"
        if mode == "off":
            cpu_ok, iops_ok = cpu_pct < CPU_GOAL_PCT, ratio >= IOPS_GOAL
            line += (
                f"; goals < {CPU_GOAL_PCT:g}% ({'met' if cpu_ok else 'MISSED'}), "
                f"≥ {IOPS_GOAL} of bare ({'met' if iops_ok else 'MISSED'})"
            )
        elif mode == "on":
            line += f"; events lost by the kernel: {max(lost[mode]):,} (the most in a round)"
        else:
            per = cpu_pct / (TRACE_RATE / 10_000)
            worst = max(lost[mode])
            line += (
                f"; {per:.1f}% of a core per 10,000 requests/s; events lost: {worst:,} "
                f"(the most in a round); goal 0 ({'met' if worst == 0 else 'MISSED'})"
            )
        print(line)


if __name__ == "__main__":
    main()
