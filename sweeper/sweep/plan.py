"""What a sweep will do: its configurations in build order, cells, repetitions, array time."""

from __future__ import annotations

from dataclasses import dataclass

from recommender.classes import load_classes
from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.ordering import cost_ordered, total_cost
from sweeper.platforms import Platform
from sweeper.spec import SweepSpec
from sweeper.workload import WorkloadCell


@dataclass
class Plan:
    """What a sweep will do: shown by ``--check`` and used for the progress bar's totals."""

    space_size: int
    configurations: list[Configuration]
    cells: list[WorkloadCell]
    repetitions: int
    run_array_s: float
    reconfig_array_s: float
    extra_runs_per_configuration: int = 0  # the drift cell's runs beyond the repetitions
    listed_reconfig_array_s: float = 0.0  # reconfiguring in the spec's own order, for comparison

    @property
    def runs(self) -> int:
        per_config = len(self.cells) * self.repetitions + self.extra_runs_per_configuration
        return len(self.configurations) * per_config

    @property
    def array_s(self) -> float:
        return self.run_array_s * self.runs + self.reconfig_array_s


def planned_cells(spec: SweepSpec) -> list[WorkloadCell]:
    """The matrix's cells, or only those the classes score when the study measures just them."""
    cells = spec.matrix.cells()
    if not spec.study.class_cells_only:
        return cells
    classes = load_classes(spec.classes, cell_keys=[c.key for c in cells])
    wanted = {c.cell for wc in classes for c in wc.cells}
    if spec.matrix.drift is not None:
        wanted.add(spec.matrix.drift.cell)
    # A class cell without an active range is the whole working set (ws100).
    return [c for c in cells if c.key.removesuffix("/ws100") in wanted]


def make_plan(spec: SweepSpec, platform: Platform) -> Plan:
    space = enumerate_configurations(spec.config_space)
    listed_cost = total_cost(space, platform.reconfiguration_time)
    if spec.study.mode == "grid":
        # Every layout, stripe and cache policy of one RAID build before tearing it down.
        space = cost_ordered(space, platform.reconfiguration_time)
    configs = space
    budget = spec.study.budget
    if budget and budget.configurations:
        # Grid mode takes the first N in build order; optimize mode chooses N as it goes, so
        # the first N stand in for the totals of the progress bar and the ETA.
        configs = space[: budget.configurations]
    return Plan(
        space_size=len(space),
        configurations=configs,
        cells=planned_cells(spec),
        repetitions=spec.matrix.repetitions,
        run_array_s=platform.run_time(spec.matrix),
        reconfig_array_s=total_cost(configs, platform.reconfiguration_time),
        listed_reconfig_array_s=listed_cost,
        extra_runs_per_configuration=sum(
            spec.matrix.repetitions_of(c) - spec.matrix.repetitions for c in planned_cells(spec)
        ),
    )
