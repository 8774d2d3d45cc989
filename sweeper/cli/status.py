"""``raidsweep status``: the sweeps in the store and how far each has come."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, json_flag
from sweeper.cli.opening import latest_sweep, warn_damaged
from sweeper.units import format_duration


def status(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: all).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    as_json: Annotated[bool, json_flag("status")] = False,
) -> None:
    """Show sweeps in the store and how far each has come."""
    from sweeper.status import sweep_status
    from sweeper.store import open_store

    results = open_store(store)
    records = [latest_sweep(results, sweep)] if sweep else results.list_sweeps()
    warn_damaged(results)
    if as_json:
        from recommender.views.documents import status_document
        from sweeper.evidence_text import evidence_document

        statuses = [sweep_status(results, rec["sweep_id"]) for rec in records]
        doc = status_document(statuses)
        for entry, s in zip(doc["sweeps"], statuses, strict=True):
            entry["evidence"] = evidence_document(s.evidence)
        print(json.dumps(doc, indent=2))
        return
    if not records:
        console.print(f"no sweeps in {escape(str(store))}")
        return
    from sweeper.evidence_text import class_line, headline

    table = Table("sweep", "state", "configurations", "runs", "failed runs", "array time")
    decisions = []
    for rec in records:
        s = sweep_status(results, rec["sweep_id"])
        if s.evidence is not None:
            lines = [headline(s.evidence), *map(class_line, s.evidence.get("classes", []))]
            decisions.append((rec["sweep_id"], lines))
        table.add_row(
            rec["sweep_id"],
            s.state if s.waiting is None else f"{s.state}: {s.waiting}",
            f"{s.configurations_done}/{s.configurations_total}",
            f"{s.runs_done}/{s.runs_total}",
            str(s.runs_failed),
            f"{format_duration(s.array_s_used)} of {format_duration(s.array_s_total)}",
        )
    console.print(table)
    for sweep_id, lines in decisions:
        console.print(f"[bold]{escape(sweep_id)}[/]: {escape(lines[0])}", highlight=False)
        for line in lines[1:]:
            console.print(f"  {escape(line)}", highlight=False)
