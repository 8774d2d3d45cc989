"""The labels every surface spells alike: a rank with its tie, the limits a configuration
kept or broke, a concurrency, a curve."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from recommender.classes import METRIC_UNITS
from recommender.views.markdown import figure
from sweeper.units import format_ms

#: marks a configuration tied with the one its rank names (``=3``: tied with rank 3)
TIE_MARK = "="
#: what a rank means, in every surface (CLI, report, app, CSV) alike
RANK_CAPTION = (
    "Rank: competition ranking by mean score (1, =1, =1, 4), rows in order of mean score. "
    f"'{TIE_MARK}N' is tied with the configuration ranked N: their 95% intervals overlap. "
    "A rank without '=' does not overlap the first row of the rank just above it, and its "
    "number is its row. "
    "Limit breakers, and configurations measured on fewer cells, rank after the rest"
)
#: the label of the ``config_key`` column in every table shown
CONFIGURATION = "configuration"
#: a run's figures as every table of runs heads them: where in the matrix, and what it measured
RUN_FIGURES = {
    "cell_key": "cell",
    "repetition": "repetition",
    "iops": "IOPS",
    "mbps": "MB/s",
    "read_lat_p99_ms": "p99 read ms",
    "write_lat_p99_ms": "p99 write ms",
    "steady": "steady",
}


#: what the dimensions linux_md declares say in a key (``chunk_kib=64``); any other declared
#: dimension (a role's own variable) is shown as its name and value
DECLARED_WORDS = {
    "chunk_kib": "a RAID chunk (strip) of {} KiB per drive",
    "drives_per_rank": "{} drives per RAID group (rank)",
    "filesystem": "filesystem on the volume: {} (fio on a file on it; none: the raw volume)",
    "health": "the RAID group's health during the runs: {}",
}


def distinct_labels(names: Iterable[str], taken: Iterable[str], what: str) -> dict[str, str]:
    """A column label for each of ``names`` (user data: class names, a grid's columns) beside
    columns of fixed names (``taken``): the name itself, unless a fixed column or an earlier
    label has it; then the name with what it is (``configuration (class)``, then
    ``(class 2)``...). A class may be named ``dimension`` or ``configuration``: its column
    must never fall on the table's own."""
    used = set(taken)
    labels: dict[str, str] = {}
    for name in names:
        label, n = name, 1
        while label in used:
            label = f"{name} ({what})" if n == 1 else f"{name} ({what} {n})"
            n += 1
        used.add(label)
        labels[name] = label
    return labels


def declared_label(name: str, value: str) -> str:
    """A declared dimension's ``name=value`` part of a key, in words."""
    words = DECLARED_WORDS.get(name)
    return words.format(value) if words else f"{name} = {value} (a dimension the platform declares)"


def rank_label(rank: Any, tied: Any) -> str:
    """A rank as every surface shows it: ``3``, or ``=3`` when tied with the configuration
    ranked 3 (see RANK_CAPTION)."""
    number = str(int(rank))
    return f"{TIE_MARK}{number}" if bool(tied) else number


def metric_unit(metric: str) -> str:
    """``IOPS`` or ``MB/s`` for a class metric (the metric's own name for any other)."""
    return METRIC_UNITS.get(metric, metric)


def metric_text(metric: str, value: Any) -> str:
    """A figure of a run's ``metric`` as the CLI and the report write it: a latency
    (``*_ms``) by ``format_ms`` (``13.27``, ``0.104``), any other by ``figure`` (``3,637``,
    ``340.6``); a dash for none."""
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return figure(value)
    return latency_text(value) if metric.endswith("_ms") else figure(value)


def latency_text(ms: Any) -> str:
    """A latency in ms as every surface writes it (``format_ms``: ``2.30``, ``0.104``); a
    dash for none."""
    if ms is None or not isinstance(ms, int | float) or not math.isfinite(ms):
        return figure(ms)
    return format_ms(ms)


#: decimal terabytes, as drive sizes are given (GB = 10⁹ bytes)
GB_PER_TB = 1000
#: usable capacity as every surface writes it: TB, one decimal, thousands grouped
USABLE_TB_SPEC = ",.1f"


def usable_tb_text(usable_gb: Any) -> str:
    """Usable capacity (given in GB) as every surface writes it: ``14.4`` TB."""
    if usable_gb is None or not isinstance(usable_gb, int | float):
        return figure(usable_gb)
    return figure(usable_gb / GB_PER_TB, USABLE_TB_SPEC)


def curve_point_text(point: Any) -> str:
    """A curve's point as every surface writes it: ``4: 1,737 @ 2.30 ms`` (I/Os in flight,
    IOPS by ``figure``, mean latency by ``latency_text``); a dash for none."""
    if point is None:
        return "–"
    return f"{point.outstanding}: {figure(point.iops)} @ {latency_text(point.latency_ms)} ms"


def limits_text(meets_limits: Any, violations: Any) -> str:
    """``ok``, or the limits a configuration broke (``violations``, ``; ``-separated)."""
    return "ok" if bool(meets_limits) else str(violations)


def limits_brief(meets_limits: Any, violations: Any) -> str:
    """``limits ok``, or the first limit broken and how many more: for a narrow column."""
    if bool(meets_limits):
        return "limits ok"
    broken = str(violations).split("; ")
    more = f" (+{len(broken) - 1} more)" if len(broken) > 1 else ""
    return f"{broken[0]}{more}"


def class_limits_text(limits: Iterable[Any]) -> str:
    """A class's limits in one line, ``none`` without any."""
    return ", ".join(str(lim) for lim in limits) or "none"


def concurrency_label(iodepth: Any, numjobs: Any) -> str:
    return f"qd{int(iodepth)}x{int(numjobs)}"


def concurrency_key(label: str) -> list[int]:
    """Sorts ``qd<iodepth>x<numjobs>`` labels by iodepth, then jobs (anything else first)."""
    return [int(x) for x in label[2:].split("x")] if re.fullmatch(r"qd\d+x\d+", label) else [0]


def curve_name(config_key: str, curve: str) -> str:
    """A curve among all: its configuration and its curve (``WorkloadCell.curve``: the cells'
    key without the concurrency, ``randread/8k/ws10/zipf1.2``)."""
    return f"{config_key} · {curve}"
