"""``raidsweep drift``: the long-run drift of the matrix's drift cell, per configuration."""

from __future__ import annotations

import math

from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, SweepArg, console, fail, fitted
from sweeper.cli.opening import open_sweep


def drift(sweep: SweepArg = None, store: StoreOpt = DEFAULT_STORE) -> None:
    """Long-run drift of the matrix's drift cell, per configuration."""
    from recommender.drift import drift_table
    from recommender.views import CONFIGURATION

    results, record = open_sweep(store, sweep)
    rule = record.get("spec", {}).get("matrix", {}).get("drift")
    if not rule:
        fail(ValueError(f"sweep {record['sweep_id']} has no matrix.drift cell"))
    table_df = drift_table(results.runs(record["sweep_id"]), rule["cell"])
    if table_df.empty:
        console.print(f"no configuration has three runs of {escape(str(rule['cell']))} yet")
        return
    table = Table(
        CONFIGURATION,
        "runs",
        "hours",
        "first → last IOPS",
        "slope %/h (95% CI)",
        "p",
        "run-to-run r",
        "drift",
        title=f"drift of {rule['cell']}",
        title_justify="left",
    )
    stacked = [f"[bold]drift of {escape(rule['cell'])}[/]"]
    for r in table_df.itertuples():
        cells = (
            str(r.runs),
            f"{r.hours:.2f}",
            f"{r.first_iops:,.0f} → {r.last_iops:,.0f}",
            f"{r.slope_pct_per_h:+.2f} ({r.slope_lo:+.2f} … {r.slope_hi:+.2f})",
            f"{r.p_value:.3g}",
            "—" if math.isnan(r.autocorrelation) else f"{r.autocorrelation:+.2f}",
        )
        verdict = "[red]yes[/]" if r.drifts else "no"
        table.add_row(r.config_key, *cells, verdict)
        stacked += [
            f"[bold]{escape(r.config_key)}[/]: drift {verdict}",
            f"  {cells[0]} runs over {cells[1]} h, IOPS {cells[2]}",
            f"  slope {cells[3]} %/h, p {cells[4]}, run-to-run r {cells[5]}",
        ]
    console.print(fitted(table, stacked))
    console.print(
        "[dim]slope of IOPS on start time, in % of the mean per hour, fitted with the runs' "
        "autocorrelation (r: one run's residual against the next; GLS with AR(1) errors from "
        "10 runs, least squares below); a drift when the 95% interval excludes zero[/]"
    )
