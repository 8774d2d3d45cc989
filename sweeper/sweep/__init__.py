"""The sweep: ask the study for a configuration, build it with Ansible, run the matrix."""

from sweeper.sweep.loop import (
    Outcome,
    Plan,
    Progress,
    Sweeper,
    make_plan,
    planned_cells,
    run_sweep,
)

__all__ = [
    "Outcome",
    "Plan",
    "Progress",
    "Sweeper",
    "make_plan",
    "planned_cells",
    "run_sweep",
]
