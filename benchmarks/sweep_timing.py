"""Shared by the sweep benchmarks: time one example spec end to end on the simulated array."""

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


def time_sweep(spec_file: str, goal_s: float, array_note: str = "") -> None:
    """Sweep ``examples/<spec_file>`` into a scratch store and print the figures and the goal."""
    spec, inventory = load_spec(ROOT / "examples" / spec_file)
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
    print(f"{spec_file}: {outcome.configurations_done} configurations, {runs} runs")
    print(f"  sweep wall time     {sweep_s:6.1f} s   (goal < {goal_s:.0f} s)")
    per_play = ansible_s / max(1, outcome.configurations_done)
    print(f"  of which Ansible    {ansible_s:6.1f} s   ({per_play:.2f} s per play)")
    print(f"  runs per second     {runs / sweep_s:6.1f}")
    print(f"  ranking all classes {rank_s:6.2f} s")
    note = array_note.format(hours=outcome.array_s / 3600)
    print(f"  array time simulated {format_duration(outcome.array_s)}{note}")
    print("GOAL MET" if sweep_s < goal_s else "GOAL MISSED")
