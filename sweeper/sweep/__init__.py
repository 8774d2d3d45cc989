"""The sweep: ask the study for a configuration, build it with Ansible, run the matrix.

Its parts: ``plan`` (what a sweep will do), ``progress`` (what it reports), ``records`` (what
it stores), ``measure`` (one configuration), ``books`` (what it keeps in memory of the
store), ``loop`` (study, budget, workers) and ``sweeper`` (the :class:`Sweeper` itself).
"""

from sweeper.sweep.plan import Plan, make_plan, planned_cells
from sweeper.sweep.progress import Outcome, Progress
from sweeper.sweep.sweeper import Sweeper, run_sweep

__all__ = [
    "Outcome",
    "Plan",
    "Progress",
    "Sweeper",
    "make_plan",
    "planned_cells",
    "run_sweep",
]
