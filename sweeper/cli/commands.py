"""``raidsweep``: run a sweep, watch it, rank its configurations, write the report, open the app."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from sweeper.errors import InputError, StoreError
from sweeper.units import format_duration, format_size

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals may hold secrets
    help="Commission a storage array: sweep configurations × fio workloads, rank per class.",
)
console = Console()
err = Console(stderr=True)


def _checked_store(value: Path) -> Path:
    """The store's folder reaches plays (the simulated array's state lives in it): a path
    with template syntax or control characters is refused (exit 2) before anything runs."""
    from sweeper.untrusted import path_problem

    problem = path_problem(str(value))
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store",
        envvar="RAIDSWEEP_STORE",
        help="Folder of the results store.",
        show_default=True,
        callback=_checked_store,
    ),
]
DEFAULT_STORE = Path("raidsweep-data")


def _fail_input(exc: Exception) -> None:
    # The message quotes the user's own text (keys like "pattern/bs/qdNxM[/wsPCT]"): never markup.
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


class BarProgress:
    """Progress bar: configurations and runs done, array time used, ETA in array time."""

    def __init__(self, console: Console):
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.plan = None

    def start(self, plan, done_runs: int, done_configs: int) -> None:
        self.plan = plan
        self.bar.start()
        self.configs = self.bar.add_task(
            "configurations", total=len(plan.configurations), completed=done_configs, info=""
        )
        self.runs = self.bar.add_task(
            "runs", total=plan.runs, completed=done_runs, info=self._eta(0.0)
        )

    def _eta(self, used: float) -> str:
        total = self.plan.array_s if self.plan else 0.0
        return f"array time {format_duration(used)} · ETA {format_duration(max(0.0, total - used))}"

    def configuration(self, key: str, phase: str) -> None:
        self.bar.update(self.configs, info=f"{phase} {key}")

    def run_done(self, address, ok: bool, array_s: float) -> None:
        self.bar.update(self.runs, advance=1, info=self._eta(array_s))

    def configuration_done(self, key: str, status: str, array_s: float) -> None:
        self.bar.update(self.configs, advance=1, info=f"{status} {key}")
        if status != "complete":
            self.bar.console.print(f"[yellow]configuration {key}: {status}[/]")

    def finish(self, outcome) -> None:
        self.bar.stop()


@app.command()
def run(
    spec_file: Annotated[Path, typer.Argument(help="Sweep spec (YAML).")],
    store: StoreOpt = DEFAULT_STORE,
    check: Annotated[
        bool, typer.Option("--check", help="Validate and show the plan; change nothing.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    worker: Annotated[
        str | None,
        typer.Option(
            "--worker",
            help="This sweeper's name when several share the study (study.storage): each "
            "drives its own test storage and resumes only its own configurations.",
        ),
    ] = None,
) -> None:
    """Run (or resume) the sweep of SPEC_FILE."""
    from sweeper.spec import load_spec
    from sweeper.store import open_store
    from sweeper.sweep import Progress as NullProgress
    from sweeper.sweep import Sweeper

    try:
        spec, inventory = load_spec(spec_file)
    except InputError as exc:
        _fail_input(exc)
    # a part of lock and state paths: checked before any is looked at
    if worker is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", worker):
        _fail_input(ValueError(f"--worker: {worker!r} is not a name (letters, digits, . _ -)"))
    results = open_store(store)
    stop = threading.Event()
    progress = NullProgress() if quiet or check else BarProgress(console)
    try:
        sweeper = Sweeper(
            spec,
            inventory,
            results,
            spec_path=spec_file,
            progress=progress,
            stop=stop,
            worker=worker,
            exclusive=not check,  # refused before the first play if another runs it
        )
    except (InputError, ValueError) as exc:
        _fail_input(exc)
    plan = sweeper.plan
    from recommender.classes import matrix_gaps

    for line in matrix_gaps(sweeper.classes, [c.key for c in spec.matrix.cells()]):
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    if check:
        _print_plan(spec, plan)
        for line in sweeper.platform.plan_lines(spec.matrix):
            console.print(f"  [bold]{line}[/]", highlight=False)
        _warn_busy(sweeper)
        console.print("nothing was changed (--check)")
        return
    existing = results.get_sweep(spec.name)
    if existing is not None and existing.get("fingerprint") != spec.fingerprint():
        _fail_input(
            StoreError(
                f"sweep {spec.name!r} already exists in {store} with a different spec; "
                "give the new spec another name, or remove the old sweep's folder"
            )
        )

    def on_sigint(signum, frame):  # first Ctrl-C: finish cleanly; second: stop now
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print("[yellow]stopping after the run in flight (Ctrl-C again to abort)[/]")

    signal.signal(signal.SIGINT, on_sigint)
    signal.signal(signal.SIGTERM, on_sigint)
    from sweeper.locking import LockHeld

    try:
        outcome = sweeper.run()
    except (LockHeld, StoreError) as exc:  # another process holds it; the store is read-only
        _fail_input(exc)
    console.print(
        f"sweep [bold]{spec.name}[/]: {outcome.configurations_done} configuration(s) completed, "
        f"{outcome.runs_written} run(s) written, {outcome.runs_skipped} already stored, "
        f"{outcome.runs_failed} failed; array time {format_duration(outcome.array_s)}"
    )
    for line in outcome.stale_locks:  # a killed sweep's: its runs were resumed
        err.print(f"[yellow]took over a lock left by a process that is gone:[/] {escape(line)}",
                  highlight=False, soft_wrap=True)  # fmt: skip
    for key, reason in outcome.configurations_pruned.items():
        console.print(f"[yellow]pruned[/] {key}: {escape(reason)}", highlight=False)
    if outcome.cells_skipped:
        console.print(
            f"{len(outcome.cells_skipped)} cell(s) not run: their concurrency curve had stopped "
            "(`raidsweep curves` shows where and why)"
        )
    for key, reason in outcome.configurations_failed.items():
        console.print(f"[red]configuration failed:[/] {key}: {escape(reason)}", highlight=False)
    if outcome.stopped:
        err.print(f"[bold red]stopped:[/] {escape(outcome.stopped)}", highlight=False)
        err.print(f"once that is fixed, run raidsweep run {spec_file} again to resume")
        raise typer.Exit(1)
    if outcome.interrupted:
        console.print(f"interrupted: run [bold]raidsweep run {spec_file}[/] again to resume")
        raise typer.Exit(130)


def _print_plan(spec, plan) -> None:
    if spec.study.mode == "optimize":
        console.print(
            f"the study chooses up to {len(plan.configurations)} of {plan.space_size} "
            "configurations; totals below assume that many"
        )
    console.print(
        f"[bold]{spec.name}[/] on platform [bold]{spec.platform}[/] ({spec.study.mode} mode): "
        f"{len(plan.configurations)} configuration(s) × {len(plan.cells)} cell(s) × "
        f"{plan.repetitions} repetition(s) = {plan.runs} runs"
    )
    skipped = len(spec.matrix.cells()) - len(plan.cells)
    if skipped:
        console.print(
            f"only the cells the classes score are measured ({skipped} other matrix cell(s) "
            "not; study.measure: all measures them too)"
        )
    dyn = spec.matrix.dynamic_repetitions
    if dyn is not None:
        console.print(
            f"a cell is repeated up to {dyn.max} times while its IOPS vary by more than "
            f"{dyn.cv_pct:g}% (CV); totals below count {plan.repetitions}"
        )
    saved = plan.listed_reconfig_array_s - plan.reconfig_array_s
    order = (
        f" in build order (listed order: {format_duration(plan.listed_reconfig_array_s)})"
        if spec.study.mode == "grid" and saved > 0
        else ""
    )
    console.print(
        f"array time: runs {format_duration(plan.run_array_s * plan.runs)}, "
        f"reconfiguration {format_duration(plan.reconfig_array_s)}{order}, "
        f"total {format_duration(plan.array_s)}"
    )
    for c in plan.configurations:
        console.print(f"  {c.key}")


def _latest_sweep(results, sweep: str | None) -> dict:
    """The named sweep's record, else the latest; exit 2 when there is none or it is
    damaged (a bad name never becomes a path)."""
    try:
        if sweep:
            record = results.get_sweep(sweep)
            if record is None:
                _fail_input(StoreError(f"no sweep {sweep!r} in {results.root}"))
            return record
        sweeps = results.list_sweeps()
    except StoreError as exc:
        _fail_input(exc)
    _warn_damaged(results)
    if not sweeps:
        damaged = " (and damaged ones, above)" if getattr(results, "damaged", None) else ""
        hint = "run one with `raidsweep run SPEC`"
        _fail_input(StoreError(f"no sweeps in {results.root}{damaged}; {hint}"))
    return sweeps[0]


def _warn_damaged(results) -> None:
    """What the store's last reads found damaged and left out, each naming its file."""
    for line in getattr(results, "damaged", None) or []:
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


