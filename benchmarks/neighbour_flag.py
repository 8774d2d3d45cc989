"""A load host shared with another program is flagged, a quiet one is not.

The same local sweep twice on one target: once on a quiet machine, once beside a busy
neighbour (one process spinning on a CPU, as a backup or a build would). Every run's
``telemetry_flag`` is read back from the store, as a user reads it. Prints:

- the share of the neighbour's runs flagged (goal ≥ 0.95) and the share of quiet runs
  flagged (goal ≤ 0.05);
- the baseline: the share of the neighbour's runs the saturation rule alone flags (a load
  host ≥ 90% busy), the only rule before ``other_cpus``;
- what the neighbour changed: each cell's IOPS beside it against the quiet runs. They move
  either way, by up to 40% here: slower where fio waits for a CPU, faster where the spinning
  CPU keeps the cores out of their idle states. The flag says the figure is not the quiet
  host's, not by how much it is off.

A machine that is not quiet (the first sweep's runs flagged) makes the false-flag figure
meaningless: run it alone. Run: .venv/bin/python benchmarks/neighbour_flag.py [-v]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from sweeper.load.telemetry import CPU_SATURATED_PCT
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep

ROOT = Path(__file__).resolve().parent.parent
CELLS = ["randread/4k/qd1x1", "randread/4k/qd1x4", "randwrite/4k/qd1x1", "randwrite/4k/qd1x4"]
RAMP_S, RUNTIME_S, REPS = 1, 4, 3
DETECT_GOAL, FALSE_GOAL = 0.95, 0.05


def class_file(tmp: Path) -> Path:
    """A class that scores the benchmark's cells (no shipped class measures them alone)."""
    path = tmp / "neighbour_class.yaml"
    cells = "".join(f"  - {{cell: {c}, weight: 1}}\n" for c in CELLS)
    path.write_text(
        f"name: neighbour\ndescription: the benchmark's cells\nmetric: iops\ncells:\n{cells}"
    )
    return path


def spec_file(tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.yaml"
    path.write_text(
        f"name: {name}\nplatform: local\n"
        f"inventory: {ROOT / 'inventories/local/hosts.yml'}\n"
        f"platform_options:\n  target: {tmp / 'target.img'}\n  file_size: 192m\n"
        "config_space:\n  raid_level: [raid0]\n"
        "matrix:\n  patterns: [randread, randwrite]\n  block_sizes: [4k]\n"
        "  concurrency: [1x1, 1x4]\n  engine: psync\n"
        f"  runtime: {RUNTIME_S}s\n  ramp: {RAMP_S}s\n  repetitions: {REPS}\n"
        f"  working_set: 128m\nclasses: [{class_file(tmp)}]\n"
    )
    return path


def sweep(tmp: Path, store: ParquetStore, name: str) -> pd.DataFrame:
    path = spec_file(tmp, name)
    spec, inventory = load_spec(path)
    run_sweep(spec, inventory, store, spec_path=path)
    return store.runs(name)


def flagged(runs: pd.DataFrame) -> pd.Series:
    return runs["telemetry_flag"].fillna("").astype(str).ne("")


def main() -> None:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmpdir:
        tmp = Path(tmpdir)
        store = ParquetStore(tmp / "store")
        quiet = sweep(tmp, store, "quiet")
        spinner = subprocess.Popen(["sh", "-c", "while :; do :; done"])
        try:
            busy = sweep(tmp, store, "neighbour")
        finally:
            spinner.kill()
            spinner.wait()
    detect = float(flagged(busy).mean())
    false = float(flagged(quiet).mean())
    saturated = float((busy["host_cpu_pct"] >= CPU_SATURATED_PCT).mean())
    print(f"shared load host flag: {len(CELLS)} cells × {REPS} runs of {RUNTIME_S}s, psync, a file")
    print(f"  CPUs                {os.cpu_count()}; the neighbour spins on one")
    print(f"  neighbour's runs flagged   {detect:6.2f}   (goal ≥ {DETECT_GOAL})")
    print(f"  quiet runs flagged         {false:6.2f}   (goal ≤ {FALSE_GOAL})")
    print(f"  baseline: flagged by the {CPU_SATURATED_PCT:.0f}% rule alone  {saturated:6.2f}")
    for cell in CELLS:
        q = quiet[quiet["cell_key"] == cell]
        b = busy[busy["cell_key"] == cell]
        change = statistics.mean(b["iops"]) / statistics.mean(q["iops"]) - 1
        print(
            f"  {cell:20} quiet {statistics.mean(q['iops']):9,.0f} IOPS, host "
            f"{q['host_cpu_pct'].mean():3.0f}%; beside it {statistics.mean(b['iops']):9,.0f} "
            f"({change:+.0%}), host {b['host_cpu_pct'].mean():3.0f}%"
        )
    if "-v" in sys.argv:
        for name, runs in (("quiet", quiet), ("neighbour", busy)):
            for flag in runs["telemetry_flag"].dropna():
                print(f"    {name}: {flag}")
    met = detect >= DETECT_GOAL and false <= FALSE_GOAL
    print("GOAL MET" if met else "GOAL MISSED")


if __name__ == "__main__":
    main()
