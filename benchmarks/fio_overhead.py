"""raidsweep adds nothing to what fio measures: the same job, bare and through raidsweep.

Alternates rounds on one target (a zram device when this machine can make one, else a file):
bare fio on the job file raidsweep renders, then a raidsweep sweep of the same cell. Prints
the IOPS ratio (goal ≥ 0.98) and raidsweep's orchestration overhead per run beyond fio's own
ramp + runtime, Ansible's reconfiguration play included (goal ≤ 1 s).

Run (as root, for the zram device): .venv/bin/python benchmarks/fio_overhead.py [rounds]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sweeper.fio import parse_fio_output, render_job
from sweeper.fio.runner import find_fio, run_fio
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from sweeper.workload import WorkloadCell

ROOT = Path(__file__).resolve().parent.parent
CELL = "randread/4k/qd1x1"  # one outstanding I/O: the steadiest figure on 2 cores
RAMP_S, RUNTIME_S, REPS = 1, 5, 3
WORKING_SET = 128 * 1024**2
IOPS_GOAL, OVERHEAD_GOAL_S = 0.98, 1.0


def make_target(tmp: Path) -> tuple[str, list[str]]:
    """A zram device (removed after) or a file; returns (target, cleanup command)."""
    try:
        dev = subprocess.run(
            ["zramctl", "--find", "--size", "192M"], capture_output=True, text=True, check=True
        ).stdout.strip()
        return dev, ["zramctl", "--reset", dev]
    except (OSError, subprocess.CalledProcessError):
        return str(tmp / "target.img"), []


def spec_text(name: str, target: str) -> str:
    is_file = not target.startswith("/dev/")
    options = "  file_size: 192m\n" if is_file else f"  allow: [{target}]\n"
    return (
        f"name: {name}\nplatform: local\n"
        f"inventory: {ROOT / 'inventories/local/hosts.yml'}\n"
        f"platform_options:\n  target: {target}\n{options}"
        "config_space:\n  raid_level: [raid0]\n"
        "matrix:\n  patterns: [randread]\n  block_sizes: [4k]\n  concurrency: [1x1]\n"
        f"  engine: libaio\n  runtime: {RUNTIME_S}s\n  ramp: {RAMP_S}s\n"
        f"  repetitions: {REPS}\n  working_set: {WORKING_SET}\n"
        "classes: [data_file]\n"
    )


def main(rounds: int) -> None:
    fio = find_fio()
    bare_iops: list[float] = []
    rs_iops: list[float] = []
    overheads: list[float] = []
    fio_overheads: list[float] = []
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmpdir:
        tmp = Path(tmpdir)
        target, cleanup = make_target(tmp)
        try:
            store = ParquetStore(tmp / "store")
            job = tmp / "bare.fio"
            cell = WorkloadCell.parse(CELL)
            job.write_text(
                render_job(
                    cell,
                    filename=target,
                    engine="libaio",
                    runtime_s=RUNTIME_S,
                    ramp_s=RAMP_S,
                    size=WORKING_SET,
                )
            )
            for r in range(rounds):
                spec_path = tmp / f"round{r}.yaml"
                spec_path.write_text(spec_text(f"overhead-{r}", target))
                spec, inventory = load_spec(spec_path)
                t0 = time.perf_counter()
                run_sweep(spec, inventory, store, spec_path=spec_path)
                wall = time.perf_counter() - t0
                runs = store.runs(spec.name)
                rs_iops += [float(v) for v in runs["iops"]]
                # The fill before reads is preparation the user asked for, not orchestration.
                detail = store.run_detail(runs["run_id"].iloc[0]) or {}
                fill_s = json.loads(detail["disclosure"]).get("fill", {}).get("seconds", 0.0)
                overheads.append((wall - fill_s - REPS * (RAMP_S + RUNTIME_S)) / REPS)
                fio_overheads += [float(w) - RAMP_S - RUNTIME_S for w in runs["wall_s"]]
                for _ in range(REPS):
                    out = run_fio(fio, job, timeout_s=RAMP_S + RUNTIME_S + 60, output_format="json")
                    read = parse_fio_output(out.stdout).read
                    assert read is not None
                    bare_iops.append(read.iops)
        finally:
            if cleanup:
                subprocess.run(cleanup, check=False)
    ratio = statistics.mean(rs_iops) / statistics.mean(bare_iops)
    overhead = statistics.mean(overheads)
    bare_m, bare_sd = statistics.mean(bare_iops), statistics.stdev(bare_iops)
    rs_m, rs_sd = statistics.mean(rs_iops), statistics.stdev(rs_iops)
    print(f"fio overhead: {CELL}, {RAMP_S}s ramp + {RUNTIME_S}s, {rounds} rounds × {REPS} runs")
    print(f"  target              {target} ({fio.version})")
    print(f"  bare fio IOPS       {bare_m:10,.0f} ± {bare_sd:,.0f}")
    print(f"  raidsweep IOPS      {rs_m:10,.0f} ± {rs_sd:,.0f}")
    print(f"  IOPS ratio          {ratio:10.3f}   (goal ≥ {IOPS_GOAL})")
    print(f"  overhead per run    {overhead:10.2f} s (goal ≤ {OVERHEAD_GOAL_S:.0f} s)")
    print("    sweep wall time beyond ramp + runtime: Ansible play, fio start, store; no fill")
    print(f"  fio start and exit  {statistics.mean(fio_overheads):10.2f} s of it per run")
    print("GOAL MET" if ratio >= IOPS_GOAL and overhead <= OVERHEAD_GOAL_S else "GOAL MISSED")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
