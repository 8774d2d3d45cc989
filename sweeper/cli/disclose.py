"""``raidsweep disclose``: the full disclosure record of a run or a sweep, in YAML or JSON."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, err, fail
from sweeper.cli.opening import latest_sweep, warn_damaged
from sweeper.errors import StoreError


def disclose(
    what: Annotated[
        str | None,
        typer.Argument(help="A run id (24 hex digits) or a sweep name (default: latest)."),
    ] = None,
    store: StoreOpt = DEFAULT_STORE,
    fmt: Annotated[str, typer.Option("--format", help="yaml or json.")] = "yaml",
    fio_output: Annotated[
        bool, typer.Option("--fio-output", help="With a run: include fio's JSON output.")
    ] = False,
    attempt: Annotated[
        int | None,
        typer.Option(
            "--attempt",
            help="With a run: its Nth attempt (1 is the first; a cell may fail before it "
            "succeeds). Default: the good run, else the latest.",
        ),
    ] = None,
) -> None:
    """Print the full disclosure record of a run or a sweep."""
    import json

    from sweeper.disclosure import run_disclosure, sweep_disclosure, to_yaml
    from sweeper.store import open_store
    from sweeper.vocabulary import RUN_ID_RE

    if fmt not in ("yaml", "json"):
        fail(ValueError(f"--format: {fmt!r} is not yaml or json"))
    results = open_store(store)
    doc = None
    # a run id as raidsweep writes it (lower case), or as copied from elsewhere (upper case)
    if what is not None and RUN_ID_RE.fullmatch(run_id := what.lower()):
        attempts = results.run_attempts(run_id)
        chosen = _checked_attempt(attempt, len(attempts))
        doc = run_disclosure(results, run_id, fio_output=fio_output, attempt=chosen)
        if doc is not None:
            warn_damaged(results)
            _say_attempts(run_id, attempts, attempt)
        # a sweep may be named with 24 hex digits too: a run first, then that sweep
        if doc is None and results.get_sweep(what) is None:
            fail(StoreError(f"no run or sweep {what} in {results.root}"))
    if doc is None:
        if fio_output:
            fail(ValueError("--fio-output: a run's, not a sweep's (give a run id)"))
        if attempt is not None:
            fail(ValueError("--attempt: a run's, not a sweep's (give a run id)"))
        doc = sweep_disclosure(results, latest_sweep(results, what))
    if fmt == "json":
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(to_yaml(doc), end="")


def _checked_attempt(attempt: int | None, count: int) -> int | None:
    """``--attempt`` as given, exit 2 naming the valid range when the run has no such
    attempt (checked before anything is printed). A run id the store does not hold has no
    attempts: it is left to the sweep of that name, or to the "no run or sweep" error."""
    if attempt is None or count == 0 or 1 <= attempt <= count:
        return attempt
    valid = "1, the run's one attempt" if count == 1 else f"1 to {count}, the run's attempts"
    fail(ValueError(f"--attempt: {attempt} is not {valid}"))


def _say_attempts(run_id: str, attempts: list[dict[str, Any]], attempt: int | None) -> None:
    """On stderr (the record on stdout stays whole YAML or JSON): which attempt is shown
    when the run has several, and how to read the others."""
    count = len(attempts)
    if count < 2:
        return
    failed = sum(a["status"] != "ok" for a in attempts)
    held = f"{failed} failed, then the good run" if failed < count else "all failed"
    err.print(
        f"run {run_id}: {count} attempts ({held}); this is attempt {attempt or count}. "
        f"Another: raidsweep disclose {run_id} --attempt N (1 to {count})",
        highlight=False,
        soft_wrap=True,
    )
