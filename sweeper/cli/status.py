"""``raidsweep status``: the sweeps in the store and how far each has come."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, fitted, json_flag
from sweeper.cli.opening import latest_sweep, warn_damaged
from sweeper.units import format_duration
from sweeper.untrusted import shown_text

if TYPE_CHECKING:
    from sweeper.status import SweepStatus
    from sweeper.store import ResultsStore


def status(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: all).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    as_json: Annotated[bool, json_flag("status")] = False,
) -> None:
    """Show sweeps in the store and how far each has come."""
    from sweeper.store import open_store

    results = open_store(store)
    records = [latest_sweep(results, sweep)] if sweep is not None else results.list_sweeps()
    statuses = _statuses(results, [rec["sweep_id"] for rec in records])
    if as_json:
        from recommender.views.documents import status_document
        from sweeper.evidence_text import evidence_document

        doc = status_document(statuses)
        for entry, s in zip(doc["sweeps"], statuses, strict=True):
            entry["evidence"] = evidence_document(s.evidence)
        print(json.dumps(doc, indent=2))
        return
    if not records:
        absent = (
            ""
            if store.exists()
            else ": there is no folder there (is --store, or RAIDSWEEP_STORE, the store you meant?)"
        )
        console.print(f"no sweeps in {escape(shown_text(str(store)))}{absent}", soft_wrap=True)
        return
    from sweeper.evidence_text import class_line, headline

    table = Table("sweep", "state", "configurations", "runs", "failed runs", "array time")
    stacked = []  # where the table is too wide: never cut (the state names the configuration
    decisions = []  # an operator is to build)
    for s in statuses:
        if s.evidence is not None:
            lines = [headline(s.evidence), *map(class_line, s.evidence.get("classes", []))]
            decisions.append((s.sweep_id, lines))
        row = tuple(map(escape, _row(s)))
        table.add_row(*row)
        stacked += [
            f"[bold]{row[0]}[/]: {row[1]}",
            f"  configurations {row[2]}, runs {row[3]}, failed runs {row[4]}",
            f"  array time {row[5]}",
        ]
    console.print(fitted(table, stacked))
    for sweep_id, lines in decisions:
        console.print(f"[bold]{escape(sweep_id)}[/]: {escape(lines[0])}", highlight=False)
        for line in lines[1:]:
            console.print(f"  {escape(line)}", highlight=False)


def _statuses(results: ResultsStore, sweep_ids: list[str]) -> list[SweepStatus]:
    """Each sweep's status; then every warning of the reads behind them, each naming its
    file once: what the listing of the store left out, and each sweep's damaged progress
    records and run files (each read of runs says its own anew)."""
    from sweeper.status import sweep_status

    said = list(getattr(results, "damaged", []))
    statuses = []
    for sweep_id in sweep_ids:
        statuses.append(sweep_status(results, sweep_id))
        said += getattr(results, "damaged", [])
    if hasattr(results, "damaged"):
        results.damaged = said  # what warn_damaged says
    warn_damaged(results)
    return statuses


def _row(s: SweepStatus) -> tuple[str, ...]:
    """The sweep's row of the table, as text (markup is escaped by the caller); a total no
    progress record gave reads '?', not 0."""
    known = s.totals_known  # without them, which configurations are done is not known either
    configs = f"{s.configurations_done}/{s.configurations_total}" if known else "?"
    runs = s.runs_total if known else "?"
    array_total = format_duration(s.array_s_total) if known else "?"
    return (
        s.sweep_id,
        s.state if s.waiting is None else f"{s.state}: {s.waiting}",
        configs,
        f"{s.runs_done}/{runs}",
        str(s.runs_failed),
        f"{format_duration(s.array_s_used)} of {array_total}",
    )
