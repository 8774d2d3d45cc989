"""Runs the store lost after their configuration was measured: a run file damaged (truncated,
overwritten, replaced by another run's or by something that is no file) or deleted outright
once its configuration had completed, or been pruned, in the study.

The study never offers a settled configuration again, and readers leave the damaged file out
(naming it): without this, the run was lost for good, the configuration short of it in
``status`` (``8/9``). A resumed sweep finds these runs from what its read of the store left
out and, for a completed configuration, from the runs it ran (``ran``: the good runs the
study recorded when it completed; for a study that did not record them, its rules' runs:
each cell's fixed repetitions, the dynamic ones a later repetition shows were run, a stopped
curve's cells up to the highest one a stored run shows was reached) that the store holds
neither as a good run nor, where the rules decide, as a failed attempt; and measures them
again, each alone
(``measure(..., only=...)``), after building the configuration anew; what it cannot measure
again it says. A pruned configuration is never filled in: how far it went cannot be told.

Pure: what the study and the store say in, the runs to measure and what to say out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from sweeper.spec import SweepSpec
from sweeper.store import RunAddress
from sweeper.store.base import LeftOut, StoredRuns
from sweeper.workload import WorkloadCell


@dataclass(frozen=True)
class Settled:
    """A configuration the study will not offer again: ``complete`` (else pruned), the
    curves its measurement stopped (``Measured.curves_stopped``: their higher cells were
    never run), and the (cell, repetition) of every good run it held when it completed
    (``good``; None where the study did not record them)."""

    key: str
    complete: bool
    curves_stopped: frozenset[str] = frozenset()
    good: frozenset[tuple[str, int]] | None = None


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
    #: among ``required``, those no file left out held: their files were deleted
    deleted: set[RunAddress] = field(default_factory=set)

    def said(self) -> str:
        """``configuration K was completed before its run file(s) F were damaged`` (or
        ``... before run file(s) of it were deleted``, or both)."""
        state = "completed" if self.complete else "pruned"
        files = ", ".join(str(f.path) for f in self.files)
        if not self.files:
            what = "run file(s) of it were deleted"
        elif self.deleted:
            what = f"its run file(s) {files} were damaged and others deleted"
        else:
            what = f"its run file(s) {files} were damaged"
        return f"configuration {self.key} was {state} before {what}"


def addresses(spec: SweepSpec, cells: list[WorkloadCell], key: str) -> dict[str, RunAddress]:
    """Every run the sweep may measure of configuration ``key``, by run id: each cell's
    repetitions, up to the most dynamic repetitions allow."""
    found = {}
    for cell in cells:
        for rep in range(1, _most(spec, cell) + 1):
            address = RunAddress(spec.name, key, cell.key, rep)
            found[address.run_id] = address
    return found


def _most(spec: SweepSpec, cell: WorkloadCell) -> int:
    """The most repetitions of ``cell`` the sweep may measure."""
    matrix = spec.matrix
    dynamic = matrix.dynamic_repetitions.max if matrix.dynamic_repetitions else 0
    return max(matrix.repetitions_of(cell), dynamic)


def ran(
    spec: SweepSpec, cells: list[WorkloadCell], config: Settled, held: Set[tuple[str, int]]
) -> tuple[set[RunAddress], set[RunAddress]]:
    """The runs of the completed configuration ``config`` that its rules ran, or may have,
    and that the store does not hold (``held``: the (cell, repetition) of its good runs);
    and those among them its rules surely ran. Where the study recorded the configuration's
    good runs when it completed (``config.good``), those are the runs it ran, all surely,
    whatever failed attempts, curve stops and repetition rules the store shows. Else,
    surely: each cell's fixed repetitions, and a dynamic repetition a later one stored shows
    was run. A stopped curve (``config.curves_stopped``) ran its cells from the fewest I/Os
    in flight up to where it stopped: only its cells up to the highest one a stored run
    shows was reached count (none when none of it is stored). Maybe: a dynamic repetition
    past the last one stored (``measure`` asks the same rule as before whether it was
    run)."""
    if config.good is not None:
        planned = {c.key for c in cells}
        gone = {
            RunAddress(spec.name, config.key, cell, rep)
            for cell, rep in config.good - held
            if cell in planned
        }
        return gone, set(gone)
    may: set[RunAddress] = set()
    sure: set[RunAddress] = set()
    engine = spec.matrix.engine
    curves: dict[str, list[WorkloadCell]] = {}
    for cell in sorted(cells, key=lambda c: c.concurrency.outstanding(engine)):
        curves.setdefault(cell.curve, []).append(cell)
    for curve, points in curves.items():
        if curve in config.curves_stopped:
            reached = [i for i, c in enumerate(points) if _last_held(spec, c, held)]
            points = points[: reached[-1] + 1] if reached else []
        for cell in points:
            fixed, last = spec.matrix.repetitions_of(cell), _last_held(spec, cell, held)
            for rep in range(1, _most(spec, cell) + 1):
                if (cell.key, rep) in held:
                    continue
                address = RunAddress(spec.name, config.key, cell.key, rep)
                (sure if rep <= fixed or rep < last else may).add(address)
    return may | sure, sure


def _last_held(spec: SweepSpec, cell: WorkloadCell, held: Set[tuple[str, int]]) -> int:
    """The highest repetition of ``cell`` the store holds (0: none)."""
    return max((r for r in range(1, _most(spec, cell) + 1) if (cell.key, r) in held), default=0)


def lost_runs(
    spec: SweepSpec,
    cells: list[WorkloadCell],
    stored: StoredRuns,
    settled: Iterable[Settled],
    failed: Mapping[str, Set[RunAddress]] | None = None,
) -> tuple[list[Lost], list[str]]:
    """The runs to measure again, by configuration (in the order of ``settled``); and what
    to say of the files left out that no measuring brings back. ``failed``: by
    configuration, the runs the store holds a failed attempt at and no good run (run, and
    failed: not lost), where known."""
    found: list[Lost] = []
    notes: list[str] = []
    held: dict[str, set[tuple[str, int]]] = {}
    for a in stored.done:
        held.setdefault(a.config_key, set()).add((a.cell_key, a.repetition))
    for config in settled:
        files = stored.left_out_of(spec.name, config.key)
        lost = Lost(config.key, config.complete)
        known = addresses(spec, cells, config.key) if files else {}
        for f in files:
            runs, required, note = _runs_of(stored, config, known, f)
            if note is not None:
                notes.append(note)
            if required:
                lost.runs |= runs
                lost.required |= required
                lost.files.append(f)
        if config.complete:
            _add_missing(spec, cells, config, held.get(config.key, set()), failed, files, lost)
        if lost.runs:
            found.append(lost)
    return found, notes


def _add_missing(
    spec: SweepSpec,
    cells: list[WorkloadCell],
    config: Settled,
    held: Set[tuple[str, int]],
    failed: Mapping[str, Set[RunAddress]] | None,
    files: list[LeftOut],
    lost: Lost,
) -> None:
    """Add to ``lost`` the runs of completed ``config`` its rules ran that the store no longer
    holds (``ran``): a damaged part's (which runs it held cannot be told), else deleted. Only
    when some are sure to have been run (the dynamic ones may then be, where ``measure``'s
    rules ask); a failed attempt stored is a run that failed, not a lost one, unless the
    study recorded the run as good when the configuration completed (it failed, was
    measured again and succeeded, and then its file was deleted)."""
    tried = failed.get(config.key, set()) if failed and config.good is None else set()
    may, sure = ran(spec, cells, config, held)
    may, sure = may - tried, sure - tried
    if not sure - lost.required:
        return
    lost.runs |= may
    parts = [f for f in files if f.part]
    if parts:  # none of the fixed repetitions missing: the part's runs are read elsewhere
        lost.files += [p for p in parts if p not in lost.files]
    else:
        lost.deleted |= sure - lost.required
    lost.required |= sure


def _runs_of(
    stored: StoredRuns, config: Settled, known: dict[str, RunAddress], file: LeftOut
) -> tuple[set[RunAddress], set[RunAddress], str | None]:
    """The runs of ``config`` the left-out run ``file`` held that the store holds nowhere
    else (those that may be measured again, and those that must), and what to say when some
    cannot be told or measured again. A completed configuration's part is ``ran``'s."""
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
    if not file.part or config.complete:
        # a failed attempt's record (the run it was is not a good run), or a completed
        # configuration's part (its runs are those ``ran`` finds missing)
        return set(), set(), None
    return (
        set(),
        set(),
        (
            f"{file.path}: the configuration {config.key} was pruned before this part of its "
            "runs was damaged; which of its runs it held cannot be told, so none is measured "
            "again (its other runs read)"
        ),
    )


def claim_lock(sweep_dir: Path, key: str) -> Path:
    """The lock a sweeper holds while it measures again configuration ``key``'s lost runs:
    two workers resuming one sweep at once find the same runs lost, and one measures them."""
    name = hashlib.sha256(key.encode()).hexdigest()[:24]
    return sweep_dir / ".lost-runs" / f"{name}.lock"


def described(runs: Iterable[RunAddress]) -> str:
    """``randread/8k/qd1x16 #2, write/4k/qd1x1 #1`` (at most six, then how many more)."""
    names = [f"{a.cell_key} #{a.repetition}" for a in sorted(runs)]
    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
    return ", ".join(names[:6]) + more


