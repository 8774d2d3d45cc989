"""The progress bar of ``raidsweep run``: configurations and runs done, array time used, ETA in
array time."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.table import Column
from rich.text import Text

from sweeper.units import format_duration

#: the widths that never shrink: the longer label, the elapsed time, the gaps between columns
_LABEL, _ELAPSED, _GAPS = len("configurations"), len("100d00h"), 4


class _Elapsed(ProgressColumn):
    """Wall time since the sweep started, as raidsweep writes durations (``34h33m``,
    ``2d03h``): at most seven characters however long the sweep runs."""

    def render(self, task: Task) -> Text:
        return Text(format_duration(task.elapsed or 0.0), style="progress.elapsed")


class BarProgress:
    """Progress bar: configurations and runs done, array time used, ETA in array time.

    Every column but the text after the counts has a fixed width, so on a narrow terminal
    (80 columns) that text is cut with an ellipsis, never the counts or the elapsed time."""

    def __init__(self, console: Console):
        self.console = console
        self.bar = self._columns(1)
        self.plan = None

    def _columns(self, total_runs: int) -> Progress:
        counts = 2 * len(str(max(total_runs, 1))) + 1  # "1134/1134"
        width = self.console.width
        bar = max(10, min(40, width - 70))
        info = max(10, min(64, width - _LABEL - bar - counts - _ELAPSED - _GAPS))
        return Progress(
            TextColumn("[bold]{task.description}", table_column=Column(width=_LABEL)),
            BarColumn(bar_width=bar),
            MofNCompleteColumn(table_column=Column(width=counts, no_wrap=True, justify="right")),
            TextColumn(
                "{task.fields[info]}",
                table_column=Column(width=info, no_wrap=True, overflow="ellipsis"),
            ),
            _Elapsed(table_column=Column(width=_ELAPSED, no_wrap=True, justify="right")),
            console=self.console,
            transient=False,
        )

    def start(self, plan: Any, done_runs: int, done_configs: int, used_s: float) -> None:
        self.plan = plan
        self.bar = self._columns(int(plan.runs))
        self.bar.start()
        self.configs = self.bar.add_task(
            "configurations", total=len(plan.configurations), completed=done_configs, info=""
        )
        self.runs = self.bar.add_task(
            "runs", total=plan.runs, completed=done_runs, info=self._eta(used_s)
        )

    def _eta(self, used: float) -> str:
        total = self.plan.array_s if self.plan else 0.0
        return f"array time {format_duration(used)} · ETA {format_duration(max(0.0, total - used))}"

    def configuration(self, key: str, phase: str) -> None:
        self.bar.update(self.configs, info=f"{phase} {key}")

    def run_done(self, address: Any, ok: bool, array_s: float) -> None:
        self.bar.update(self.runs, advance=1, info=self._eta(array_s))

    def configuration_done(self, key: str, status: str, array_s: float) -> None:
        self.bar.update(self.configs, advance=1, info=f"{status} {key}")
        if status != "complete":
            self.bar.console.print(f"[yellow]configuration {escape(key)}: {escape(status)}[/]")

    def finish(self, outcome: Any) -> None:
        self.bar.stop()
