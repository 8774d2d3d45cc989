"""Telemetry of a run: the load host's CPU and the target's block-layer view, and the flag.

Pure functions over the text of ``/proc/stat`` and ``/proc/diskstats``: two snapshots give the
figures over the window between them. Every figure is over all CPUs and the whole window:

- ``host_cpu_pct``: busy share of every CPU of the load host (user, nice, system, irq,
  softirq, steal; idle and iowait are not busy); ``host_user_pct`` its share in user mode
  (user and nice: programs, never the kernel's own threads), ``host_steal_pct`` the share a
  hypervisor gave to other virtual machines.
- ``other_cpus``: the CPUs programs other than fio kept busy in user mode, ``host_user_pct``
  × CPUs − fio's own user CPU (``cpu_pct``). Kernel threads that work for the I/O (md's
  raid5d, kworkers, interrupts) spend system time, never user time, so this is other
  programs' work beside the run: a backup, a build, a busy neighbour's QEMU.
- ``disk_iops``: requests the block layer received per second, completed plus merged (a
  merged request is one fio I/O folded into another), reads and writes; ``disk_mbps`` the
  bytes moved; ``disk_await_ms`` the mean time a request spent queued and served (iostat's
  await); ``disk_util_pct`` the share of the window the device was busy; ``disk_queue`` the
  mean number of requests in flight (iostat's aqu-sz).

A run is flagged (``telemetry_flag``) when a load host was at least ``CPU_SATURATED_PCT`` busy
(it measured itself, not the storage), when other programs kept at least ``OTHER_CPUS`` of
its CPUs busy (fio shared them: its threads wait for a CPU after each I/O, which lowers a
synchronous run's IOPS long before the host is saturated), when a hypervisor took at least
``STEAL_PCT`` of its CPU time, or when the target is a block device and the block
layer saw neither the IOPS nor the bytes fio reports within ``AGREEMENT_PCT`` (the I/O did not
all reach the device, or something else used it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sweeper.capture.diskstats import FIELDS, WRAP, WRAPPING
from sweeper.fio.parse import FioParseError, cpu_pct, find_document, measured_ms

#: a load host at least this busy, averaged over its CPUs and the window, measured itself
CPU_SATURATED_PCT = 90.0
#: CPUs other programs may keep busy beside fio before a run is flagged
OTHER_CPUS = 0.5
#: share of the load host's CPU time a hypervisor may give to other machines, in percent
STEAL_PCT = 10.0
#: the block layer's IOPS (or bytes) and fio's may differ by this much, in percent
AGREEMENT_PCT = 10.0
_SECTOR = 512
#: where, among the 11 diskstats fields a snapshot keeps, the kernel's 32-bit milliseconds are
#: (``%u``: read_ms, write_ms, io_ms, weighted_ms), which wrap at ``WRAP``
_WRAPPING_MS = tuple(i for i, name in enumerate(FIELDS[:11]) if name in WRAPPING)


@dataclass(frozen=True)
class Snapshot:
    """The counters at one moment: the time (seconds since the epoch on that host), CPU
    jiffies (busy, total, user, steal) over all CPUs, and the device's diskstats fields
    (None: unseen)."""

    t: float
    cpu: tuple[float, ...]
    disk: tuple[float, ...] | None


def parse_cpu(stat_text: str) -> tuple[int, int, int, int]:
    """(busy, total, user, steal) jiffies from the ``cpu`` line of ``/proc/stat`` (every CPU
    together); user is user and nice time (guest time is counted there too)."""
    for line in stat_text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            v = [int(x) for x in parts[1:9]] + [0] * (8 - len(parts[1:9]))
            user, nice, system, idle, iowait, irq, softirq, steal = v
            busy = user + nice + system + irq + softirq + steal
            return busy, busy + idle + iowait, user + nice, steal
    raise ValueError("/proc/stat has no cpu line")


def parse_disk(diskstats_text: str, device: str | None) -> tuple[int, ...] | None:
    """The counters of ``device`` in ``/proc/diskstats`` (the fields after its name)."""
    if not device:
        return None
    for line in diskstats_text.splitlines():
        parts = line.split()
        if len(parts) >= 14 and parts[2] == device:
            return tuple(int(x) for x in parts[3:14])
    return None


def window_figures(a: Snapshot, b: Snapshot) -> dict[str, Any]:
    """The figures over the window from ``a`` to ``b``."""
    dt = b.t - a.t
    total = b.cpu[1] - a.cpu[1]

    def share(i: int) -> float | None:
        return 100.0 * (b.cpu[i] - a.cpu[i]) / total if total > 0 else None

    out: dict[str, Any] = {
        "window_s": round(dt, 3),
        "host_cpu_pct": share(0),
        "host_user_pct": share(2),
        "host_steal_pct": share(3),
    }
    if a.disk is None or b.disk is None or dt <= 0:
        return out
    d = [y - x for x, y in zip(a.disk, b.disk, strict=True)]
    # the milliseconds (read, write, busy, weighted) are 32-bit in the kernel: they wrap
    for i in _WRAPPING_MS:
        d[i] %= WRAP
    reads, rmerged, rsect, rms, writes, wmerged, wsect, wms, _, ticks, weighted = d
    completed = reads + writes
    return out | {
        "disk_iops": (completed + rmerged + wmerged) / dt,
        "disk_mbps": (rsect + wsect) * _SECTOR / dt / 1e6,
        "disk_await_ms": (rms + wms) / completed if completed else None,
        "disk_util_pct": min(100.0, ticks / (dt * 1000) * 100),
        "disk_queue": weighted / (dt * 1000),
    }


def measured_window(fio_stdout: str) -> tuple[float, float] | None:
    """fio's measured interval (after the ramp) in seconds since the epoch: it ends when fio
    wrote its output (``timestamp_ms``) and lasts as long as the longest job measured."""
    try:
        doc = find_document(fio_stdout)
        end = float(doc["timestamp_ms"]) / 1000
        runtime = max(measured_ms(j) for j in doc["jobs"]) / 1000
    except (FioParseError, KeyError, TypeError, ValueError):
        return None
    return (end - runtime, end) if runtime > 0 else None


def with_other_work(record: Mapping[str, Any], fio_stdout: str) -> dict[str, Any]:
    """The record with ``other_cpus``: the CPUs programs other than fio kept busy in user mode
    over the window (None where fio's CPU, the host's or its CPU count is unknown)."""
    out = dict(record)
    try:
        fio_user = cpu_pct(find_document(fio_stdout)["jobs"], "usr_cpu")
    except (FioParseError, KeyError, TypeError, ValueError):
        fio_user = None
    user, cpus = record.get("host_user_pct"), record.get("cpus")
    if fio_user is None or user is None or not cpus:
        out["other_cpus"] = None
    else:
        out["other_cpus"] = round(max(0.0, user / 100 * cpus - fio_user / 100), 3)
    return out


def _at(samples: list[Snapshot], t: float) -> Snapshot:
    """The counters at time ``t``, interpolated between the samples on either side of it."""
    before = [s for s in samples if s.t <= t]
    after = [s for s in samples if s.t >= t]
    if not before or not after:
        return (before or after)[-1 if before else 0]
    x, y = before[-1], after[0]
    if y.t == x.t:
        return x
    f = (t - x.t) / (y.t - x.t)

    def mix(p: tuple[float, ...], q: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(u + f * (v - u) for u, v in zip(p, q, strict=True))

    disk = mix(x.disk, y.disk) if x.disk is not None and y.disk is not None else None
    return Snapshot(t, mix(x.cpu, y.cpu), disk)  # type: ignore[arg-type]


def _unwrapped(samples: list[Snapshot]) -> list[Snapshot]:
    """The samples (in time order) with the 32-bit millisecond counters carried past each
    wrap, so that an edge interpolated between two samples across a wrap lies between them."""
    out: list[Snapshot] = []
    offset = dict.fromkeys(_WRAPPING_MS, 0)
    last: tuple[float, ...] | None = None
    for s in samples:
        if s.disk is None:
            out.append(s)
            continue
        disk = list(s.disk)
        for i in _WRAPPING_MS:
            if last is not None and disk[i] < last[i]:
                offset[i] += WRAP
        last = s.disk
        for i in _WRAPPING_MS:
            disk[i] += offset[i]
        out.append(Snapshot(s.t, s.cpu, tuple(disk)))
    return out


def series_figures(samples: list[Snapshot], window: tuple[float, float] | None) -> dict[str, Any]:
    """The figures over fio's measured ``window`` (its edges interpolated between the samples
    around them; the whole series when fio gave no window or the samples do not enclose
    it), with the busiest sampled interval's CPU share."""
    samples = _unwrapped(samples)
    measured = window is not None and len(samples) >= 2 and samples[0].t <= window[0] < window[1]
    if measured:
        assert window is not None
        ends = [_at(samples, window[0]), _at(samples, min(window[1], samples[-1].t))]
        inner = [s for s in samples if window[0] < s.t < ends[1].t]
        chosen = [ends[0], *inner, ends[1]]
    else:
        chosen = samples
    out = window_figures(chosen[0], chosen[-1])
    peaks = [
        window_figures(a, b)["host_cpu_pct"]
        for a, b in zip(chosen[:-1], chosen[1:], strict=True)
        if b.t - a.t >= 0.5
    ]
    peaks = [p for p in peaks if p is not None]
    return out | {
        "window": "measured" if measured else "fio process",
        "samples": len(samples),
        "host_cpu_peak_pct": max(peaks) if peaks else None,
    }