@app.command()
def status(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: all).")] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Show sweeps in the store and how far each has come."""
    from sweeper.status import sweep_status
    from sweeper.store import open_store

    results = open_store(store)
    records = [_latest_sweep(results, sweep)] if sweep else results.list_sweeps()
    _warn_damaged(results)
    if not records:
        console.print(f"no sweeps in {store}")
        return
    table = Table("sweep", "state", "configurations", "runs", "failed runs", "array time")
    for rec in records:
        s = sweep_status(results, rec["sweep_id"])
        table.add_row(
            rec["sweep_id"],
            s.state,
            f"{s.configurations_done}/{s.configurations_total}",
            f"{s.runs_done}/{s.runs_total}",
            str(s.runs_failed),
            f"{format_duration(s.array_s_used)} of {format_duration(s.array_s_total)}",
        )
    console.print(table)


ClassOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--class",
        help="Rank with this workload class (a shipped name or a class file) instead of the "
        "spec's; repeat for several.",
    ),
]


def _with_classes(record: dict, classes: list[str] | None) -> dict:
    """The sweep record with its classes replaced by ``classes``, each checked against the
    cells the sweep measures (exit 2 naming the class file's line otherwise)."""
    if not classes:
        return record
    from recommender.classes import check_against_sweep, class_path, shipped_class_names
    from sweeper.spec import Matrix

    cells = [c.key for c in Matrix.model_validate(record["spec"]["matrix"]).cells()]
    names = []
    for name in classes:
        try:
            check_against_sweep(name, cells)
        except InputError as exc:
            _fail_input(exc)
        shipped = name in shipped_class_names()
        names.append(name if shipped else str(class_path(name).resolve()))
    return record | {"spec": record["spec"] | {"classes": names}}


