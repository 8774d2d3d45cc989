"""What a run says of the load host that ran it: how long fio measured, fio's own CPU use, a
job's error number by name, and one host's share of a run for the disclosure record."""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping, Sequence
from typing import Any

from sweeper.fio.document import job_options
from sweeper.fio.results import FioResult


def measured_ms(job: Mapping[str, Any]) -> float:
    """How long one reported job measured, in ms: the longest of its directions' runtimes.
    With ``group_reporting`` fio sums ``job_runtime`` over the group's jobs (2 jobs of 3 s
    report 6 s) while each direction's runtime is the group's longest; ``job_runtime`` only
    where no direction ran."""
    spans = [
        float(job[d].get("runtime", 0))
        for d in ("read", "write", "trim")
        if isinstance(job.get(d), Mapping)
    ]
    longest = max(spans, default=0.0)
    return longest if longest > 0 else float(job.get("job_runtime", 0))


def cpu_pct(
    jobs: Sequence[Mapping[str, Any]], key: str, document: Mapping[str, Any] | None = None
) -> float | None:
    """fio's own CPU use (``usr_cpu`` or ``sys_cpu``) in percent of one CPU over the time it
    measured, all jobs together; None where fio did not report it.

    fio gives each entry's CPU time as a share of that entry's ``job_runtime``. A
    ``group_reporting`` entry's runtime is its jobs' runtimes summed, so its share is the
    jobs' mean (4 jobs each busy 20% of a CPU report 20%, not 80%): each entry's CPU time is
    share × ``job_runtime``, and the jobs' time over the longest measured span is the
    total. Without ``job_runtime`` (fio-3.7 and older write none) an entry of one job gives
    its own share, and the shares of such entries add; a ``group_reporting`` entry's share is
    still its jobs' mean, and how many jobs it holds is not in the output: None.
    """
    values = [job.get(key) for job in jobs]
    if not all(isinstance(v, int | float) for v in values):
        return None
    spans = [job.get("job_runtime") for job in jobs]
    window = max((measured_ms(job) for job in jobs), default=0.0)
    if window > 0 and all(isinstance(s, int | float) and s > 0 for s in spans):
        return float(sum(v * s for v, s in zip(values, spans, strict=True)) / window)
    if any(_group_reported(document or {}, job) for job in jobs):
        return None
    return float(sum(values))


def _group_reported(document: Mapping[str, Any], job: Mapping[str, Any]) -> bool:
    """Whether fio reported this entry for its whole group (``group_reporting`` set; fio
    writes a flag given without a value as ``""``)."""
    options = job_options(document, job)
    return "group_reporting" in options and options["group_reporting"].strip() != "0"


def errno_name(error: object) -> str:
    """fio's error number as ``ENAME: message`` (anything else as it is)."""
    if isinstance(error, int) and error in errno.errorcode:
        return f"{errno.errorcode[error]}: {os.strerror(error)}"
    return "unknown errno"


def host_figures(result: FioResult) -> dict[str, Any]:
    """One load host's share of a run, for the disclosure record."""
    out: dict[str, Any] = {}
    for name in ("read", "write"):
        d = getattr(result, name)
        if d is not None:
            out[name] = {
                "iops": d.iops,
                "mbps": d.mbps,
                "lat_mean_ms": d.lat_mean_ms,
                "lat_p99_ms": d.lat_p99_ms,
            }
    if result.sync is not None:
        out["sync"] = {"count": result.sync.count, "lat_p99_ms": result.sync.lat_p99_ms}
    return out
