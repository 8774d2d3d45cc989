"""``raidsweep run``'s progress bar at 80 columns: a long configuration key is cut with an
ellipsis, never the counts or the elapsed time (they once read ``19…`` and ``0:00:…``,
and a sweep of days ``3 days…``)."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from sweeper.cli.progress import BarProgress

KEY = "raid10/host_stripe/ranks4/stripe16k/wb-ra/snap/dr/extent1g"


@pytest.mark.parametrize("width", [80, 100, 200])
def test_counts_and_time_stay_whole(width: int) -> None:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    bar = BarProgress(console)
    plan = SimpleNamespace(runs=1134, configurations=list(range(9)), array_s=371_000.0)
    bar.start(plan, done_runs=0, done_configs=0, used_s=0.0)
    bar.configuration(KEY, "reconfiguring")
    for task in bar.bar.tasks:  # a sweep three days and four hours under way
        assert task.start_time is not None
        task.start_time -= 3 * 86400 + 4 * 3600
    for _ in range(193):
        bar.run_done(None, True, 70_000.0)
    bar.finish(None)
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue()).replace("\r", "\n")
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines and max(len(line) for line in lines) <= width, lines
    last_runs = [line for line in lines if line.startswith("runs")][-1]
    last_configs = [line for line in lines if line.startswith("configurations")][-1]
    assert "193/1134" in last_runs and last_runs.endswith(" 3d04h"), last_runs
    assert "0/9" in last_configs and last_configs.endswith(" 3d04h"), last_configs
    assert "reconfiguring raid10/" in last_configs
    if width == 80:
        assert "…" in last_configs  # the key, not a count, gave way