def recorded_good(recorded: object) -> frozenset[tuple[str, int]] | None:
    """The (cell, repetition) of the good runs a completed trial recorded (``runs_good``,
    :func:`good_record`'s form: cell -> how many, repetitions 1..n, or the list of them);
    None where it recorded none (a study from before the record)."""
    if not isinstance(recorded, dict):
        return None
    good: set[tuple[str, int]] = set()
    for cell, reps in recorded.items():
        if isinstance(reps, int) and not isinstance(reps, bool):
            good.update((str(cell), rep) for rep in range(1, reps + 1))
        elif isinstance(reps, list):
            good.update((str(cell), rep) for rep in reps if isinstance(rep, int))
    return frozenset(good)


def good_record(runs: pd.DataFrame) -> dict[str, int | list[int]]:
    """cell -> the repetitions of its good runs, for the trial's record: how many where they
    are 1..n (the usual case: a few bytes a cell in Optuna's storage, however large the
    matrix), the list of them otherwise (a repetition that failed for good)."""
    good: dict[str, set[int]] = {}
    if runs.empty:
        return {}
    for cell, rep in zip(runs["cell_key"], runs["repetition"], strict=True):
        good.setdefault(str(cell), set()).add(int(rep))
    return {cell: _counted(sorted(reps)) for cell, reps in sorted(good.items())}


def _counted(reps: list[int]) -> int | list[int]:
    return len(reps) if reps == list(range(1, len(reps) + 1)) else reps
