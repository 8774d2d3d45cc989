"""``raidsweep plan`` and ``raidsweep teardown``: what a sweep would build on the test storage,
and removing what it built."""

from __future__ import annotations

import contextlib
from typing import Annotated

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
) -> None:
    """Remove what the sweep built on the test storage, leaving it as it was found."""
    from sweeper.locking import LockHeld
    from sweeper.storage import actions
    from sweeper.storage import teardown as run_teardown

    check_lock_folder(make=False)  # RAIDSWEEP_LOCK_DIR, before any play or any write
    sweeper = open_sweeper(spec_file, store, exclusive=not check)
    if check:
        warn_busy(sweeper)
    else:
        check_lock_folder(make=True)
    try:
        # Never under a sweep that drives this storage; --check only looks.
        with contextlib.nullcontext() if check else sweeper.holding("raidsweep teardown"):
            play = run_teardown(sweeper.platform, sweeper.inventory, check=check)
    except LockHeld as exc:
        fail(exc)
    if not play.ok:
        err.print(f"[bold red]teardown failed:[/] {escape(play.failure())}", highlight=False)
        raise typer.Exit(1)
    for line in actions(play, done=not check) or ["nothing to remove"]:
        console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
    console.print("nothing was changed (--check)" if check else "torn down")
