"""Runs the store lost after their configuration was measured: a run file damaged (truncated,
overwritten, replaced by another run's or by something that is no file) once its
configuration had completed, or been pruned, in the study.

The study never offers a settled configuration again, and readers leave the damaged file out
(naming it): without this, the run was lost for good, the configuration short of it in
``status`` (``8/9``). A resumed sweep finds these runs from what its read of the store left
out and measures them again, each alone (``measure(..., only=...)``), after building the
configuration anew; what it cannot measure again it says.

Pure: what the study and the store say in, the runs to measure and what to say out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sweeper.spec import SweepSpec
from sweeper.store import RunAddress
from sweeper.store.base import LeftOut, StoredRuns
from sweeper.workload import WorkloadCell


@dataclass(frozen=True)
class Settled:
    """A configuration the study will not offer again: ``complete`` (else pruned), and the
    curves its measurement stopped (``Measured.curves_stopped``: their higher cells were
    never run)."""

    key: str
    complete: bool
    curves_stopped: frozenset[str] = frozenset()


@dataclass
class Lost:
    """A settled configuration's runs to measure again, and the files that held them."""

    key: str
    complete: bool
    #: the runs that may be measured again: each where the configuration's rules ask for it
    runs: set[RunAddress] = field(default_factory=set)
    #: those among them that must be (a run file's own run; a part's fixed repetitions)
    required: set[RunAddress] = field(default_factory=set)
    files: list[LeftOut] = field(default_factory=list)


def addresses(spec: SweepSpec, cells: list[WorkloadCell], key: str) -> dict[str, RunAddress]:
    """Every run the sweep may measure of configuration ``key``, by run id: each cell's
    repetitions, up to the most dynamic repetitions allow."""
    matrix = spec.matrix
    most = matrix.dynamic_repetitions.max if matrix.dynamic_repetitions else 0
    found = {}
    for cell in cells:
        for rep in range(1, max(matrix.repetitions_of(cell), most) + 1):
            address = RunAddress(spec.name, key, cell.key, rep)
            found[address.run_id] = address
    return found


def lost_runs(
    spec: SweepSpec, cells: list[WorkloadCell], stored: StoredRuns, settled: Iterable[Settled]
) -> tuple[list[Lost], list[str]]:
    """The runs to measure again, by configuration (in the order of ``settled``); and what
    to say of the files left out that no measuring brings back."""
    found: list[Lost] = []
    notes: list[str] = []
    for config in settled:
        files = stored.left_out_of(spec.name, config.key)
        if not files:
            continue
        known = addresses(spec, cells, config.key)
        lost = Lost(config.key, config.complete)
        for f in files:
            runs, required, note = _runs_of(spec, cells, stored, config, known, f)
            if note is not None:
                notes.append(note)
            if required:
                lost.runs |= runs
                lost.required |= required
                lost.files.append(f)
        if lost.runs:
            found.append(lost)
    return found, notes


def _runs_of(
    spec: SweepSpec,
    cells: list[WorkloadCell],
    stored: StoredRuns,
    config: Settled,
    known: dict[str, RunAddress],
    file: LeftOut,
) -> tuple[set[RunAddress], set[RunAddress], str | None]:
    """The runs of ``config`` the left-out ``file`` held that the store holds nowhere else
    (those that may be measured again, and those that must), and what to say when some
    cannot be told or measured again."""
    state = "completed" if config.complete else "pruned"
    if file.run_id is not None:  # a good run's own file: that run
        address = known.get(file.run_id)
        if address is None:
            return (
                set(),
                set(),
                (
                    f"{file.path}: the configuration {config.key} was {state}; this file is in "
                    "the place of no run its sweep measures, so nothing is measured again for it"
                ),
            )
        runs = {address} - stored.done
        return runs, runs, None
    if not file.part:  # a failed attempt's record: the run it was is not a good run
        return set(), set(), None
    if not config.complete:
        return (
            set(),
            set(),
            (
                f"{file.path}: the configuration {config.key} was pruned before this part of its "
                "runs was damaged; which of its runs it held cannot be told, so none is measured "
                "again (its other runs read)"
            ),
        )
    # A part of a completed configuration: which runs it held cannot be told, so each run the
    # configuration measures that the store no longer holds (its curves' stopped cells
    # aside: they were never run). Each is measured only where the configuration's own rules
    # (repetitions, curve stops) ask for it; fixed repetitions always are.
    curve_of = {c.key: c.curve for c in cells}
    fixed = {c.key: spec.matrix.repetitions_of(c) for c in cells}
    missing = {
        a
        for a in known.values()
        if a not in stored.done and curve_of[a.cell_key] not in config.curves_stopped
    }
    # none of the fixed repetitions missing: the part's runs are read from elsewhere
    return missing, {a for a in missing if a.repetition <= fixed[a.cell_key]}, None


def described(runs: Iterable[RunAddress]) -> str:
    """``randread/8k/qd1x16 #2, write/4k/qd1x1 #1`` (at most six, then how many more)."""
    names = [f"{a.cell_key} #{a.repetition}" for a in sorted(runs)]
    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
    return ", ".join(names[:6]) + more
