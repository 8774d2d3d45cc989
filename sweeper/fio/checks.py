"""Whether a measurement can be trusted from fio's output: each check refuses, with a
FioParseError saying why, output whose figures would report a run nobody made (too old an fio,
several job groups, a verify pass, trims or mixed reporting, a run stopped early, mis-timed
sync calls)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sweeper.fio.document import job_options
from sweeper.fio.host import measured_ms
from sweeper.fio.results import FioParseError

#: fio's time units (``runtime=5m``); a bare number is seconds
_TIME_UNITS = {
    "us": 1e-6,
    "usec": 1e-6,
    "ms": 1e-3,
    "msec": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}
_TIME_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)
#: a time-based job that measured less than this share of its runtime was stopped early
_WHOLE_SHARE = 0.9
_VERSION_RE = re.compile(r"fio-(\d+)\.(\d+)")
#: the oldest fio whose JSON holds what the parser reads (``total_ios``, ``lat_ns``, ``bw_bytes``)
OLDEST_FIO = (3, 12)


def check_sync_possible(job: Mapping[str, Any]) -> None:
    """Refuse a job whose longest fsync/fdatasync took longer than the job itself ran
    (``elapsed``, whole seconds, the ramp included, plus one for its rounding): fio sometimes
    times a sync call queued behind asynchronous writes (``ioengine=libaio``) from a start it
    never set, and one such sample (hundreds of seconds in a one-second run) makes the sync
    mean and its upper percentiles meaningless."""
    elapsed = job.get("elapsed")
    longest = job["sync"]["lat_ns"].get("max")
    if not isinstance(elapsed, int | float) or not isinstance(longest, int | float):
        return
    if longest > (float(elapsed) + 1.0) * 1e9:  # ns
        raise FioParseError(
            f"fio job {job.get('jobname', '?')!r} timed an fsync/fdatasync at "
            f"{longest / 1e9:,.1f} s in a job that ran {elapsed} s: fio mis-timed its sync "
            "calls (it does with ioengine=libaio), so their latency cannot be used; run the "
            "cell with ioengine=io_uring or psync"
        )


def check_whole_runtime(document: Mapping[str, Any], jobs: Iterable[Mapping[str, Any]]) -> None:
    """Refuse a time-based job that measured less than 90% of its ``runtime`` (fio stopped
    by a signal, or a job that ended early): its figures are over a shorter window than the
    run claims, and a cut-short run read as whole would be one nobody made. Jobs that stop
    by design (fio's steady-state detector, ``ss=``) are not judged."""
    for job in jobs:
        options = job_options(document, job)
        if "time_based" not in options or options.get("time_based", "").strip() == "0":
            continue
        if any(k in options for k in ("ss", "steadystate")):
            continue
        wanted_s = _seconds(options.get("runtime", ""))
        if not wanted_s:
            continue
        measured_s = measured_ms(job) / 1000.0
        name = job.get("jobname", "?")
        if measured_s <= 0:
            raise FioParseError(
                f"fio job {name!r} measured nothing of the {wanted_s:,g} s it was given: fio did "
                "not run it (its file could not be opened, or it was stopped at once)"
            )
        if measured_s < _WHOLE_SHARE * wanted_s:
            raise FioParseError(
                f"fio job {name!r} measured {measured_s:,.1f} s of the "
                f"{wanted_s:,g} s it was given (runtime={options['runtime']}): it was stopped "
                "early, so its figures are not a whole run"
            )


def _seconds(text: str) -> float | None:
    """fio's time option (``300``, ``5m``, ``1500ms``) in seconds; None where it is not one."""
    m = _TIME_RE.fullmatch(text)
    if m is None:
        return None
    unit = _TIME_UNITS.get(m.group(2).lower() or "s")
    return None if unit is None else float(m.group(1)) * unit


def check_version(version: object, entries: object = None) -> None:
    """Refuse output of an fio older than 3.12. The message names the fields read here that
    the document's job entries (``entries``, when given) lack: they differ from version to
    version (fio 2.x: no ``lat_ns`` or ``bw_bytes``, latencies in microseconds; fio-3.1: no
    ``bw_bytes``; fio-3.7 has both but no ``job_runtime``), so no one list is right for all."""
    m = _VERSION_RE.match(str(version))
    if m and (int(m.group(1)), int(m.group(2))) < OLDEST_FIO:
        lacking = _missing_fields(entries)
        why = f" (its JSON has no {_or_list(lacking)})" if lacking else ""
        oldest = f"fio-{OLDEST_FIO[0]}.{OLDEST_FIO[1]}"
        raise FioParseError(
            f"the output is from {version}, older than {oldest}, the oldest fio whose JSON "
            f"raidsweep reads{why}: install {oldest} or newer where fio ran, and run again"
        )


def _missing_fields(entries: object) -> list[str]:
    """Which of the fields the parser reads (``total_ios``, ``lat_ns``, ``bw_bytes`` in a
    direction, ``job_runtime`` in a job entry) no job entry holds."""
    if not isinstance(entries, list):
        return []
    jobs = [e for e in entries if isinstance(e, Mapping)]
    if not jobs:
        return []
    directions = [
        job[d] for job in jobs for d in ("read", "write", "trim") if isinstance(job.get(d), Mapping)
    ]
    missing = [
        f for f in ("total_ios", "lat_ns", "bw_bytes") if not any(f in d for d in directions)
    ]
    return missing + (["job_runtime"] if not any("job_runtime" in job for job in jobs) else [])


def _or_list(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def check_one_group(jobs: Sequence[Mapping[str, Any]]) -> None:
    """Refuse output of several job groups (``stonewall`` / ``new_group``): they ran one after
    another, and summing them would report one run that never happened."""
    groups = sorted({job.get("groupid", 0) for job in jobs}, key=str)
    if len(groups) > 1:
        names = ", ".join(
            f"{job.get('jobname', '?')!r} (group {job.get('groupid', 0)})" for job in jobs
        )
        raise FioParseError(
            f"fio's output holds {len(groups)} job groups that ran one after another "
            f"(stonewall or new_group): {names}; one run is one group: give each its own job "
            "file"
        )


def check_not_verified(
    document: Mapping[str, Any], jobs: Iterable[Mapping[str, Any]], where: str = ""
) -> None:
    """Refuse a run with a job that verified what it wrote (``where``: e.g. " on host:port"):
    fio reports its verify pass's reads as the job's reads, which raidsweep would count as
    reads made beside the writes. A job with verify that read nothing (no pass ran) or wrote
    nothing (it checked what it read) reports its own I/O only."""
    for job in jobs:
        options = job_options(document, job)
        verify = options.get("verify", "0").strip().lower()
        if verify in ("", "0", "none") or options.get("do_verify", "1").strip() == "0":
            continue
        if _did(job, "write") and _did(job, "read"):
            raise FioParseError(
                f"fio job {job.get('jobname', '?')!r}{where} verified the data it wrote "
                f"(verify={options['verify']}): fio reports the verify pass's reads as the "
                "job's reads; run without verify"
            )


def _did(job: Mapping[str, Any], direction: str) -> bool:
    entry = job.get(direction)
    return isinstance(entry, Mapping) and int(entry.get("total_ios", 0) or 0) > 0


def check_directions(entries: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a run that trimmed, or whose reads and writes fio reported together: raidsweep's
    figures are reads and writes apart, and a run's trims left out of them would read as fewer
    I/Os than it made (or as none at all)."""
    if any("mixed" in e and "read" not in e for e in entries):
        raise FioParseError(
            "fio reported reads and writes together (unified_rw_reporting=mixed): raidsweep "
            "needs each direction's figures; run without unified_rw_reporting"
        )
    trims = sum(
        int(e["trim"].get("total_ios", 0)) for e in entries if isinstance(e.get("trim"), Mapping)
    )
    if trims:
        raise FioParseError(
            f"fio reported {trims} trims (rw=trim, randtrim or trimwrite): raidsweep measures "
            "reads and writes only, and would count the run as if it had not trimmed"
        )