@app.command()
def recommend(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: latest).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    top: Annotated[int, typer.Option(help="Rows per class.")] = 10,
    classes: ClassOpt = None,
) -> None:
    """Rank the sweep's configurations for each of its workload classes."""
    import pandas as pd

    from recommender.data import load_recommendations
    from recommender.scoring import FORMULA
    from sweeper.store import open_store

    results = open_store(store)
    record = _with_classes(_latest_sweep(results, sweep), classes)
    runs = results.runs(record["sweep_id"])
    try:
        recs = load_recommendations(results, record, runs)
    except InputError as exc:
        _fail_input(exc)
    _warn_damaged(results)
    if runs.empty:
        console.print(f"sweep {record['sweep_id']} has no runs yet")
        return
    from sweeper.status import provisional

    note = provisional(results, record["sweep_id"])
    if note:
        console.print(f"[bold yellow]{escape(note)}[/]", highlight=False)
    prices = (record.get("spec") or {}).get("prices")
    for rec in recs:
        wclass, part = rec.wclass, rec.ranked.head(top)
        wide = console.width >= 120
        table = Table(title=escape(f"{wclass.name} — {wclass.description}"), title_justify="left")
        table.add_column("rank", no_wrap=True)
        table.add_column("configuration" if wide else "configuration · figures", no_wrap=True)
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
            if r.meets_limits:
                limits = "[green]limits ok[/]"
            else:
                broken = r.violations.split("; ")
                more = f" (+{len(broken) - 1} more)" if len(broken) > 1 else ""
                limits = f"[red]{broken[0]}{more}[/]"
            rank_text = f"{r.rank}{'=' if r.tied else ''}"
            score = f"{r.score:,.0f} ({r.score_lo:,.0f}–{r.score_hi:,.0f})"
            cv, n = f"{r.cv_pct:.1f}%", str(r.repetitions)
            usable = f"{r.usable_share:.0%}" if r.usable_share == r.usable_share else "–"
            risk = (
                f"{r.loss_risk_per_year:.1e}"
                if r.loss_risk_per_year == r.loss_risk_per_year
                else "–"
            )
            if wide:
                cells = [rank_text, r.config_key, score, cv, n, usable, risk]
                if prices:
                    cells.append(
                        f"{r.cost_per_unit:,.2f}" if r.cost_per_unit == r.cost_per_unit else "–"
                    )
                table.add_row(*cells, limits)
            else:
                figures = (f"{score} {wclass.metric} · CV {cv} · n={n} · usable {usable} · "
                           f"loss risk/yr {risk}\n{limits}")  # fmt: skip
                table.add_row(rank_text, f"[bold]{r.config_key}[/]\n{figures}")
        console.print(table)
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
        f"[dim]{FORMULA}; '=' marks a tie; n = repetitions; usable = share of raw capacity; "
        "loss risk/yr = expected data-loss events per year from rebuilds[/]"
    )
    from recommender.pareto import pareto_set

    front = pareto_set(pd.concat([r.ranked for r in recs], ignore_index=True))
    if len(front):
        names = ", ".join(str(c) for c in front.columns)
        console.print(f"[bold]Pareto set across {names}[/] (no other configuration is better "
                      "in every class):")  # fmt: skip
        for key, row in front.iterrows():
            figures = " · ".join(f"{c} {v:,.0f}" for c, v in row.items())
            console.print(f"  {key}  [dim]{figures}[/]", highlight=False)


