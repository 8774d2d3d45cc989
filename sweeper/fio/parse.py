"""Read fio's ``--output-format=json`` (or ``json+``) output into per-direction figures.

Pure functions, no I/O: ``parse_fio_output`` finds the document (``document``), refuses output
a measurement cannot be trusted from (``checks``) and aggregates the job entries' figures
(``stats``, ``host``) into a ``FioResult`` (``results``). The names of those modules stay
importable from here.
"""

from __future__ import annotations

from sweeper.fio.checks import (
    OLDEST_FIO,
    check_directions,
    check_not_verified,
    check_one_group,
    check_sync_possible,
    check_version,
    check_whole_runtime,
)
from sweeper.fio.document import find_document, job_options
from sweeper.fio.host import cpu_pct, errno_name, host_figures, measured_ms
from sweeper.fio.results import FioParseError, FioResult, FioRunError
from sweeper.fio.stats import direction_stats, group_streams, histogram_percentiles, sync_stats

__all__ = [
    "OLDEST_FIO",
    "FioParseError",
    "FioResult",
    "FioRunError",
    "check_directions",
    "check_not_verified",
    "check_one_group",
    "check_sync_possible",
    "check_version",
    "check_whole_runtime",
    "cpu_pct",
    "direction_stats",
    "errno_name",
    "find_document",
    "group_streams",
    "histogram_percentiles",
    "host_figures",
    "job_options",
    "measured_ms",
    "parse_fio_output",
    "sync_stats",
]


def parse_fio_output(text: str, *, concurrent_groups: bool = False) -> FioResult:
    """Parse fio's stdout from ``--output-format=json`` or ``json+``.

    Raises FioParseError when there is no complete fio JSON document, when it comes from an
    fio older than 3.12 or holds several job groups (stonewalled jobs ran one after another:
    not one run), and FioRunError when a job reports a non-zero error. Several job entries of
    one group (no ``group_reporting``) are aggregated (see ``direction_stats``).

    ``concurrent_groups``: the job file is a composite cell's, whose groups ran at the same
    time (``new_group`` without ``stonewall``; fio's JSON does not say which, the job file
    does): the figures are over every group, and each group's are kept in ``streams``.
    """
    document = find_document(text)
    check_version(document.get("fio version", ""), document.get("jobs"))
    jobs = document.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        raise FioParseError("fio JSON output has no 'jobs' list (or it is empty)")
    for job in jobs:
        if not isinstance(job, dict):
            raise FioParseError("fio JSON 'jobs' holds a non-object entry")
    if not concurrent_groups:
        check_one_group(jobs)
    for job in jobs:
        error = job.get("error", 0)
        if error:
            raise FioRunError(
                f"fio job {job.get('jobname', '?')!r} failed with error {error}"
                f" ({errno_name(error)})"
            )
    try:
        check_directions(jobs)
        read = direction_stats(jobs, "read")
        write = direction_stats(jobs, "write")
        sync = sync_stats(jobs)
        streams = group_streams(jobs) if concurrent_groups else ()
        usr, sys = cpu_pct(jobs, "usr_cpu", document), cpu_pct(jobs, "sys_cpu", document)
    except FioParseError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
        raise FioParseError(f"fio JSON job entry is missing or has a bad field: {exc!r}") from exc
    check_not_verified(document, jobs)
    check_whole_runtime(document, jobs)
    options = job_options(document, jobs[0])
    return FioResult(
        read=read,
        write=write,
        job_options=options,
        fio_version=str(document.get("fio version", "")),
        jobs=len(jobs),
        sync=sync,
        usr_cpu_pct=usr,
        sys_cpu_pct=sys,
        streams=streams,
    )
