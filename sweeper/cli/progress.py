"""The progress bar of ``raidsweep run``: configurations and runs done, array time used, ETA in
array time."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sweeper.units import format_duration


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

    def start(self, plan: Any, done_runs: int, done_configs: int, used_s: float) -> None:
        self.plan = plan
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
            self.bar.console.print(f"[yellow]configuration {key}: {status}[/]")

    def finish(self, outcome: Any) -> None:
        self.bar.stop()