@app.command()
def curves(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: latest).")] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Concurrency curves: Speed, Optimum (the knee) and Maximum of each."""
    from recommender.curves import sweep_curves
    from sweeper.store import open_store

    results = open_store(store)
    record = _latest_sweep(results, sweep)
    matrix = record["spec"]["matrix"] if record.get("spec") else {}
    table_df = sweep_curves(results.runs(record["sweep_id"]), matrix)
    if table_df.empty:
        console.print(f"sweep {record['sweep_id']} has no curve (a pattern and block size "
                      "measured at two or more concurrencies)")  # fmt: skip
        return
    table = Table("configuration", "curve", "points", "Speed", "Optimum (knee)", "Maximum",
                  title="IOPS @ mean latency, by I/Os in flight", title_justify="left")  # fmt: skip

    def point(p) -> str:
        return "–" if p is None else f"{p.outstanding}: {p.iops:,.0f} @ {p.latency_ms:.3g} ms"

    for r in table_df.itertuples():
        ws = f"/ws{r.active_pct}" if r.active_pct is not None else ""
        curve = f"{r.pattern}/{format_size(r.block_size)}{ws}"
        optimum = point(r.optimum) + ("" if r.method == "kneedle" else f" ({r.method})")
        table.add_row(r.config_key, curve, str(len(r.points)), point(r.speed), optimum,
                      point(r.maximum))  # fmt: skip
    console.print(table)
    for r in table_df[table_df["stopped"].notna()].itertuples():
        ws = f"/ws{r.active_pct}" if r.active_pct is not None else ""
        console.print(f"[yellow]{r.config_key} {r.pattern}/{format_size(r.block_size)}{ws}: "
                      f"stopped: {r.stopped}[/]", highlight=False)  # fmt: skip
    console.print("[dim]Optimum: Kneedle (Satopää et al. 2011) on log2 IOPS vs log2 I/Os in "
                  "flight; Speed: fewest I/Os in flight; Maximum: highest IOPS[/]")  # fmt: skip


