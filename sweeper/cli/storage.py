"""``raidsweep plan`` and ``raidsweep teardown``: what a sweep would build on the test storage,
and removing what it built.

A sweep's storage is what its plain run built (the platform's state in ``array``) and what
each of its workers built (``run --worker NAME``: ``array-NAME``). ``teardown SPEC`` removes
all of it, holding the sweep's lock and every worker's, so that no run or worker of the sweep
can start while the storage is taken down; it is refused (exit status 2, naming them) while
any worker runs. ``teardown SPEC --worker NAME`` removes only what worker NAME built."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from sweeper.cli.opening import WORKER_NAME, open_sweeper, warn_busy

if TYPE_CHECKING:
    from sweeper.locking import LockHeld
    from sweeper.platforms.base import Platform
    from sweeper.sweep import Sweeper

TeardownWorkerOpt = Annotated[
    str | None,
    typer.Option(
        "--worker",
        help="Remove only what this worker (run --worker NAME) built; without it, what the "
        "sweep and every one of its workers built.",
    ),
]


def plan(
    spec_file: SpecArg,
    store: PlayStoreOpt = DEFAULT_STORE,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Plan only the first N configurations.")
    ] = None,
) -> None:
    """What each configuration would create and destroy on the test storage (Ansible check
    mode, from the storage as it is now); nothing is changed."""
    from sweeper.storage import plan_configurations

    check_lock_folder(make=False)  # RAIDSWEEP_LOCK_DIR: it says who else is at work
    sweeper = open_sweeper(spec_file, store)
    warn_busy(sweeper)  # a plan from storage another sweep is changing may be stale
    configs = sweeper.plan.configurations[:limit]
    failed = 0
    for item in plan_configurations(sweeper.platform, sweeper.inventory, configs):
        console.print(f"[bold]{escape(item.config.key)}[/]", highlight=False)
        if item.play is not None and not item.play.ok:
            failed += 1
            err.print(f"  [red]would fail:[/] {escape(item.play.failure())}", highlight=False)
            continue
        for line in item.actions:
            console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
    console.print("nothing was changed (check mode)")
    if failed:
        raise typer.Exit(1)


def teardown(
    spec_file: SpecArg,
    store: PlayStoreOpt = DEFAULT_STORE,
    check: CheckOpt = False,
    worker: TeardownWorkerOpt = None,
) -> None:
    """Remove what the sweep (and each of its workers) built on the test storage, leaving it
    as it was found; refused while a run or a worker of the sweep drives it."""
    from sweeper.locking import LockHeld
    from sweeper.storage import actions
    from sweeper.storage import teardown as run_teardown

    check_lock_folder(make=False)  # RAIDSWEEP_LOCK_DIR, before any play or any write
    # In teardown's words, before the preflight's first play; Sweeper.refuse_if_busy
    # (open_sweeper's ``exclusive``) then refuses any other holder, and the locks held below
    # keep the sweep's runs and workers from starting until the teardown ends.
    _refuse_early(spec_file, store, worker, check=check)
    sweeper = open_sweeper(spec_file, store, exclusive=not check, worker=worker)
    parts = _storage_parts(sweeper)
    if check:
        _notes(sweeper)
    else:
        check_lock_folder(make=True)
    done: list[tuple[str, list[str]]] = []
    try:
        # Never under a sweep or a worker that drives this storage; --check only looks.
        with contextlib.nullcontext() if check else _holding(sweeper, parts):
            for part in parts:
                play = run_teardown(part.platform, sweeper.inventory, check=check)
                if not play.ok:
                    if done:  # what the parts before it did
                        _said(done, len(parts))
                    where = f" ({part.label})" if len(parts) > 1 else ""
                    failure = escape(play.failure())
                    err.print(f"[bold red]teardown failed{where}:[/] {failure}", highlight=False)
                    raise typer.Exit(1)
                done.append((part.label, actions(play, done=not check)))
    except LockHeld as exc:
        fail(exc)
    _said(done, len(parts))
    console.print("nothing was changed (--check)" if check else "torn down")


@dataclass(frozen=True)
class StoragePart:
    """What one sweeper of the sweep (its plain run, or one worker) built: its platform,
    whose state folder and teardown variables are that sweeper's own."""

    label: str
    platform: Platform


def worker_names(sweep_dir: Path) -> list[str]:
    """The workers that ran the sweep from this store (a run lock of theirs in the sweep's
    folder) or built storage there (their platform's state folder, ``array-NAME``), by name;
    a file whose name is no worker's is not one."""
    names: set[str] = set()
    with contextlib.suppress(OSError):
        for path in sweep_dir.iterdir():
            name = path.name
            if name.startswith(".run-") and name.endswith(".lock"):
                names.add(name[len(".run-") : -len(".lock")])
            elif name.startswith("array-") and path.is_dir():
                names.add(name[len("array-") :])
    return sorted(n for n in names if WORKER_NAME.fullmatch(n))