def combine(hosts: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One record over several load hosts, each on its own copy of the target: the busiest
    host's CPU (and the most other programs' CPUs and steal of any host), the devices' IOPS
    and bytes summed, await weighted by IOPS, the busiest device's utilisation, the queues
    summed; each host's record kept under ``hosts``."""
    if len(hosts) == 1:
        return dict(next(iter(hosts.values())))
    recs = list(hosts.values())

    def values(key: str) -> list[float]:
        return [float(r[key]) for r in recs if r.get(key) is not None]

    out: dict[str, Any] = {"hosts": {k: dict(v) for k, v in hosts.items()}}
    out["target_is_device"] = all(r.get("target_is_device") for r in recs)
    for key in ("host_cpu_pct", "host_user_pct", "host_steal_pct", "other_cpus"):
        out[key] = max(values(key), default=None)
    for key in ("disk_iops", "disk_mbps", "disk_queue"):
        out[key] = sum(values(key)) if values(key) else None
    out["disk_util_pct"] = max(values("disk_util_pct"), default=None)
    pairs = [(r["disk_await_ms"], r["disk_iops"]) for r in recs if r.get("disk_await_ms")]
    weight = sum(w for _, w in pairs)
    out["disk_await_ms"] = sum(a * w for a, w in pairs) / weight if weight else None
    return out