@app.command()
def drift(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: latest).")] = None,
    store: StoreOpt = DEFAULT_STORE,
) -> None:
    """Long-run drift of the matrix's drift cell, per configuration."""
    from recommender.drift import drift_table
    from sweeper.store import open_store

    results = open_store(store)
    record = _latest_sweep(results, sweep)
    rule = record.get("spec", {}).get("matrix", {}).get("drift")
    if not rule:
        _fail_input(ValueError(f"sweep {record['sweep_id']} has no matrix.drift cell"))
    table_df = drift_table(results.runs(record["sweep_id"]), rule["cell"])
    if table_df.empty:
        console.print(f"no configuration has three runs of {rule['cell']} yet")
        return
    table = Table("configuration", "runs", "hours", "first → last IOPS", "slope %/h (95% CI)",
                  "p", "drift", title=f"drift of {rule['cell']}", title_justify="left")  # fmt: skip
    for r in table_df.itertuples():
        table.add_row(
            r.config_key, str(r.runs), f"{r.hours:.2f}",
            f"{r.first_iops:,.0f} → {r.last_iops:,.0f}",
            f"{r.slope_pct_per_h:+.2f} ({r.slope_lo:+.2f} … {r.slope_hi:+.2f})",
            f"{r.p_value:.3g}", "[red]yes[/]" if r.drifts else "no",
        )  # fmt: skip
    console.print(table)
    console.print("[dim]least-squares slope of IOPS on start time, in % of the mean per hour; "
                  "a drift when the 95% interval excludes zero[/]")  # fmt: skip


@app.command()
def report(
    sweep: Annotated[str | None, typer.Argument(help="Sweep name (default: latest).")] = None,
    store: StoreOpt = DEFAULT_STORE,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="HTML file.")] = None,
    classes: ClassOpt = None,
) -> None:
    """Write the self-contained HTML report of a sweep, and beside it the same in Markdown
    (REPORT.md) and its tables as CSV (REPORT-rankings.csv, -evidence, -features, -decisions)."""
    from recommender.report import write_report
    from sweeper.store import open_store

    results = open_store(store)
    record = _with_classes(_latest_sweep(results, sweep), classes)
    target = output or (Path(store) / record["sweep_id"] / "report.html")
    if target.suffix.lower() not in (".html", ".htm"):
        _fail_input(ValueError(f"--output {target}: the report is HTML; name it *.html"))
    try:
        html_path, *others = write_report(results, record, target)
    except OSError as exc:  # a read-only or full filesystem
        advice = "write the report elsewhere with --output"
        _fail_input(StoreError(f"{target}: cannot be written ({exc.strerror}); {advice}"))
    _warn_damaged(results)
    console.print(f"report written: {html_path}")
    for extra in others:
        console.print(f"  and {extra}")


@app.command()
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

    from sweeper.disclosure import RUN_ID_RE, run_disclosure, sweep_disclosure, to_yaml
    from sweeper.store import open_store

    if fmt not in ("yaml", "json"):
        _fail_input(ValueError(f"--format: {fmt!r} is not yaml or json"))
    results = open_store(store)
    if what is not None and RUN_ID_RE.fullmatch(what):
        doc = run_disclosure(results, what, fio_output=fio_output)
        if doc is None:
            _fail_input(StoreError(f"no run {what} in {results.root}"))
    else:
        doc = sweep_disclosure(results, _latest_sweep(results, what))
    if fmt == "json":
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(to_yaml(doc), end="")


def _loopback(address: str) -> bool:
    """Whether ``address`` binds this machine's loopback only."""
    import ipaddress

    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


