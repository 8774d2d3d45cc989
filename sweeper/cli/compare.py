"""``raidsweep compare``: two sweeps (of one store or two), B against A per workload class and
per cell, each change with its interval and whether it is significantly better or worse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from sweeper.cli.common import (
    DEFAULT_STORE,
    StoreOpt,
    console,
    fail,
    fitted,
    json_flag,
    second_store,
)
from sweeper.cli.opening import latest_sweep, warn_damaged
from sweeper.errors import InputError, StoreError

if TYPE_CHECKING:
    import pandas as pd

_COLOUR = {"better": "green", "worse": "red"}


def _verdict(text: str) -> str:
    colour = _COLOUR.get(text)
    return f"[{colour}]{text}[/]" if colour else text


def compare(
    sweep_a: Annotated[str, typer.Argument(help="Sweep A: before, the old array, the model.")],
    sweep_b: Annotated[str, typer.Argument(help="Sweep B: after, the new array, the rehearsal.")],
    store: StoreOpt = DEFAULT_STORE,
    store_b: Annotated[
        Path | None, second_store("--store-b", "The store of sweep B (default: --store).")
    ] = None,
    config_a: Annotated[
        str | None, typer.Option("--config-a", help="Compare this configuration of A …")
    ] = None,
    config_b: Annotated[
        str | None,
        typer.Option("--config-b", help="… with this one of B (default: the same key)."),
    ] = None,
    all_cells: Annotated[
        bool, typer.Option("--all", help="List every cell, not only the significant changes.")
    ] = False,
    as_json: Annotated[bool, json_flag("compare")] = False,
) -> None:
    """Compare sweep B with sweep A: per class and per cell, B's change with its 95% interval
    and whether it is significantly better or worse. Pairs each class's recommended
    configurations and every configuration both sweeps measured (or --config-a/--config-b)."""
    from recommender.data import record_place, sweep_classes
    from recommender.sweepcompare import (
        CHANGE_NOTE,
        CHOSEN,
        NOTHING_IN_COMMON,
        Pairing,
        compare_document,
        compare_sweeps,
    )
    from sweeper.store import open_store

    results_a = open_store(store)
    results_b = open_store(store_b) if store_b is not None else results_a
    record_a, record_b = latest_sweep(results_a, sweep_a), latest_sweep(results_b, sweep_b)
    runs_a, runs_b = results_a.runs(sweep_a), results_b.runs(sweep_b)
    try:
        classes = sweep_classes(record_a, record_place(results_a, record_a))
        names = {c.name for c in classes}
        others = sweep_classes(record_b, record_place(results_b, record_b))
        classes += [c for c in others if c.name not in names]
    except (InputError, StoreError) as exc:
        fail(exc)
    pairings = None
    if config_b is not None and config_a is None:
        fail(ValueError("--config-b needs --config-a (the configuration of A it is compared to)"))
    if config_a is not None:
        config_b = config_a if config_b is None else config_b
        for name, key, runs in ((sweep_a, config_a, runs_a), (sweep_b, config_b, runs_b)):
            if key not in set(runs["config_key"]):
                fail(ValueError(f"sweep {name} has no runs of configuration {key!r}"))
        pairings = [Pairing(config_a, config_b, CHOSEN)]
    for name, runs in ((sweep_a, runs_a), (sweep_b, runs_b)):
        if runs.empty:
            fail(ValueError(f"sweep {name} has no runs to compare"))
    comparison = compare_sweeps(runs_a, runs_b, classes, pairings)
    warn_damaged(results_a)
    if as_json:
        print(json.dumps(compare_document(comparison, sweep_a, sweep_b), indent=2))
        return
    console.print(f"[bold]B = {escape(sweep_b)} against A = {escape(sweep_a)}[/]", highlight=False)
    if comparison.classes.empty and comparison.cells.empty:
        console.print(NOTHING_IN_COMMON)
        return
    _print_classes(comparison.classes)
    _print_cells(comparison.cells, all_cells)
    console.print(f"[dim]{CHANGE_NOTE}[/]", highlight=False)


def measured_text(name: str, value: float) -> str:
    """A compared figure as the app's Compare, ``raidsweep curves`` and the report write a
    measured one: a latency (``read_lat_p99``) by ``latency_text`` (``2.30``, ``0.104``),
    any other by ``figure`` (``3,784``, ``433.5``)."""
    from recommender.views import latency_text
    from recommender.views.markdown import figure

    return latency_text(value) if "_lat" in name or name.endswith("_ms") else figure(value)


def _pair_heading(config_a: str, config_b: str, why: str = "") -> str:
    pair = config_a if config_a == config_b else f"A {config_a} → B {config_b}"
    return f"[bold]{escape(pair)}[/]" + (f" [dim]({escape(why)})[/]" if why else "")


def _stack(row: tuple[str, str, str, str, str]) -> list[str]:
    """One table row (what, A, B, change, verdict) as two lines for a narrow terminal, or
    three where the figures and the change do not fit on one (five-digit scores with their
    intervals): the change is never cut in two."""
    what, a, b, change, verdict = row
    figures = f"  A {a} → B {b}; change % {change}"
    if Text.from_markup(figures).cell_len <= console.width:
        return [f"[bold]{what}[/]: {verdict}", figures]
    return [f"[bold]{what}[/]: {verdict}", f"  A {a} → B {b}", f"  change % {change}"]


def _table(*headings: str) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column(headings[0], overflow="fold")
    for heading in headings[1:-1]:
        table.add_column(heading, justify="right", overflow="fold")
    table.add_column(headings[-1], no_wrap=True)
    return table


def _print_classes(frame: pd.DataFrame) -> None:
    """Per pairing, each class's score in A and B and the change."""
    from recommender.sweepcompare import class_label, spell_change, spell_scores

    console.print("[bold underline]per class (score)[/]")
    for (a, b, why), part in frame.groupby(["config_a", "config_b", "pairing"], sort=False):
        console.print(_pair_heading(str(a), str(b), str(why)), highlight=False)
        table = _table("class", "A (95% CI)", "B (95% CI)", "change % (95% CI)", "verdict")
        stacked = []
        for r in part.itertuples():
            *_, a, b = spell_scores((r.a, r.a_lo, r.a_hi), (r.b, r.b_lo, r.b_hi))
            row = (
                escape(class_label(r)),
                a,
                b,
                spell_change(r.change_pct, r.change_lo_pct, r.change_hi_pct),
                _verdict(r.verdict),
            )
            table.add_row(*row)
            stacked += _stack(row)
        console.print(fitted(table, stacked))


