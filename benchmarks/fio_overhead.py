"""raidsweep adds nothing to what fio measures: the same job, bare and through raidsweep.

Rounds on one target (a zram device when this machine can make one, else a file): a raidsweep
sweep of one cell, then bare fio on the very job file raidsweep ran, so that each sweep but the
first lies between two blocks of bare runs. Prints the IOPS ratio (median over rounds of
raidsweep's mean / the mean of the bare runs around it; goal ≥ 0.98) and
raidsweep's orchestration overhead per run beyond fio's own ramp + runtime, Ansible's play
included (goal ≤ 1 s), with telemetry on (every local run samples /proc while fio runs). The
overhead is split into the Ansible play (once per configuration, shared by its runs; its
configuration record brackets it), fio's start and exit (beside bare fio's own) and the rest
(store, study, disclosure), and the telemetry sampler's own CPU time per run (it runs at nice
19 beside fio). The benchmark's class scores its one cell (no shipped class does).

Run (as root, for the zram device): .venv/bin/python benchmarks/fio_overhead.py [rounds] [-v]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sweeper.fio import parse_fio_output
from sweeper.fio.runner import Fio, find_fio, run_fio
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep

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


def class_file(tmp: Path) -> Path:
    """A class that scores the benchmark's one cell (no shipped class measures it alone)."""
    path = tmp / "overhead_class.yaml"
    path.write_text(
        "name: overhead\ndescription: the benchmark's one cell\nmetric: iops\n"
        f"cells:\n  - {{cell: {CELL}, weight: 1}}\n"
    )
    return path


def spec_text(name: str, target: str, wclass: Path) -> str:
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
        f"classes: [{wclass}]\n"
    )


def _bare(fio: Fio, job: Path, walls: list[float]) -> list[float]:
    """Bare fio on ``job``, REPS times: its IOPS (its wall times appended to ``walls``)."""
    values = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        out = run_fio(fio, job, timeout_s=RAMP_S + RUNTIME_S + 60, output_format="json")
        walls.append(time.perf_counter() - t0)
        read = parse_fio_output(out.stdout).read
        assert read is not None
        values.append(read.iops)
    return values


def through_raidsweep(
    tmp: Path, store: ParquetStore, target: str, r: int
) -> tuple[list[float], dict[str, Any], float]:
    spec_path = tmp / f"round{r}.yaml"
    spec_path.write_text(spec_text(f"overhead-{r}", target, class_file(tmp)))
    spec, inventory = load_spec(spec_path)
    t0 = time.perf_counter()
    run_sweep(spec, inventory, store, spec_path=spec_path)
    wall = time.perf_counter() - t0
    runs = store.runs(spec.name)
    detail = store.run_detail(runs["run_id"].iloc[0]) or {}
    detail["fio_overheads"] = [float(w) - RAMP_S - RUNTIME_S for w in runs["wall_s"]]
    details = [store.run_detail(run_id) or {} for run_id in runs["run_id"]]
    detail["sampler_cpu_s"] = [
        json.loads(d["disclosure"]).get("telemetry", {}).get("sampler_cpu_s") for d in details
    ]
    configs = store.configurations(spec.name)
    # A configuration's record brackets its Ansible play (started before, finished after).
    plays = configs["finished_at"] - configs["started_at"]
    detail["play_s"] = float(plays.dt.total_seconds().sum())
    return [float(v) for v in runs["iops"]], detail, wall


def main(rounds: int) -> None:
    fio = find_fio()
    bare_iops: list[float] = []
    rs_iops: list[float] = []
    overheads: list[float] = []
    fio_overheads: list[float] = []
    bare_walls: list[float] = []
    plays: list[float] = []
    sampler_cpu: list[float] = []
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmpdir:
        tmp = Path(tmpdir)
        target, cleanup = make_target(tmp)
        try:
            store = ParquetStore(tmp / "store")
            job = tmp / "bare.fio"
            ratios: list[float] = []
            before: list[float] = []
            for r in range(rounds):
                # Each sweep between two blocks of bare fio (the block after one sweep is the
                # block before the next): this machine's speed wanders over minutes, and the
                # mean of the blocks on either side cancels a steady drift.
                rs, detail, wall = through_raidsweep(tmp, store, target, r)
                job.write_text(detail["job_file"])  # the very job file raidsweep ran
                bare = _bare(fio, job, bare_walls)
                around = before + bare
                before = bare
                rs_iops += rs
                bare_iops += bare
                ratios.append(statistics.mean(rs) / statistics.mean(around))
                # The fill before reads is preparation the user asked for, not orchestration.
                fill_s = json.loads(detail["disclosure"]).get("fill", {}).get("seconds", 0.0)
                overheads.append((wall - fill_s - REPS * (RAMP_S + RUNTIME_S)) / REPS)
                fio_overheads += detail["fio_overheads"]
                plays.append(detail["play_s"] / REPS)
                sampler_cpu += [c for c in detail["sampler_cpu_s"] if c is not None]
        finally:
            if cleanup:
                subprocess.run(cleanup, check=False)
    if "-v" in sys.argv:
        print("raidsweep", [round(v) for v in rs_iops])
        print("bare     ", [round(v) for v in bare_iops])
    ratio = statistics.median(ratios)
    overhead = statistics.mean(overheads)
    bare_m, bare_sd = statistics.mean(bare_iops), statistics.stdev(bare_iops)
    rs_m, rs_sd = statistics.mean(rs_iops), statistics.stdev(rs_iops)
    print(f"fio overhead: {CELL}, {RAMP_S}s ramp + {RUNTIME_S}s, {rounds} rounds × {REPS} runs")
    print(f"  target              {target} ({fio.version})")
    print(f"  bare fio IOPS       {bare_m:10,.0f} ± {bare_sd:,.0f}")
    print(f"  raidsweep IOPS      {rs_m:10,.0f} ± {rs_sd:,.0f}")
    print(f"  IOPS ratio          {ratio:10.3f}   (goal ≥ {IOPS_GOAL}; median of rounds)")
    # Other work on the machine only ever slows a run: the best runs compare the two sides
    # where neither was slowed (shown beside the goal's figure, not instead of it).
    best = max(rs_iops) / max(bare_iops)
    rounds_shown = " ".join(f"{r:.3f}" for r in ratios)
    print(f"    rounds {rounds_shown}; best run against best run {best:.3f}")
    print(f"  overhead per run    {overhead:10.2f} s (goal ≤ {OVERHEAD_GOAL_S:.0f} s)")
    print("    sweep wall time beyond ramp + runtime: Ansible play, fio start, store; no fill")
    fio_start = statistics.mean(fio_overheads)
    bare_start = statistics.mean(w - RAMP_S - RUNTIME_S for w in bare_walls)
    play = statistics.mean(plays)
    print(f"  of it: Ansible play {play:10.2f} s per run (one play per configuration, {REPS} runs)")
    print(f"         fio start    {fio_start:10.2f} s per run (bare fio's own: {bare_start:.2f} s)")
    print(f"         the rest     {overhead - play - fio_start:10.2f} s (store, study, disclosure)")
    print(f"  beyond bare fio     {overhead - bare_start:10.2f} s per run (raidsweep's own share)")
    if sampler_cpu:
        cpu_ms = 1000 * statistics.mean(sampler_cpu)
        print(f"  telemetry sampler   {cpu_ms:10.1f} ms CPU per run (nice 19, beside fio's core)")
    print("GOAL MET" if ratio >= IOPS_GOAL and overhead <= OVERHEAD_GOAL_S else "GOAL MISSED")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 5)
