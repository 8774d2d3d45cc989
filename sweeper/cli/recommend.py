"""``raidsweep recommend``: the sweep's configurations ranked for each workload class, with the
decision, its evidence and the Pareto set across the classes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from sweeper.cli.common import DEFAULT_STORE, ClassOpt, StoreOpt, SweepArg, console, fail
from sweeper.cli.opening import open_sweep, warn_damaged
from sweeper.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from recommender.recommendations import ClassRecommendation


JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON document (schema raidsweep.recommend/1).")
]


def _positive(value: int) -> int:
    if value < 1:
        raise typer.BadParameter(f"{value} is not a number of rows: give 1 or more")
    return value


def recommend(
    sweep: SweepArg = None,
    store: StoreOpt = DEFAULT_STORE,
    top: Annotated[int, typer.Option(help="Rows per class (1 or more).", callback=_positive)] = 10,
    classes: ClassOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rank the sweep's configurations for each of its workload classes."""
    from recommender.data import load_recommendations
    from recommender.scoring import FORMULA
    from recommender.views import RANK_CAPTION
    from sweeper.status import provisional

    results, record = open_sweep(store, sweep, classes, ranked=True)
    runs = results.runs(record["sweep_id"])
    try:
        recs = load_recommendations(results, record, runs)
    except InputError as exc:
        fail(exc)
    note = provisional(results, record["sweep_id"])
    evidence, predicted = _search_evidence(results, record, recs)
    warn_damaged(results)  # after the progress record is read: a damaged one is named too
    if as_json:
        from recommender.views.documents import recommend_document

        doc = recommend_document(record["sweep_id"], recs if len(runs) else [], top, note)
        _add_search_evidence(doc, evidence, predicted)
        print(json.dumps(doc, indent=2))
        return
    if runs.empty:
        console.print(f"sweep {record['sweep_id']} has no runs yet")
        return
    if note:
        console.print(f"[bold yellow]{escape(note)}[/]", highlight=False)
    if evidence is not None:
        from recommender.search_evidence import headline

        console.print(f"[bold]{escape(headline(evidence))}[/]", highlight=False)
    prices = (record.get("spec") or {}).get("prices")
    for rec in recs:
        wclass, part = rec.wclass, rec.ranked.head(top)
        console.print(
            f"[bold]{escape(wclass.name)}[/] — {escape(wclass.description)}", highlight=False
        )
        console.print(_class_rows(rec, part, prices))
        shown = f"{len(part)} of {len(rec.ranked)} configurations"
        if len(part) < len(rec.ranked):
            shown += " (--top shows more)"
        console.print(f"[dim]{shown}[/]", highlight=False)
        unsteady = int(part["unsteady_runs"].sum()) if len(part) else 0
        if unsteady:
            console.print(
                f"[yellow]{unsteady} run(s) behind these figures did not reach steady state "
                "(SNIA PTS rule); `raidsweep disclose RUN` shows their rounds[/]"
            )
        flagged = int(part["flagged_runs"].sum()) if "flagged_runs" in part and len(part) else 0
        if flagged:
            console.print(
                f"[yellow]{flagged} run(s) behind these figures are flagged by their telemetry "
                "(a saturated or shared load host, or a block layer that disagrees with fio); "
                "`raidsweep disclose RUN` shows why[/]"
            )
        if rec.missing:
            console.print(f"[yellow]cells not measured for {escape(wclass.name)}: {rec.missing}[/]")
        mark = "(provisional) " if note else ""
        console.print(f"[bold]→ {mark}{escape(rec.sentence())}[/]", highlight=False)
        _print_class_evidence(wclass.name, evidence, predicted)
    console.print(
        f"[dim]{escape(RANK_CAPTION)}.\n{FORMULA}; n = repetitions; "
        "usable = share of raw capacity; "
        "loss risk/yr = expected data-loss events per year from rebuilds[/]",
        highlight=False,
    )
    _print_pareto(recs)


def _search_evidence(
    results: Any, record: dict[str, Any], recs: list[ClassRecommendation]
) -> tuple[dict[str, Any] | None, pd.DataFrame | None]:
    """The decision of a self-stopping sweep (None without ``study.stop``) and, in optimize
    mode, the surrogate's predictions for unmeasured configurations near each pick."""
    import pandas as pd

    from recommender.predictions import sweep_predictions
    from recommender.search_evidence import stored_evidence

    evidence = stored_evidence(results, record["sweep_id"])
    study = (record.get("spec") or {}).get("study") or {}
    if study.get("mode") != "optimize" or not recs:
        return evidence, None
    ranked = pd.concat([r.ranked for r in recs], ignore_index=True)
    return evidence, sweep_predictions(record, ranked)


def _add_search_evidence(
    doc: dict[str, Any], evidence: dict[str, Any] | None, predicted: pd.DataFrame | None
) -> None:
    """``evidence`` (the decision, per class how sure) and per class ``predictions`` (kind
    "predicted", never in ``rankings``) in the recommend document."""
    from recommender.predictions import prediction_rows
    from recommender.search_evidence import confidence_by_class, evidence_document

    doc["evidence"] = evidence_document(evidence)
    sure = confidence_by_class(evidence)
    for c in doc["classes"]:
        c["confidence"] = sure.get(c["name"])
        c["predictions"] = [] if predicted is None else prediction_rows(predicted, c["name"])


