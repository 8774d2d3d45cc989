"""The reference study's whole matrix (examples/ds8800-study.yaml, 945 runs) simulated end to
end on the simulated array: Ansible plays, model, fio JSON parsing and store writes
(goal: under 10 s on 2 cores), and the array time the same study would take.

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
GOAL_S = 10.0


def main() -> None:
    spec, inventory = load_spec(ROOT / "examples" / "ds8800-study.yaml")
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
    print(f"ds8800-study.yaml: {outcome.configurations_done} configurations, {runs} runs")
    print(f"  sweep wall time     {sweep_s:6.1f} s   (goal < {GOAL_S:.0f} s)")
    per_play = ansible_s / max(1, outcome.configurations_done)
    print(f"  of which Ansible    {ansible_s:6.1f} s   ({per_play:.2f} s per play)")
    print(f"  runs per second     {runs / sweep_s:6.1f}")
    print(f"  ranking all classes {rank_s:6.2f} s")
    print(
        f"  array time simulated {format_duration(outcome.array_s)}"
        f" ({outcome.array_s / 3600:.1f} array-hours; the study ran about 95 by hand)"
    )
    print("GOAL MET" if sweep_s < GOAL_S else "GOAL MISSED")


if __name__ == "__main__":
    main()