@app.command(name="app")
def run_app(
    store: StoreOpt = DEFAULT_STORE,
    port: Annotated[int, typer.Option(help="Port.")] = 8501,
    address: Annotated[
        str, typer.Option(help="Address to bind; localhost unless you mean to share it.")
    ] = "127.0.0.1",
) -> None:
    """Serve the browser app (Streamlit) for the store."""
    app_py = Path(__file__).resolve().parents[2] / "app.py"
    streamlit = Path(sys.executable).parent / "streamlit"
    os.environ["RAIDSWEEP_STORE"] = str(Path(store).resolve())
    if not _loopback(address):
        err.print(
            f"[bold yellow]warning:[/] --address {escape(address)} serves the app beyond this "
            f"machine: it has no login, so anyone who can reach port {port} here reads every "
            "sweep in the store with its disclosure (hosts, devices, inventory facts); bind "
            "127.0.0.1 and use an SSH tunnel unless the network is yours alone",
            highlight=False,
        )
    console.print(f"raidsweep app: http://{address}:{port}  (Ctrl-C stops it)")
    # No file watcher and no run-on-save: the app's folder holds .venv and the store, and
    # watching them costs a core while a tab is open.
    args = [
        str(streamlit), "run", str(app_py),
        "--server.address", address, "--server.port", str(port),
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none", "--server.runOnSave", "false",
        "--client.toolbarMode", "viewer",
    ]  # fmt: skip
    os.execv(args[0], args)


lab_app = typer.Typer(
    no_args_is_help=True,
    help="A throwaway Debian VM (QEMU) with real md and LVM, to try the linux_md platform on.",
)
app.add_typer(lab_app, name="lab")
LabDirOpt = Annotated[
    Path | None,
    typer.Option("--dir", help="Folder of the lab VM [default: ~/.cache/raidsweep/lab/vm]."),
]


def _print_lab(st) -> None:
    def say(text: str) -> None:  # paths and commands to copy: never wrapped, never coloured
        console.print(text, highlight=False, soft_wrap=True)

    say(f"lab [bold]running[/] in {st.folder} (QEMU pid {st.pid})")
    say(f"  SSH: ssh -i {st.key_path} -p {st.port} root@127.0.0.1")
    say(f"  {len(st.disks)} data disk(s) of {st.disk_mib} MiB:")
    for disk in st.disks:
        say(f"    {disk}")
    say(f"  inventory: {st.inventory_path}")


@lab_app.command("up")
def lab_up(
    disks: Annotated[int, typer.Option("--disks", help="Number of data disks.")] = 10,
    disk_size: Annotated[str, typer.Option("--disk-size", help="Size of each data disk.")] = "256M",
    memory: Annotated[str, typer.Option("--memory", help="The VM's memory.")] = "1G",
    folder: LabDirOpt = None,
) -> None:
    """Start the lab VM (building its image the first time) and write its Ansible inventory."""
    import time

    from sweeper import lab
    from sweeper.units import parse_size

    sizes = {}
    for option, text in (("--disk-size", disk_size), ("--memory", memory)):
        try:
            size = parse_size(text)
        except ValueError as exc:
            _fail_input(ValueError(f"{option}: {exc}"))
        if size % 2**20:
            _fail_input(ValueError(f"{option}: {text!r} is not a whole number of MiB"))
        sizes[option] = size // 2**20
    try:
        lab.check_shape(disks, sizes["--disk-size"], sizes["--memory"])
    except ValueError as exc:  # "disk_mib: ..." → "--disk-size: ..."
        name, _, problem = str(exc).partition(": ")
        option = {"disks": "--disks", "disk_mib": "--disk-size", "memory_mib": "--memory"}
        _fail_input(ValueError(f"{option.get(name, name)}: {problem}"))
    vm = lab.Lab(folder)
    started = time.monotonic()
    if not vm.status().running and not (lab.image_dir() / "recipe.json").is_file():
        console.print(f"building the lab image first (debootstrap: a few minutes; cached in "
                      f"{lab.image_dir()})", highlight=False, soft_wrap=True)  # fmt: skip
    try:
        st = vm.up(disks, sizes["--disk-size"], sizes["--memory"],
                   progress=lambda msg: console.print(f"  {msg}", highlight=False))  # fmt: skip
    except lab.LabConflict as exc:
        _fail_input(exc)
    except lab.LabError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if st.already_running:
        console.print("already running: left as it is")
    else:
        console.print(f"up in {format_duration(time.monotonic() - started)}")
    _print_lab(st)


