"""Wall time of examples/quick.yaml end to end on the simulated array (goal: under 60 s).

Run: .venv/bin/python benchmarks/quick_sweep.py
"""

from __future__ import annotations

from sweep_timing import time_sweep

if __name__ == "__main__":
    time_sweep("quick.yaml", goal_s=60.0)