def _off(seen: float | None, expected: float) -> float | None:
    if seen is None or expected <= 0:
        return None
    return 100.0 * abs(seen - expected) / expected


def telemetry_flag(telemetry: Mapping[str, Any], fio_iops: float, fio_mbps: float) -> str | None:
    """Why the run's figures are suspect (None when they are not): a load host saturated,
    or the block layer's view disagreeing with fio's where the target is the device."""
    reasons = []
    hosts = telemetry.get("hosts") or {telemetry.get("host"): telemetry}
    for host, rec in hosts.items():
        where = f"load host {host}" if host else "the load host"
        cpu, other, steal = (rec.get(k) for k in ("host_cpu_pct", "other_cpus", "host_steal_pct"))
        if cpu is not None and cpu >= CPU_SATURATED_PCT:
            reasons.append(
                f"{where} was {cpu:.0f}% busy (≥ {CPU_SATURATED_PCT:.0f}%): it measured itself"
            )
        elif other is not None and other >= OTHER_CPUS:
            reasons.append(
                f"other programs on {where} kept {other:.1f} CPUs busy beside fio"
                f" (≥ {OTHER_CPUS:g}): they shared its CPUs"
            )
        if steal is not None and steal >= STEAL_PCT:
            reasons.append(
                f"{where} lost {steal:.0f}% of its CPU time to other virtual machines"
                f" (steal ≥ {STEAL_PCT:.0f}%)"
            )
    iops_off = _off(telemetry.get("disk_iops"), fio_iops)
    bytes_off = _off(telemetry.get("disk_mbps"), fio_mbps)
    if (
        telemetry.get("target_is_device")
        and iops_off is not None
        and iops_off > AGREEMENT_PCT
        and (bytes_off is None or bytes_off > AGREEMENT_PCT)
    ):
        reasons.append(
            f"the block layer saw {telemetry['disk_iops']:,.0f} IOPS, fio {fio_iops:,.0f} "
            f"(differ by {iops_off:.0f}% > {AGREEMENT_PCT:.0f}%)"
        )
    return "; ".join(reasons) or None


_NAME_RE = re.compile(r"[A-Za-z0-9._+-]{1,64}")


def safe_device_name(name: str) -> str | None:
    """A device name read back from a host, if it looks like one (else None)."""
    name = name.strip()
    return name if _NAME_RE.fullmatch(name) else None