@lab_app.command("down")
def lab_down(folder: LabDirOpt = None) -> None:
    """Stop the lab VM and remove its disks."""
    from sweeper.lab import Lab

    vm = Lab(folder)
    if vm.down():
        console.print(
            f"lab in {vm.folder} stopped; its disks removed", highlight=False, soft_wrap=True
        )
    else:
        console.print(f"no lab running in {vm.folder}", highlight=False, soft_wrap=True)


@lab_app.command("status")
def lab_status(folder: LabDirOpt = None) -> None:
    """Whether the lab VM runs, on which port, with which disks."""
    from sweeper.lab import Lab

    st = Lab(folder).status()
    if st.running:
        _print_lab(st)
    else:
        console.print(f"lab in {st.folder}: stopped", highlight=False, soft_wrap=True)


def _warn_busy(sweeper) -> None:
    """For a command that changes nothing: who else runs this sweep or drives its storage."""
    for held in sweeper.busy():
        for problem in held.problems:
            err.print(f"[yellow]note:[/] {escape(held.source)} is {escape(problem)}",
                      highlight=False, soft_wrap=True)  # fmt: skip


def _sweeper_for(spec_file: Path, store: Path, exclusive: bool = False):
    """The spec's sweeper (platform, plan, preflight done), or exit 2 naming the problem;
    ``exclusive``: exit 2 before the preflight if another process runs it or its storage."""
    from sweeper.spec import load_spec
    from sweeper.store import open_store
    from sweeper.sweep import Progress as NullProgress
    from sweeper.sweep import Sweeper

    try:
        spec, inventory = load_spec(spec_file)
        return Sweeper(spec, inventory, open_store(store), spec_path=spec_file,
                       progress=NullProgress(), exclusive=exclusive)  # fmt: skip
    except (InputError, ValueError) as exc:
        _fail_input(exc)


@app.command()
def plan(
    spec_file: Annotated[Path, typer.Argument(help="Sweep spec (YAML).")],
    store: StoreOpt = DEFAULT_STORE,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Plan only the first N configurations.")
    ] = None,
) -> None:
    """What each configuration would create and destroy on the test storage (Ansible check
    mode, from the storage as it is now); nothing is changed."""
    from sweeper.storage import plan_configurations

    sweeper = _sweeper_for(spec_file, store)
    _warn_busy(sweeper)  # a plan from storage another sweep is changing may be stale
    configs = sweeper.plan.configurations[:limit]
    failed = 0
    for item in plan_configurations(sweeper.platform, sweeper.inventory, configs):
        console.print(f"[bold]{item.config.key}[/]", highlight=False)
        if not item.play.ok:
            failed += 1
            err.print(f"  [red]would fail:[/] {escape(item.play.failure())}", highlight=False)
            continue
        for line in item.actions:
            console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
    console.print("nothing was changed (check mode)")
    if failed:
        raise typer.Exit(1)


@app.command()
def teardown(
    spec_file: Annotated[Path, typer.Argument(help="Sweep spec (YAML).")],
    store: StoreOpt = DEFAULT_STORE,
    check: Annotated[
        bool, typer.Option("--check", help="Say what would be removed; change nothing.")
    ] = False,
) -> None:
    """Remove what the sweep built on the test storage, leaving it as it was found."""
    from sweeper.locking import LockHeld
    from sweeper.storage import actions
    from sweeper.storage import teardown as run_teardown

    sweeper = _sweeper_for(spec_file, store, exclusive=not check)
    if check:
        _warn_busy(sweeper)
    try:
        # Never under a sweep that drives this storage; --check only looks.
        with contextlib.nullcontext() if check else sweeper.holding("raidsweep teardown"):
            play = run_teardown(sweeper.platform, sweeper.inventory, check=check)
    except LockHeld as exc:
        _fail_input(exc)
    if not play.ok:
        err.print(f"[bold red]teardown failed:[/] {escape(play.failure())}", highlight=False)
        raise typer.Exit(1)
    for line in actions(play, done=not check) or ["nothing to remove"]:
        console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
    console.print("nothing was changed (--check)" if check else "torn down")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
