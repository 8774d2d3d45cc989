"""Wall time of examples/quick.yaml end to end on the simulated array (goal: under 60 s).

Run: .venv/bin/python benchmarks/quick_sweep.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from recommender.data import load_rankings
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from sweeper.units import format_duration

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 60.0


def main() -> None:
    spec, inventory = load_spec(ROOT / "examples" / "quick.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        store = ParquetStore(tmp)
        t0 = time.perf_counter()
        outcome = run_sweep(spec, inventory, store)
        sweep_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        load_rankings(store, store.get_sweep(spec.name))
        rank_s = time.perf_counter() - t1
        configs = store.configurations(spec.name)
    runs = outcome.runs_written
    ansible_s = float((configs["finished_at"] - configs["started_at"]).dt.total_seconds().sum())
    print(f"quick.yaml: {outcome.configurations_done} configurations, {runs} runs")
    print(f"  sweep wall time     {sweep_s:6.1f} s   (goal < {GOAL_S:.0f} s)")
    per_play = ansible_s / max(1, outcome.configurations_done)
    print(f"  of which Ansible    {ansible_s:6.1f} s   ({per_play:.2f} s per play)")
    print(f"  runs per second     {runs / sweep_s:6.1f}")
    print(f"  ranking all classes {rank_s:6.2f} s")
    print(f"  array time simulated {format_duration(outcome.array_s)}")
    print("GOAL MET" if sweep_s < GOAL_S else "GOAL MISSED")


if __name__ == "__main__":
    main()