def _storage_parts(sweeper: Sweeper) -> list[StoragePart]:
    """The sweeper's own storage and, for a teardown of the whole sweep, each worker's; one
    part per distinct teardown (platforms whose storage has fixed names, as linux_md's
    volume group, tear it down once)."""
    from sweeper.platforms import get_platform

    own = "worker " + sweeper.worker if sweeper.worker else f"sweep {sweeper.spec.name}"
    parts = [StoragePart(own, sweeper.platform)]
    if sweeper.worker is not None:
        return parts
    seen = [sweeper.platform.teardown_extravars()]
    spec = sweeper.spec
    for name in worker_names(sweeper.sweep_dir):
        # the worker's platform as its Sweeper makes it: the same spec, its own state folder
        state = sweeper.platform.state_dir.with_name(f"array-{name}")
        platform = get_platform(spec.platform, spec.platform_options, state, sweeper.inventory)
        variables = platform.teardown_extravars()
        if variables in seen:
            continue
        seen.append(variables)
        parts.append(StoragePart(f"worker {name}", platform))
    return parts


@contextlib.contextmanager
def _holding(sweeper: Sweeper, parts: list[StoragePart]) -> Iterator[None]:
    """The sweeper's own locks (its run lock, its storage's targets) and, for a teardown of
    the whole sweep, every worker's run lock and the targets of each worker's storage:
    LockHeld naming the holder if a run or a worker of the sweep is at work, and nothing
    taken. Held, they keep any of them from starting until the teardown ends."""
    from sweeper.locking import hold, lock_record, target_locks
    from sweeper.study import worker_lock

    name, root = sweeper.spec.name, sweeper.store.root
    more: dict[Path, str] = {}
    for other in worker_names(sweeper.sweep_dir) if sweeper.worker is None else []:
        more[worker_lock(sweeper.sweep_dir, other)] = f"sweep {name!r} (worker {other}) in {root}"
    for part in parts[1:]:  # the first is the sweeper's own: its targets are in its locks
        more |= target_locks(part.platform.target_identity())
    what = f"raidsweep teardown {name}"
    with sweeper.holding(what):
        mine = sweeper.locks()
        others = {path: subject for path, subject in more.items() if path not in mine}
        with hold(others, lock_record(what, sweep=name, store=str(root))):
            yield


def _refuse_early(spec_file: Path, store: Path, worker: str | None, *, check: bool) -> None:
    """Exit 2 for a teardown that must not begin: of the whole sweep while workers run it
    (``live_workers``, what a run refuses beside: each named), a teardown would take their
    storage from under them; of a worker that never ran the sweep from this store, there is
    nothing of its to remove (and no run lock of its is made). A spec that does not load,
    or a worker name that is none, is left to ``open_sweeper`` to name."""
    from sweeper.errors import InputError
    from sweeper.spec import load_spec
    from sweeper.store import open_store

    if worker is not None and not WORKER_NAME.fullmatch(worker):
        return
    try:
        spec, _ = load_spec(spec_file)
    except (InputError, ValueError, OSError):
        return
    results = open_store(store)
    sweep_dir = results.sweep_dir(spec.name)
    if worker is None:
        refusal = None if check else _workers_refusal(sweep_dir, spec.name, results.root)
        if refusal is not None:
            fail(refusal)
        return
    known = worker_names(sweep_dir)
    if worker not in known:
        them = f"its workers here: {', '.join(known)}" if known else "it has no workers here"
        fail(
            InputError(
                "--worker",
                [
                    f"worker {worker!r} never ran sweep {spec.name!r} from {results.root} "
                    f"(no run lock or storage of its there): nothing of its to remove; {them}"
                ],
            )
        )


def _workers_refusal(sweep_dir: Path, name: str, store: Path) -> LockHeld | None:
    """The refusal a teardown of the whole sweep gets while workers run it, or None."""
    from sweeper.study import workers_refusal

    return workers_refusal(
        sweep_dir,
        f"sweep {name!r} in {store}",
        lambda names, pids: (
            f"a teardown would remove the storage that worker(s) {names} measure: wait for "
            f"them to finish, or stop them (Ctrl-C, or kill {pids}), then tear down (a "
            "worker's storage alone: --worker NAME, once that worker has stopped)"
        ),
    )


def _notes(sweeper: Sweeper) -> None:
    """For ``--check``: who is at work on this sweep or its storage now, in teardown's words
    for the workers (a teardown now would be refused)."""
    from sweeper.locking import holders

    found = holders(sweeper.locks())
    if sweeper.worker is None:
        refusal = _workers_refusal(sweeper.sweep_dir, sweeper.spec.name, sweeper.store.root)
        found += [refusal] if refusal is not None else []
    for held in found:
        for problem in held.problems:
            err.print(
                f"[yellow]note:[/] {escape(held.source)} is {escape(problem)}",
                highlight=False,
                soft_wrap=True,
            )


def _said(done: list[tuple[str, list[str]]], parts: int) -> None:
    """What each part's teardown did (or would do); each under its sweeper's name where
    workers built storage of their own."""
    lines = [line for _, said in done for line in said]
    if not lines:
        console.print("  nothing to remove")
        return
    for label, said in done:
        if parts > 1:
            console.print(f"{escape(label)}:", highlight=False)
        for line in said or ["nothing to remove"]:
            console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