def _print_cells(frame: pd.DataFrame, all_cells: bool) -> None:
    """Per pair of configurations, each cell's figures in A and B and the change (only the
    significant ones unless ``all_cells``)."""
    from recommender.sweepcompare import FIGURE_LABELS, spell_change

    shown = frame if all_cells else frame[frame["verdict"].isin(["better", "worse"])]
    if len(shown):
        console.print("[bold underline]per cell[/]")
    for (a, b), part in shown.groupby(["config_a", "config_b"], sort=False):
        console.print(_pair_heading(str(a), str(b)), highlight=False)
        table = _table("cell", "figure", "A", "B", "change % (95% CI)", "verdict")
        stacked = []
        for r in part.itertuples():
            a, b = measured_text(str(r.figure), r.a), measured_text(str(r.figure), r.b)
            change = spell_change(r.change_pct, r.change_lo_pct, r.change_hi_pct)
            verdict = _verdict(r.verdict)
            figure = FIGURE_LABELS.get(str(r.figure), str(r.figure))
            table.add_row(escape(r.cell), figure, a, b, change, verdict)
            stacked += _stack((escape(f"{r.cell} {figure}"), a, b, change, verdict))
        console.print(fitted(table, stacked))
    rest = len(frame) - len(shown)
    if rest:
        console.print(
            f"{rest} cell figure(s) without a significant change (--all lists them)",
            highlight=False,
        )
