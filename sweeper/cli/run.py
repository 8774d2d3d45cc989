"""``raidsweep run``: run (or resume) a sweep, or with ``--check`` show its plan."""

from __future__ import annotations

import shlex
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from sweeper.cli.common import (
    DEFAULT_STORE,
    CheckOpt,
    PlayStoreOpt,
    SpecArg,
    check_lock_folder,
    console,
    err,
    fail,
)
from sweeper.cli.opening import open_sweeper, warn_busy
from sweeper.errors import StoreError
from sweeper.units import format_duration

WorkerOpt = Annotated[
    str | None,
    typer.Option(
        "--worker",
        help="This sweeper's name when several share the study (study.storage): each "
        "drives its own test storage and resumes only its own configurations.",
    ),
]


def run(
    spec_file: SpecArg,
    store: PlayStoreOpt = DEFAULT_STORE,
    check: CheckOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    worker: WorkerOpt = None,
) -> None:
    """Run (or resume) the sweep of SPEC_FILE. Exit status 0 every configuration tried was
    measured, 3 some failed and the others were measured, 1 none was (each failed; their
    logs are named) or the sweep stopped on a problem, 2 bad input, 130 interrupted."""
    from recommender.classes import load_classes, matrix_gaps
    from sweeper.cli.progress import BarProgress
    from sweeper.cli.prompt import TerminalPrompt
    from sweeper.locking import LockHeld

    check_lock_folder(make=False)  # RAIDSWEEP_LOCK_DIR, before any play or any write
    stop = threading.Event()
    sweeper = open_sweeper(
        spec_file,
        store,
        exclusive=not check,
        worker=worker,
        progress=None if quiet or check else BarProgress(console),
        stop=stop,
        # A person at the terminal can answer a manual sweep right here.
        prompt=TerminalPrompt(console) if sys.stdin.isatty() and not check else None,
    )
    spec, plan = sweeper.spec, sweeper.plan
    # the classes as their files say (the sweeper's have their stand-ins in place already)
    named = load_classes(spec.classes, sweeper.hardware.get("media"))
    for line in matrix_gaps(named, [c.key for c in spec.matrix.cells()]):
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    # --check refuses what the run would refuse: a name the store holds for another spec
    existing = _same_sweep(sweeper, store) if store.is_dir() else None
    if check:
        _print_plan(spec, plan)
        if existing is not None:
            stored = len(sweeper.store.done_addresses(spec.name))
            console.print(
                f"{stored} of its runs are stored already ({escape(str(store))}): "
                f"{max(0, plan.runs - stored)} left to run"
            )
        for line in sweeper.platform.plan_lines(spec.matrix):
            console.print(f"  [bold]{escape(line)}[/]", highlight=False)
        warn_busy(sweeper)
        console.print("nothing was changed (--check)")
        return
    check_lock_folder(make=True)  # the locks' folder can be used: then the store's is made
    _make_store(store)

    # first Ctrl-C: finish cleanly; second: stop now
    def on_sigint(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print("[yellow]stopping after the run in flight (Ctrl-C again to abort)[/]")

    signal.signal(signal.SIGINT, on_sigint)
    signal.signal(signal.SIGTERM, on_sigint)
    try:
        outcome = sweeper.run()
    except (LockHeld, StoreError) as exc:  # another process holds it; the store is read-only
        fail(exc)
    _print_outcome(spec.name, spec_file, outcome, store)


def _same_sweep(sweeper: Any, store: Path) -> dict[str, Any] | None:
    """The store's record of this sweep, if it has one; exit 2 when it holds the name for a
    different spec (or cannot be read)."""
    spec = sweeper.spec
    try:
        existing = sweeper.store.get_sweep(spec.name)
    except StoreError as exc:
        fail(exc)
    if existing is not None and existing.get("fingerprint") != spec.fingerprint():
        fail(
            StoreError(
                f"sweep {spec.name!r} already exists in {store} with a different spec; "
                "give the new spec another name, or remove the old sweep's folder"
            )
        )
    return existing


def _make_store(store: Path) -> None:
    """The store's folder, made if it is not there yet; exit 2 where it cannot be made
    (before anything of the sweep is written or changed). One that is there but cannot be
    written is named by the sweep's first write (``Sweeper.run``)."""
    try:
        store.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = f"cannot be made a folder ({exc.strerror})"
        fail(StoreError(f"{store}: {why}; choose another --store"))


#: ``raidsweep run``'s exit status when some configurations failed and others were measured
#: (1: none was measured, or the sweep stopped on a problem; 130: interrupted; 2: bad input)
PARTLY_FAILED = 3


def _print_outcome(name: str, spec_file: Path, outcome: Any, store: Path) -> None:
    """What the run did, and its exit status: 0 when every configuration it tried was
    measured (or pruned); 1 when it stopped on a problem, or when configurations failed and
    the sweep has measured none (nothing to rank); ``PARTLY_FAILED`` (3) when configurations
    failed and others were measured (the ranking lacks the failed ones; a run again tries
    them again); 130 when interrupted. A failure is named with where its logs are."""
    stored = max(outcome.runs_skipped, outcome.runs_stored_before)
    console.print(
        f"sweep [bold]{name}[/]: {outcome.configurations_done} configuration(s) completed, "
        f"{outcome.runs_written} run(s) written, {stored} already stored, "
        f"{outcome.runs_failed} failed; array time {format_duration(outcome.array_s)}"
    )
    if outcome.evidence is not None:
        _print_evidence(outcome.evidence)
    for line in outcome.stale_locks:  # a killed sweep's: its runs were resumed
        err.print(
            f"[yellow]took over a lock left by a process that is gone:[/] {escape(line)}",
            highlight=False,
            soft_wrap=True,
        )
    for line in outcome.warnings:
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)
    for key, reason in outcome.configurations_pruned.items():
        console.print(f"[yellow]pruned[/] {key}: {escape(reason)}", highlight=False)
    if outcome.cells_skipped:
        console.print(
            f"{len(outcome.cells_skipped)} cell(s) not run: their concurrency curve had stopped "
            "(`raidsweep curves` shows where and why)"
        )
    for key, reason in outcome.configurations_failed.items():
        console.print(f"[red]configuration failed:[/] {key}: {escape(reason)}", highlight=False)
    if outcome.stopped:
        err.print(f"[bold red]stopped:[/] {escape(outcome.stopped)}", highlight=False)
        err.print(f"once that is fixed, run raidsweep run {escape(str(spec_file))} again to resume")
        raise typer.Exit(1)
    if outcome.interrupted:
        console.print(
            f"interrupted: run [bold]raidsweep run {escape(str(spec_file))}[/] again to resume"
        )
        raise typer.Exit(130)
    if outcome.configurations_failed:
        raise typer.Exit(_print_failed(name, spec_file, outcome, store))


