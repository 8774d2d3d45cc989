"""Read fio's ``--output-format=json`` (or ``json+``) output into per-direction figures.

Pure functions, no I/O. fio prints notes and error lines on stdout around the JSON document
(e.g. ``note: both iodepth >= 1 and synchronous I/O engine are selected...``); they are skipped.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

#: a document starts a line, or follows the carriage return of fio's ETA line (``--eta=always``
#: writes ``Jobs: 1 (f=1)\r{``)
_JSON_START = re.compile(r"^\{|(?<=\r)\{", re.MULTILINE)
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
_PERCENTILES = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}
_NS_PER_MS = 1e6


class FioParseError(ValueError):
    """The text is not usable fio JSON output; the message says what was wrong."""


class FioRunError(RuntimeError):
    """fio ran but a job reported a non-zero ``error`` (an errno)."""


@dataclass(frozen=True)
class DirectionStats:
    """Figures for one direction (read or write), all jobs of the run together."""

    iops: float
    mbps: float  # bw_bytes / 1e6
    #: total latency (lat_ns: submission + completion); None where fio did not time it
    #: (``disable_lat``, ``gtod_reduce``): completion latency is never passed off as total
    lat_mean_ms: float | None
    #: percentiles of the total latency (``lat_percentiles=1``, as raidsweep's job files set
    #: it); None where fio reported completion-latency percentiles only
    lat_p50_ms: float | None
    lat_p95_ms: float | None
    lat_p99_ms: float | None
    lat_p999_ms: float | None
    lat_p9999_ms: float | None
    total_ios: int


@dataclass(frozen=True)
class SyncStats:
    """The latency of the run's fsync/fdatasync calls (fio's ``sync`` section), all jobs."""

    count: int
    lat_mean_ms: float
    lat_p50_ms: float | None
    lat_p95_ms: float | None
    lat_p99_ms: float | None
    lat_p999_ms: float | None
    lat_p9999_ms: float | None


@dataclass(frozen=True)
class FioResult:
    read: DirectionStats | None  # None when that direction did no I/O
    write: DirectionStats | None
    job_options: dict[str, str]  # 'global options' merged with the first job's 'job options'
    fio_version: str
    jobs: int  # number of job entries in the JSON
    sync: SyncStats | None = None  # None when the run made no fsync/fdatasync calls
    #: fio's own CPU use in user and system mode, percent of one CPU over the measured time,
    #: all jobs together (``cpu_pct``)
    usr_cpu_pct: float | None = None
    sys_cpu_pct: float | None = None
    #: a composite run's streams, one per job group in group order (empty: one stream)
    streams: tuple[StreamResult, ...] = ()


@dataclass(frozen=True)
class StreamResult:
    """One stream of a composite run: the figures of its job group alone."""

    group: int
    jobname: str
    read: DirectionStats | None
    write: DirectionStats | None
    sync: SyncStats | None = None


def find_document(text: str) -> dict[str, Any]:
    """The JSON document in fio's output (which may have lines of its own around it).

    With ``--status-interval`` fio prints a whole report at every interval, each cumulative,
    and the last is the run's result: the last document is returned, and one cut short after
    the earlier ones is an error, never a silent fall back to an interim report."""
    if not isinstance(text, str):
        raise FioParseError(f"fio output must be text, not {type(text).__name__}")
    if not text.strip():
        raise FioParseError("fio output is empty")
    start = _JSON_START.search(text)
    if start is None:
        first = text.strip().splitlines()[0][:200]
        raise FioParseError(f"fio output contains no JSON object (it begins {first!r})")
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    while start is not None:
        try:
            document, end = decoder.raw_decode(text, start.start())
        except json.JSONDecodeError as exc:
            where = f" (its report {len(documents) + 1})" if documents else ""
            raise FioParseError(f"fio JSON output is truncated or invalid{where}: {exc}") from exc
        documents.append(document)
        start = _JSON_START.search(text, end)
    document = documents[-1]
    if not isinstance(document, dict):
        raise FioParseError("fio JSON output is not an object")
    return document


def _percentile(stats: Mapping[str, Any], pct: float) -> float | None:
    value = stats.get("percentile", {}).get(f"{pct:.6f}")
    return None if value is None else float(value) / _NS_PER_MS


def _timed(stats: Mapping[str, Any]) -> bool:
    """Whether fio timed any sample of these latency stats. fio from 3.19 (3.16 and before do
    not) gives the sample count ``N``; without it, an untimed entry (``disable_lat``,
    ``gtod_reduce``, a direction that did no I/O) is all zeros, a timed one has a mean."""
    if "N" in stats:
        return int(stats["N"]) > 0
    return float(stats.get("mean", 0) or 0) > 0


def _samples(stats: Mapping[str, Any], fallback: object = None) -> int | None:
    """How many latency samples these stats hold: fio's ``N``; where fio did not write it
    (3.16 and before), the sum of the ``json+`` histogram's bins (which equals ``N`` in the
    fio versions that write both), else ``fallback``."""
    if "N" in stats:
        return int(stats["N"])
    bins = stats.get("bins")
    if isinstance(bins, dict) and bins:
        return sum(int(count) for count in bins.values())
    return None if fallback is None else int(fallback)  # type: ignore[call-overload]


def _latency_source(direction: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """(stats for the mean, stats holding the percentiles) of one job's direction: fio's total
    latency (``lat_ns``) for both, each empty where fio did not measure or report it.
    ``clat_ns`` is completion latency alone (without the submission); a figure taken from
    it under a total-latency label would be another measure, so it is never used."""
    lat = direction.get("lat_ns") or {}
    mean_src = lat if _timed(lat) else {}
    pct_src = lat if lat.get("percentile") or lat.get("bins") else {}
    return mean_src, pct_src


def direction_stats(jobs: Sequence[Mapping[str, Any]], name: str) -> DirectionStats | None:
    """Aggregate one direction over jobs, as fio's group figures do.

    IOPS and bandwidth are the jobs' I/Os and bytes over the longest of their runtimes (fio's
    "Run status group" line; with equal runtimes, the sum of the jobs' rates; jobs that ended
    earlier are not counted as if they had run the whole time). The mean latency is weighted
    by each job's latency samples (``N``; fio 3.16 and older do not write it: the ``json+``
    bins' sum, else the job's I/O count, which differs from ``N`` only by I/Os in flight
    across a ``ramp_time`` boundary). Percentiles over all I/Os come from the merged JSON+
    histograms when fio wrote them; from plain JSON, per-job percentiles cannot be combined,
    so they are None for several jobs (``group_reporting`` or ``json+`` gives them).
    """
    parts = [job[name] for job in jobs if int(job[name]["total_ios"]) > 0]
    if not parts:
        return None
    total_ios = sum(int(d["total_ios"]) for d in parts)
    sources = [_latency_source(d) for d in parts]
    mean_ms = None
    if all(m for m, _ in sources):
        weights = [
            _samples(m, d["total_ios"]) or 0 for (m, _), d in zip(sources, parts, strict=True)
        ]
        samples = sum(weights)
        if samples > 0:
            weighted = sum(float(m["mean"]) * w for (m, _), w in zip(sources, weights, strict=True))
            mean_ms = weighted / samples / _NS_PER_MS
    pcts = histogram_percentiles(jobs, name)
    iops = sum(float(d["iops"]) for d in parts)
    mbps = sum(float(d["bw_bytes"]) for d in parts) / 1e6
    runtimes = [d.get("runtime") for d in parts]
    if len(parts) > 1 and all(isinstance(r, int | float) and r > 0 for r in runtimes):
        longest_s = max(float(r) for r in runtimes) / 1000.0  # type: ignore[arg-type]
        iops = total_ios / longest_s
        mbps = sum(int(d["io_bytes"]) for d in parts) / longest_s / 1e6
    return DirectionStats(
        iops=iops,
        mbps=mbps,
        lat_mean_ms=mean_ms,
        lat_p50_ms=pcts["p50"],
        lat_p95_ms=pcts["p95"],
        lat_p99_ms=pcts["p99"],
        lat_p999_ms=pcts["p999"],
        lat_p9999_ms=pcts["p9999"],
        total_ios=total_ios,
    )


def histogram_percentiles(
    entries: Sequence[Mapping[str, Any]], name: str
) -> dict[str, float | None]:
    """Latency percentiles of one direction over all entries' I/Os together.

    From the merged ``json+`` histograms, the way fio computes a percentile (the first bin
    whose cumulative count reaches pct/100 of all samples). fio compares in extended precision
    (``long double``); the threshold here is exact, so that at a count where pct/100 of it is
    a whole number in doubles but not in fact (99.9% of 33,000) the bin is fio's, not the one
    before. Without histograms (plain JSON) one entry's own percentiles, and None for several:
    their maximum is only an upper bound (twice the true p99 in a run of three jobs), and a
    bound stored as the percentile would be a figure nobody measured.
    """
    parts = [e[name] for e in entries if int(e[name]["total_ios"]) > 0]
    sources = [_latency_source(d)[1] for d in parts]
    if not parts or not all(sources):  # an entry without total-latency percentiles
        return dict.fromkeys(_PERCENTILES)
    if all(isinstance(s.get("bins"), dict) for s in sources):
        bins: Counter[int] = Counter()
        for src in sources:
            for value, count in src["bins"].items():
                bins[int(value)] += int(count)
        total = sum(bins.values())
        if total > 0:
            out: dict[str, float | None] = {}
            ordered = sorted(bins.items())
            for key, pct in _PERCENTILES.items():
                cumulative, found = 0, ordered[-1][0]
                needed = math.ceil(Fraction(pct) * total / 100)
                for value, count in ordered:
                    cumulative += count
                    if cumulative >= needed:
                        found = value
                        break
                out[key] = found / _NS_PER_MS
            return out
    if len(sources) > 1:  # several jobs' percentiles cannot be combined into the run's
        return dict.fromkeys(_PERCENTILES)
    return {key: _percentile(sources[0], pct) for key, pct in _PERCENTILES.items()}


def sync_stats(jobs: Sequence[Mapping[str, Any]]) -> SyncStats | None:
    """The fsync/fdatasync latency over jobs (fio's ``sync`` section; its ``total_ios`` stays 0,
    the count is ``lat_ns.N``), the mean weighted by each job's count, percentiles as in
    ``histogram_percentiles``; None when no job made a sync call. fio 3.16 and older write no
    ``N``: the count is then the ``json+`` bins' sum (or the section's ``total_ios`` where it is
    not 0), and a timed sync latency whose count fio did not write at all is refused rather
    than read as no sync calls."""
    timed = [
        job
        for job in jobs
        if isinstance(job.get("sync"), dict) and _timed(job["sync"].get("lat_ns") or {})
    ]
    if not timed:
        return None
    for job in timed:
        check_sync_possible(job)
    parts = [job["sync"]["lat_ns"] for job in timed]
    counts = [
        _samples(job["sync"]["lat_ns"], job["sync"].get("total_ios") or None) for job in timed
    ]
    uncounted = [job for job, c in zip(timed, counts, strict=True) if not c or c <= 0]
    if uncounted:
        raise FioParseError(
            f"fio job {uncounted[0].get('jobname', '?')!r} timed fsync/fdatasync calls but its "
            "output does not say how many (no lat_ns.N in its sync section, as fio 3.16 and "
            "older write it, and no json+ bins): run with --output-format=json+ or a newer fio"
        )
    count = sum(int(c or 0) for c in counts)
    entries = [
        {"sync": {"total_ios": c, "lat_ns": lat}} for c, lat in zip(counts, parts, strict=True)
    ]
    pcts = histogram_percentiles(entries, "sync")
    weighted = sum(float(lat["mean"]) * int(c or 0) for c, lat in zip(counts, parts, strict=True))
    return SyncStats(
        count=count,
        lat_mean_ms=weighted / count / _NS_PER_MS,
        lat_p50_ms=pcts["p50"],
        lat_p95_ms=pcts["p95"],
        lat_p99_ms=pcts["p99"],
        lat_p999_ms=pcts["p999"],
        lat_p9999_ms=pcts["p9999"],
    )


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
        why = f"its JSON has no {_or_list(lacking)}" if lacking else "its JSON is not checked"
        raise FioParseError(
            f"the output is from {version}, older than fio-{OLDEST_FIO[0]}.{OLDEST_FIO[1]}, the"
            f" oldest fio whose JSON raidsweep reads ({why}): install a newer fio"
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


def job_options(document: Mapping[str, Any], job: Mapping[str, Any]) -> dict[str, str]:
    """A job's options as fio ran it: the document's global options, then the job's own."""
    options = {str(k): str(v) for k, v in (document.get("global options") or {}).items()}
    options.update({str(k): str(v) for k, v in (job.get("job options") or {}).items()})
    return options


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


def group_streams(jobs: Sequence[Mapping[str, Any]]) -> tuple[StreamResult, ...]:
    """Each job group's own figures, in group order."""
    groups: dict[int, list[Mapping[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(int(job.get("groupid", 0)), []).append(job)
    return tuple(
        StreamResult(
            group=gid,
            jobname=str(members[0].get("jobname", "")),
            read=direction_stats(members, "read"),
            write=direction_stats(members, "write"),
            sync=sync_stats(members),
        )
        for gid, members in sorted(groups.items())
    )


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
