"""``raidsweep recommend``: the sweep's configurations ranked for each workload class, with the
decision, its evidence and the Pareto set across the classes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import DEFAULT_STORE, ClassOpt, StoreOpt, SweepArg, console, fail
from sweeper.cli.opening import open_sweep, warn_damaged
from sweeper.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from recommender.recommendations import ClassRecommendation


def recommend(
    sweep: SweepArg = None,
    store: StoreOpt = DEFAULT_STORE,
    top: Annotated[int, typer.Option(help="Rows per class.")] = 10,
    classes: ClassOpt = None,
) -> None:
    """Rank the sweep's configurations for each of its workload classes."""
    from recommender.data import load_recommendations
    from recommender.scoring import FORMULA
    from recommender.views import RANK_CAPTION
    from sweeper.status import provisional

    results, record = open_sweep(store, sweep, classes)
    runs = results.runs(record["sweep_id"])
    try:
        recs = load_recommendations(results, record, runs)
    except InputError as exc:
        fail(exc)
    warn_damaged(results)
    if runs.empty:
        console.print(f"sweep {record['sweep_id']} has no runs yet")
        return
    note = provisional(results, record["sweep_id"])
    if note:
        console.print(f"[bold yellow]{escape(note)}[/]", highlight=False)
    prices = (record.get("spec") or {}).get("prices")
    for rec in recs:
        wclass, part = rec.wclass, rec.ranked.head(top)
        console.print(_class_table(rec, part, prices))
        unsteady = int(part["unsteady_runs"].sum()) if len(part) else 0
        if unsteady:
            console.print(
                f"[yellow]{unsteady} run(s) behind these figures did not reach steady state "
                "(SNIA PTS rule); `raidsweep disclose RUN` shows their rounds[/]"
            )
        if rec.missing:
            console.print(f"[yellow]cells not measured for {escape(wclass.name)}: {rec.missing}[/]")
        mark = "(provisional) " if note else ""
        console.print(f"[bold]→ {mark}{escape(rec.sentence())}[/]", highlight=False)
    console.print(
        f"[dim]{escape(RANK_CAPTION)}.\n{FORMULA}; n = repetitions; "
        "usable = share of raw capacity; "
        "loss risk/yr = expected data-loss events per year from rebuilds[/]"
    )
    _print_pareto(recs)


def _class_table(
    rec: ClassRecommendation, part: pd.DataFrame, prices: dict[str, Any] | None
) -> Table:
    """The ranked rows of one class: one column per figure on a wide terminal, else the
    figures under each configuration."""
    from recommender.views import CONFIGURATION, limits_brief, rank_label

    wclass = rec.wclass
    wide = console.width >= 120
    table = Table(title=escape(f"{wclass.name} — {wclass.description}"), title_justify="left")
    table.add_column("rank", no_wrap=True)
    table.add_column(CONFIGURATION if wide else f"{CONFIGURATION} · figures", no_wrap=True)
    if wide:
        table.add_column(f"score ({wclass.metric}) · 95% CI", no_wrap=True, justify="right")
        table.add_column("CV", no_wrap=True, justify="right")
        table.add_column("n", no_wrap=True, justify="right")
        table.add_column("usable", no_wrap=True, justify="right")
        table.add_column("loss risk/yr", no_wrap=True, justify="right")
        if prices:
            table.add_column(f"{prices['currency']}/{wclass.metric}", justify="right")
        table.add_column("limits", overflow="fold")
    for r in part.itertuples():
        colour = "green" if r.meets_limits else "red"
        limits = f"[{colour}]{limits_brief(r.meets_limits, r.violations)}[/]"
        rank_text = rank_label(r.rank, r.tied)
        score = f"{r.score:,.0f} ({r.score_lo:,.0f}–{r.score_hi:,.0f})"
        cv, n = f"{r.cv_pct:.1f}%", str(r.repetitions)
        usable = f"{r.usable_share:.0%}" if r.usable_share == r.usable_share else "–"
        risk = (
            f"{r.loss_risk_per_year:.1e}" if r.loss_risk_per_year == r.loss_risk_per_year else "–"
        )
        if wide:
            cells = [rank_text, r.config_key, score, cv, n, usable, risk]
            if prices:
                cells.append(
                    f"{r.cost_per_unit:,.2f}" if r.cost_per_unit == r.cost_per_unit else "–"
                )
            table.add_row(*cells, limits)
        else:
            figures = (
                f"{score} {wclass.metric} · CV {cv} · n={n} · usable {usable} · "
                f"loss risk/yr {risk}\n{limits}"
            )
            table.add_row(rank_text, f"[bold]{r.config_key}[/]\n{figures}")
    return table


def _print_pareto(recs: list[ClassRecommendation]) -> None:
    """The configurations no other beats in every class, with their scores."""
    import pandas as pd

    from recommender.pareto import pareto_set

    front = pareto_set(pd.concat([r.ranked for r in recs], ignore_index=True))
    if len(front):
        names = ", ".join(str(c) for c in front.columns)
        console.print(
            f"[bold]Pareto set across {names}[/] (no other configuration is better in every class):"
        )
        for key, row in front.iterrows():
            figures = " · ".join(f"{c} {v:,.0f}" for c, v in row.items())
            console.print(f"  {key}  [dim]{figures}[/]", highlight=False)