def _print_class_evidence(
    name: str, evidence: dict[str, Any] | None, predicted: pd.DataFrame | None
) -> None:
    """How sure the search is of the class's pick, and its predictions, marked as such."""
    from recommender.figures import score_decimals, score_text
    from recommender.predictions import prediction_rows
    from recommender.search_evidence import class_line

    for c in (evidence or {}).get("classes", []):
        if c["name"] == name:
            console.print(f"  {escape(class_line(c))}", highlight=False)
    rows = [] if predicted is None else prediction_rows(predicted, name)
    if rows:
        console.print(
            "  [italic magenta]predicted, not measured (surrogate, 95% interval; not ranked):[/]"
        )
    decimals = score_decimals(r["predicted"] for r in rows)
    for r in rows:
        best = " — predicted best, not measured" if r["beats_pick"] else ""
        shown = score_text(r["predicted"], r["predicted_lo"], r["predicted_hi"], decimals)
        console.print(
            f"  [italic magenta]~ {escape(r['configuration'])}  ≈ {shown}{best}[/]",
            highlight=False,
        )


def _figures(r: Any, prices: dict[str, Any] | None, decimals: int) -> dict[str, str]:
    """One ranked row's figures as text, by column heading; the score and its interval with
    the class's ``decimals`` (``recommender.figures.score_decimals``)."""

    from recommender.figures import score_text
    from recommender.views.markdown import risk_text

    def known(value: float, spec: str) -> str:
        return "–" if value != value else format(value, spec)  # NaN: not known

    out = {
        "score": score_text(r.score, r.score_lo, r.score_hi, decimals),
        "CV": known(r.cv_pct, ".1f") + ("%" if r.cv_pct == r.cv_pct else ""),
        "n": str(r.repetitions),
        "usable": known(r.usable_share, ".0%"),
        "loss risk/yr": risk_text(r.loss_risk_per_year),
    }
    if prices:
        out["cost"] = known(r.cost_per_unit, ",.2f")
    return out


def _class_rows(
    rec: ClassRecommendation, part: pd.DataFrame, prices: dict[str, Any] | None
) -> RenderableType:
    """The ranked rows of one class: a table with one column per figure where the terminal
    is wide enough for every column in full, else each configuration as a stack of lines
    (its rank and key, its figures, each broken limit on a line of its own). Nothing is cut."""
    from rich.measure import Measurement

    from recommender.figures import score_decimals
    from recommender.views import CONFIGURATION, metric_unit, rank_label

    wclass = rec.wclass
    rows = list(part.itertuples())
    decimals = score_decimals(part["score"])
    broken = [r.violations.split("; ") if not r.meets_limits else [] for r in rows]
    longest = max((len(v) for b in broken for v in b), default=len("ok"))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("rank", no_wrap=True)
    table.add_column(CONFIGURATION, no_wrap=True)
    unit = metric_unit(wclass.metric)
    headings = {"score": f"{unit} (95% CI)", "cost": f"{(prices or {}).get('currency', '')}/{unit}"}
    for name in _figures(rows[0], prices, decimals) if rows else []:
        table.add_column(headings.get(name, name), no_wrap=True, justify="right")
    table.add_column("limits", min_width=min(longest, 60), overflow="fold")
    for r, b in zip(rows, broken, strict=True):
        limits = "\n".join(f"[red]{escape(v)}[/]" for v in b) or "[green]ok[/]"
        table.add_row(
            rank_label(r.rank, r.tied),
            r.config_key,
            *_figures(r, prices, decimals).values(),
            limits,
        )
    natural = Measurement.get(console, console.options.update_width(10_000), table).maximum
    if natural <= console.width:
        return table
    lines = []
    width = max((len(rank_label(r.rank, r.tied)) for r in rows), default=1)
    pad = " " * (width + 2)
    for r, b in zip(rows, broken, strict=True):
        label = rank_label(r.rank, r.tied).ljust(width)
        f = _figures(r, prices, decimals)
        trade_offs = f"usable {f['usable']} · loss risk/yr {f['loss risk/yr']}"
        if "cost" in f:
            trade_offs += f" · {headings['cost']} {f['cost']}"
        lines.append(f"[bold]{label}  {escape(r.config_key)}[/]")
        lines.append(f"{pad}{f['score']} {unit} · CV {f['CV']} · n={f['n']}")
        lines.append(f"{pad}{escape(trade_offs)}")
        lines += [f"{pad}[red]limit broken: {escape(v)}[/]" for v in b] or [
            f"{pad}[green]limits ok[/]"
        ]
    return Group(*(Text.from_markup(line) for line in lines))


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
            figures = " · ".join(
                f"{c} {v:,.0f}" if v == v else f"{c} – (breaks a limit)" for c, v in row.items()
            )
            console.print(f"  {escape(str(key))}  [dim]{escape(figures)}[/]", highlight=False)
