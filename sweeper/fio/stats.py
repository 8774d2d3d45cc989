"""The figures of fio's job entries: each direction's rates and latency, the fsync/fdatasync
latency, percentiles over all I/Os from the merged histograms, and a composite run's streams,
aggregated over jobs as fio's group figures are."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from sweeper.fio.checks import check_sync_possible
from sweeper.fio.results import DirectionStats, FioParseError, StreamResult, SyncStats

_PERCENTILES = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}
_NS_PER_MS = 1e6


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
