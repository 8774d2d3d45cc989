"""``raidsweep disclose``: the full disclosure record of a run or a sweep, in YAML or JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, fail
from sweeper.cli.opening import latest_sweep
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
    if what is not None and RUN_ID_RE.fullmatch(what):
        doc = run_disclosure(results, what, fio_output=fio_output)
        # a sweep may be named with 24 hex digits too: a run first, then that sweep
        if doc is None and results.get_sweep(what) is None:
            fail(StoreError(f"no run or sweep {what} in {results.root}"))
    if doc is None:
        if fio_output:
            fail(ValueError("--fio-output: a run's, not a sweep's (give a run id)"))
        doc = sweep_disclosure(results, latest_sweep(results, what))
    if fmt == "json":
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(to_yaml(doc), end="")