def _print_failed(name: str, spec_file: Path, outcome: Any, store: Path) -> int:
    """The configurations that failed, where their logs are, and the exit status: 1 when
    the sweep has measured no configuration at all (none completed or pruned now, no good
    run stored before), else ``PARTLY_FAILED``."""
    failed = list(outcome.configurations_failed)
    measured_none = (
        not outcome.configurations_done
        and not outcome.configurations_pruned
        and not outcome.runs_stored_before
    )
    keys = ", ".join(failed)
    if measured_none:
        err.print(
            "[bold red]error:[/] no configuration was measured: every configuration the "
            f"sweep tried failed ({len(failed)}: {escape(keys)}); there is nothing to rank",
            highlight=False,
            soft_wrap=True,
        )
    else:
        err.print(
            f"[yellow]{len(failed)} configuration(s) failed[/] ({escape(keys)}): the "
            "ranking holds the configurations measured, not these",
            highlight=False,
            soft_wrap=True,
        )
    where = f"--store {shlex.quote(str(store))}"
    # a sweep's name is letters, digits, '.', '_' and '-' (NAME_RE): a literal as it is
    failed_rows = f"WHERE sweep_id = '{name}' AND status = 'failed'"
    columns = "config_key, failed_task, error, ansible_stdout"
    plays = f"SELECT {columns} FROM configurations {failed_rows}"  # noqa: S608
    runs = f"SELECT config_key, cell_key, error FROM runs {failed_rows}"  # noqa: S608
    err.print(
        "their logs are kept in the store: each failed play's task, error and output "
        f'(raidsweep sql "{plays}" {where}) and each failed run\'s error '
        f'(raidsweep sql "{runs}" {where})',
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    err.print(
        f"once the cause is fixed, run raidsweep run {escape(str(spec_file))} again to "
        "measure them",
        highlight=False,
        soft_wrap=True,
    )
    return 1 if measured_none else PARTLY_FAILED


def _print_evidence(decision: Any) -> None:
    """Stopping by evidence: why the sweep stopped, and per class how sure it is of its pick."""
    within, level = f"{decision.within_pct:g}%", f"{decision.confidence:.0%}"
    if decision.stop:
        console.print(
            f"[green]stopped by evidence:[/] every class's pick is within {within} of the best "
            f"of all {decision.space} configurations with at least {level} confidence "
            f"({decision.measured} measured)"
        )
    else:
        console.print(
            f"[yellow]the evidence does not yet show[/] every class's pick within {within} of "
            f"the best of all {decision.space} configurations with {level} confidence "
            f"({decision.measured} measured); the pick is provisional where it says so"
        )
    width = max(len(c.name) for c in decision.classes)
    for c in decision.classes:
        if c.unsure:
            why = f"not judged: {c.unsure}"
        else:
            # 2000 samples of the surrogate: nothing above 99.9% is resolved
            sure = "> 99.9%" if c.confidence > 0.999 else f"{c.confidence:.1%}"
            why = f"{sure} sure it is within {within} of the best"
            if not c.confident and c.threat:
                why += f" (might be beaten by {c.threat}, not ruled out)"
        mark = "" if c.confident else " [yellow]provisional[/]"
        console.print(f"  {c.name:{width}s} {escape(c.pick or '-')}: {escape(why)}{mark}")


def _print_plan(spec: Any, plan: Any) -> None:
    extra = plan.extra_runs_per_configuration
    drift = f" + {len(plan.configurations)} × {extra} more of the drift cell" if extra else ""
    if spec.study.mode == "optimize":
        console.print(
            f"the study chooses up to {len(plan.configurations)} of {plan.space_size} "
            "configurations; totals below assume that many"
        )
    console.print(
        f"[bold]{spec.name}[/] on platform [bold]{spec.platform}[/] ({spec.study.mode} mode): "
        f"{len(plan.configurations)} configuration(s) × {len(plan.cells)} cell(s) × "
        f"{plan.repetitions} repetition(s){drift} = {plan.runs} runs"
    )
    skipped = len(spec.matrix.cells()) - len(plan.cells)
    if skipped:
        console.print(
            f"only the cells the classes score are measured ({skipped} other matrix cell(s) "
            "not; study.measure: all measures them too)"
        )
    dyn = spec.matrix.dynamic_repetitions
    if dyn is not None:
        console.print(
            f"a cell is repeated up to {dyn.max} times while its IOPS vary by more than "
            f"{dyn.cv_pct:g}% (CV); totals below count {plan.repetitions}"
        )
    saved = plan.listed_reconfig_array_s - plan.reconfig_array_s
    order = (
        f" in build order (listed order: {format_duration(plan.listed_reconfig_array_s)})"
        if spec.study.mode == "grid" and saved > 0
        else ""
    )
    console.print(
        f"array time: runs {format_duration(plan.run_array_s * plan.runs)}, "
        f"reconfiguration {format_duration(plan.reconfig_array_s)}{order}, "
        f"total {format_duration(plan.array_s)}"
    )
    for c in plan.configurations:
        console.print(f"  {escape(c.key)}", highlight=False)
