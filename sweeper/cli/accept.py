"""``raidsweep accept``: the spec's acceptance gates judged on a sweep by the intervals of its
repetitions; exit 0 when every check passes, 3 when one fails, 4 when none fails but one is
undecided (2 is bad input, as for every command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from sweeper.cli.common import (
    DEFAULT_STORE,
    StoreOpt,
    SweepArg,
    checked_output,
    console,
    err,
    fail,
    fitted,
    json_flag,
    second_store,
)
from sweeper.cli.opening import open_sweep, warn_damaged
from sweeper.errors import InputError, StoreError

if TYPE_CHECKING:
    from rich.console import Console

    from recommender.acceptance import Verdict
    from sweeper.spec.acceptance import Acceptance
    from sweeper.store import ResultsStore

_COLOUR = {"pass": "green", "fail": "red", "undecided": "yellow"}


def accept(
    sweep: SweepArg = None,
    store: StoreOpt = DEFAULT_STORE,
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec",
            help="Take the acceptance block from this spec file (gates written after the "
            "sweep) instead of the spec the sweep ran with.",
        ),
    ] = None,
    baseline_store: Annotated[
        Path | None,
        second_store("--baseline-store", "The baseline sweep's store (default: --store)."),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write the HTML report carrying this verdict.",
            parser=checked_output,
            metavar="<path>",
        ),
    ] = None,
    as_json: Annotated[bool, json_flag("accept")] = False,
) -> None:
    """Judge the sweep against its acceptance gates: pass, fail or undecided per check, by
    the 95% intervals. Exit status 0 pass, 3 fail, 4 undecided, 2 bad input."""
    from recommender.acceptance_io import (
        accept_document,
        check_rows,
        sweep_acceptance,
        verdict_for,
    )
    from recommender.data import record_place, sweep_classes
    from sweeper.spec import load_spec
    from sweeper.status import provisional
    from sweeper.store import open_store

    if report is not None and report.suffix.lower() not in (".html", ".htm"):
        fail(ValueError(f"--report {report}: the report is HTML; name it *.html"))
    results, record = open_sweep(store, sweep)
    try:
        # a class of the sweep's that no longer loads, named in its record's place
        sweep_classes(record, record_place(results, record))
        if spec is not None:
            acceptance = load_spec(spec)[0].acceptance
            if acceptance is None:
                fail(ValueError(f"--spec {spec}: the spec has no acceptance block"))
        else:
            acceptance = sweep_acceptance(record)
            if acceptance is None:
                fail(
                    ValueError(
                        f"sweep {record['sweep_id']}: its spec has no acceptance block; add one "
                        "(README: acceptance gates) and give the spec with --spec"
                    )
                )
        others = open_store(baseline_store) if baseline_store else None
        verdict = verdict_for(results, record, acceptance, others)
    except (InputError, StoreError, ValueError, typer.BadParameter) as exc:
        fail(exc)
    note = provisional(results, record["sweep_id"])
    warn_damaged(results)  # after the progress record is read: a damaged one is named too
    if report is not None:
        # with --json, stdout is the document alone: the files written are said on stderr
        _write_report(
            results, record, (acceptance, verdict, note), report, err if as_json else console
        )
    if as_json:
        print(json.dumps(accept_document(verdict, note), indent=2))
        raise typer.Exit(verdict.exit_status)
    if note:
        console.print(f"[bold yellow]{escape(note)}[/]", highlight=False)
    title = f"acceptance of sweep {record['sweep_id']}"
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=title, title_justify="left")
    for heading in ("gate", "target", "configuration", "criterion", "required"):
        table.add_column(heading, overflow="fold")
    table.add_column(f"measured ({verdict.confidence:.0%} CI)", justify="right")
    table.add_column("verdict", no_wrap=True)
    rows = check_rows(verdict)
    for r in rows:
        colour = _COLOUR[r["verdict"]]
        table.add_row(
            str(r["gate"]),
            escape(r["target"].replace(" · ", "\n")),
            escape(r["configuration"]),
            escape(r["criterion"]),
            escape(r["required"]),
            escape(r["measured"]),
            f"[{colour}]{r['verdict']}[/]",
        )
    console.print(fitted(table, _stacked(str(table.title), rows)))
    counts = verdict.counts
    colour = _COLOUR[verdict.verdict]
    console.print(
        f"[bold {colour}]verdict: {verdict.verdict.upper()}[/] — {counts['pass']} passed, "
        f"{counts['fail']} failed, {counts['undecided']} undecided (exit status "
        f"{verdict.exit_status})",
        highlight=False,
    )
    console.print(
        "[dim]pass: the whole interval clears the bound; fail: the whole interval misses it; "
        "undecided: the interval straddles it (more repetitions decide), or there is none[/]"
    )
    raise typer.Exit(verdict.exit_status)


def _stacked(title: str, rows: list[dict[str, Any]]) -> list[str]:
    """Each check as a stack of lines, for a terminal too narrow for the table."""
    lines = [f"[bold]{escape(title)}[/]"]
    for r in rows:
        colour = _COLOUR[r["verdict"]]
        lines.append(
            f"[bold {colour}]{r['verdict']:<9}[/] [bold]gate {r['gate']}[/] · "
            f"{escape(r['target'])} · {escape(r['configuration'])}"
        )
        lines.append(f"{'':10}{escape(r['criterion'])} {escape(r['required'])}")
        lines.append(f"{'':10}measured {escape(r['measured'])}")
        if r["note"]:
            lines.append(f"{'':10}[dim]{escape(r['note'])}[/]")
    return lines


def _write_report(
    results: ResultsStore,
    record: dict[str, Any],
    judged: tuple[Acceptance, Verdict, str | None],
    path: Path,
    out: Console,
) -> None:
    """The HTML report (and its Markdown and CSV) with this verdict (of these gates, and
    why it is provisional) as its acceptance."""
    acceptance, verdict, note = judged
    from recommender.acceptance_io import section_of
    from recommender.report import build_context, write_report

    spec = record["spec"] | {"acceptance": acceptance.model_dump(mode="json")}
    record = record | {"spec": spec}
    ctx = build_context(results, record) | {"acceptance": section_of(verdict, note)}
    try:
        _, *others = write_report(results, record, path, ctx)
    except OSError as exc:
        where = exc.filename or path
        fail(StoreError(f"{where}: cannot be written ({exc.strerror}); choose another --report"))
    out.print(f"report written: {escape(str(path))}", highlight=False, soft_wrap=True)
    for extra in others:
        out.print(f"  and {escape(str(extra))}", highlight=False, soft_wrap=True)
