"""``raidsweep curves``: each concurrency curve's Speed, Optimum (the knee) and Maximum."""

from __future__ import annotations

import json
from typing import Annotated, Any

from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, SweepArg, console, fitted, json_flag
from sweeper.cli.opening import open_sweep


def curves(
    sweep: SweepArg = None,
    store: StoreOpt = DEFAULT_STORE,
    as_json: Annotated[bool, json_flag("curves")] = False,
) -> None:
    """Concurrency curves: Speed, Optimum (the knee) and Maximum of each."""
    from recommender.curves import KNEE_RULE, sweep_curves
    from recommender.views import CONFIGURATION, curve_point_text

    results, record = open_sweep(store, sweep)
    matrix = record["spec"]["matrix"] if record.get("spec") else {}
    table_df = sweep_curves(results.runs(record["sweep_id"]), matrix)
    if as_json:
        from recommender.views.documents import curves_document

        print(json.dumps(curves_document(record["sweep_id"], table_df), indent=2))
        return
    if table_df.empty:
        console.print(
            f"sweep {record['sweep_id']} has no curve (a pattern and block size "
            "measured at two or more concurrencies)"
        )
        return
    table = Table(
        CONFIGURATION,
        "curve",
        "points",
        "Speed",
        "Optimum (knee)",
        "Maximum",
        title="IOPS @ mean latency, by I/Os in flight",
        title_justify="left",
    )

    point = curve_point_text  # as the report and the app write it: 433.5 @ 2.30 ms

    stacked = []  # each curve as a few lines where the table is wider than the terminal
    for r in table_df.itertuples():
        if r.optimum is None:
            optimum = f"– ({r.note})"  # why there is none
        else:
            optimum = point(r.optimum)
        row = (str(len(r.points)), point(r.speed), optimum, point(r.maximum))
        table.add_row(r.config_key, _curve(r), *row)
        stacked += [
            f"[bold]{escape(r.config_key)}[/] {escape(_curve(r))} ({row[0]} points)",
            f"  Speed {escape(row[1])}",
            f"  Optimum (knee) {escape(optimum)}",
            f"  Maximum {escape(row[3])}",
        ]
    console.print(fitted(table, ["[bold]IOPS @ mean latency, by I/Os in flight[/]", *stacked]))
    for r in table_df.itertuples():
        if r.optimum is not None and r.note != KNEE_RULE:
            said = r.note.removeprefix(KNEE_RULE + "; ")
            console.print(f"{escape(r.config_key)} {escape(_curve(r))}: {escape(said)}")
    for r in table_df[table_df["stopped"].notna()].itertuples():
        console.print(
            f"[yellow]{r.config_key} {_curve(r)}: stopped: {r.stopped}[/]", highlight=False
        )
    console.print(
        f"[dim]Optimum: {KNEE_RULE}; Speed: fewest I/Os in flight; Maximum: highest IOPS[/]"
    )


def _curve(r: Any) -> str:
    """The curve's name: its cells' key without the concurrency, ``randread/8k/ws10``."""
    return str(r.curve)
