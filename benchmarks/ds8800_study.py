"""The reference study's whole matrix (examples/ds8800-study.yaml, 945 runs) simulated end to
end on the simulated array: Ansible plays, model, fio JSON parsing and store writes
(goal: under 10 s on 2 cores), and the array time the same study would take.

Run: .venv/bin/python benchmarks/ds8800_study.py
"""

from __future__ import annotations

from sweep_timing import time_sweep

if __name__ == "__main__":
    time_sweep(
        "ds8800-study.yaml",
        goal_s=10.0,
        array_note=" ({hours:.1f} array-hours; the study ran about 95 by hand)",
    )
