"""The simulated array's performance model: a closed queueing network solved by exact MVA.

Pure functions of (profile, array state, fio job); ``sweeper/sim/README.md`` gives the
formulas and names each mechanism.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from sweeper.sim.profile import MIRRORED, ArrayProfile

KIB = 1024
MIB = 1024**2
GIB = 1024**3
PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)
# A mirrored read goes to the copy that can serve it sooner: the shorter of two positioning
# times (two idle drives: 2/3 of one; busy drives leave less choice).
MIRROR_POSITIONING = 0.75
# Service-time variability (coefficient of variation) of each kind of work
CV_HIT = 0.3
CV_RANDOM = 0.5
CV_SEQUENTIAL = 0.25
CV_FLASH = 0.35


@dataclass(frozen=True)
class ArrayState:
    """The configuration the simulated array is in (as the playbook recorded it)."""

    raid_level: str
    layout: str
    ranks: int
    stripe_kib: int | None
    cache_policy: str
    snapshots: bool = False
    data_reduction: bool = False
    health: str = "optimal"  # optimal | degraded | rebuilding

    @property
    def write_back(self) -> bool:
        return self.cache_policy.startswith("wb")

    @property
    def read_ahead(self) -> bool:
        return self.cache_policy.endswith("-ra")


@dataclass(frozen=True)
class Job:
    """What the fio job file asks for."""

    rw: str
    read_fraction: float
    block_size: int
    iodepth: int
    numjobs: int
    engine: str
    runtime_s: float
    ramp_s: float
    working_set: int

    @property
    def synchronous(self) -> bool:
        return self.engine in ("sync", "psync", "pvsync", "pvsync2")

    @property
    def outstanding(self) -> int:
        return (1 if self.synchronous else self.iodepth) * self.numjobs

    @property
    def sequential(self) -> bool:
        return not self.rw.startswith("rand")


@dataclass(frozen=True)
class Component:
    """One part of a latency distribution: ``weight`` of the I/Os, gamma with mean and cv."""

    weight: float
    mean_s: float
    cv: float


@dataclass(frozen=True)
class Phase:
    """A stretch of the measurement window with steady throughput (e.g. before and after
    the write cache fills)."""

    share: float  # of the measurement window
    iops: float
    read: tuple[Component, ...]
    write: tuple[Component, ...]


@dataclass(frozen=True)
class Prediction:
    phases: tuple[Phase, ...]
    #: the mechanisms' figures for this run (hit ratios, utilisations, bottleneck, ...)
    explain: dict[str, float | str] = field(default_factory=dict)

    @property
    def iops(self) -> float:
        return sum(p.share * p.iops for p in self.phases)

    def _mean(self, direction: str) -> float:
        total = weight = 0.0
        for p in self.phases:
            comps = getattr(p, direction)
            w = p.share * p.iops
            total += w * sum(c.weight * c.mean_s for c in comps)
            weight += w * sum(c.weight for c in comps)
        return total / weight if weight else 0.0

    @property
    def read_lat_s(self) -> float:
        return self._mean("read")

    @property
    def write_lat_s(self) -> float:
        return self._mean("write")


# ---------------------------------------------------------------------------------------------
# Service times of the drives


def _rotation_s(profile: ArrayProfile) -> float:
    return 60.0 / float(profile.drives.rpm or 7200)


def _positioning_s(profile: ArrayProfile, span: float) -> float:
    """Seek + half a rotation on a drive whose used band is ``span`` of its stroke."""
    d = profile.drives
    if not d.rotating:
        return 0.0
    assert d.avg_seek_ms is not None
    seek = d.track_seek_ms + (d.avg_seek_ms - d.track_seek_ms) * math.sqrt(min(1.0, span))
    return seek / 1000 + 0.5 * _rotation_s(profile)


def _flash_op_s(profile: ArrayProfile, write: bool) -> float:
    d = profile.drives
    if write:
        return (d.program_us or 0.0) * d.write_amplification / 1e6
    return (d.read_us or 0.0) / 1e6


@dataclass
class _Work:
    """Back-end work per host I/O: positioning events and bytes moved (per drive kind)."""

    positions: float = 0.0  # random accesses (seek + rotation, or a flash page operation)
    write_positions: float = 0.0  # of which flash programs (program_us instead of read_us)
    bytes: float = 0.0
    rotations: float = 0.0  # full rotations waited (read-modify-write in place)

    def add(self, other: _Work, times: float = 1.0) -> None:
        self.positions += other.positions * times
        self.write_positions += other.write_positions * times
        self.bytes += other.bytes * times
        self.rotations += other.rotations * times

    def scaled(self, k: float) -> _Work:
        return _Work(
            self.positions * k, self.write_positions * k, self.bytes * k, self.rotations * k
        )


def _random_read(profile: ArrayProfile, level: str, x: float) -> _Work:
    drives = min(profile.raid_groups[level].data, math.ceil(x / (profile.strip_kib * KIB)))
    return _Work(positions=drives, bytes=x)


def _random_write(profile: ArrayProfile, level: str, x: float) -> _Work:
    group = profile.raid_groups[level]
    strip = profile.strip_kib * KIB
    drives = min(group.data, math.ceil(x / strip))
    if level in MIRRORED:
        return _Work(positions=2 * drives, write_positions=2 * drives, bytes=2 * x)
    if group.redundancy == 0:
        return _Work(positions=drives, write_positions=drives, bytes=x)
    full = group.data * strip
    if x >= full:  # full-stripe write: no reads, parity computed from the new data
        return _Work(
            positions=group.width, write_positions=group.width, bytes=x * group.width / group.data
        )
    # Partial stripe: read old data and parity, write new data and parity (RMW).
    touched = drives + group.redundancy
    moved = x + group.redundancy * min(x, strip)
    return _Work(positions=2 * touched, write_positions=touched, bytes=2 * moved)


def _sequential(profile: ArrayProfile, level: str, x: float, write: bool, coalesced: bool) -> _Work:
    group = profile.raid_groups[level]
    overhead = group.width / group.data  # parity or second copy passes under the heads too
    if not write or coalesced or x >= profile.full_stripe_kib(level) * KIB:
        w = _Work(bytes=x * overhead)
        if write and not profile.drives.rotating:
            w.write_positions = w.positions = math.ceil(x / (profile.strip_kib * KIB))
        return w
    if level in MIRRORED or group.redundancy == 0:
        return _Work(bytes=x * overhead)
    # Write-through partial stripe written in place: read old data and parity, wait one
    # rotation, write them back.
    touched = min(group.data, math.ceil(x / (profile.strip_kib * KIB))) + group.redundancy
    return _Work(bytes=2 * x * overhead, rotations=touched)


# ---------------------------------------------------------------------------------------------
# The queueing network


@dataclass
class _Station:
    name: str
    servers: int
    read: float  # seconds of service per host read
    write: float  # seconds of service per host write
    read_on_path: bool = True
    write_on_path: bool = True

    def demand(self, fr: float, fw: float) -> float:
        return fr * self.read + fw * self.write


def _mva(demands: list[float], delay: float, n: int) -> tuple[float, list[float], list[float]]:
    """Exact single-class MVA. Returns X(n), Q(n) and Q(n-1)."""
    q = [0.0] * len(demands)
    q_prev = q
    x = 0.0
    for k in range(1, n + 1):
        q_prev = q
        r = [d * (1 + qi) for d, qi in zip(demands, q, strict=True)]
        x = k / (delay + sum(r))
        q = [x * ri for ri in r]
    return x, q, q_prev


def _solve(
    stations: list[_Station], fr: float, fw: float, delay_r: float, delay_w: float, n: int
) -> tuple[float, float, float, dict[str, float]]:
    """Throughput and per-direction response time of the network with ``n`` I/Os in flight.

    A station with ``m`` servers is one queue of demand ``D/m`` plus a pure delay of
    ``D (m-1)/m`` (Seidmann). Work off the response path (destage, prefetch) only loads
    the station: the array gives host I/O priority over destage and prefetch, so an
    on-path request waits at most for the one in service: its demand grows by
    ``1 + U_off / 2``.
    """
    x_guess = 0.0
    result = (0.0, 0.0, 0.0, {})
    for _ in range(4):
        q_dem, z_r, z_w, d_r, d_w = [], delay_r, delay_w, [], []
        for s in stations:
            off = (0.0 if s.read_on_path else fr * s.read) + (
                0.0 if s.write_on_path else fw * s.write
            )
            u_off = min(1.0, x_guess * off / s.servers)
            inflate = 1.0 + 0.5 * u_off
            m = s.servers
            sr = s.read * inflate if s.read_on_path else 0.0
            sw = s.write * inflate if s.write_on_path else 0.0
            d_r.append(sr / m)
            d_w.append(sw / m)
            z_r += sr * (m - 1) / m
            z_w += sw * (m - 1) / m
            q_dem.append(fr * sr / m + fw * sw / m)
        delay = fr * z_r + fw * z_w
        x, _, q_prev = _mva(q_dem, delay, n)
        r_read = z_r + sum(d * (1 + q) for d, q in zip(d_r, q_prev, strict=True))
        r_write = z_w + sum(d * (1 + q) for d, q in zip(d_w, q_prev, strict=True))
        util = {s.name: x * s.demand(fr, fw) / s.servers for s in stations}
        result = (x, r_read, r_write, util)
        if abs(x - x_guess) <= 1e-3 * max(x, 1.0):
            break
        x_guess = x
    return result


def _servers(profile: ArrayProfile, state: ArrayState) -> tuple[int, float]:
    """Controllers that serve the volume, and the share of the cache they hold."""
    c = profile.controllers.count
    if getattr(profile.affinity, state.layout) == "one":
        owners = 1
    else:
        owners = min(c, state.ranks) if state.layout != "single_rank" else c
    return owners, owners / c


def predict(profile: ArrayProfile, state: ArrayState, job: Job) -> Prediction:
    """Throughput and latency distributions for ``job`` on the array in ``state``."""
    cow = 1.0 if state.snapshots else 0.0
    pred = _predict(profile, state, job, cow)
    if state.snapshots and profile.snapshots is not None:
        # The share of writes that are first writes since the snapshot depends on the
        # throughput, which depends on that share: iterate to the fixed point.
        for _ in range(3):
            cow = _first_write_share(profile, job, pred.iops * (1 - job.read_fraction))
            pred = _predict(profile, state, job, cow)
    return pred


def _first_write_share(profile: ArrayProfile, job: Job, write_iops: float) -> float:
    """Share of the window's writes that copy a grain (snapshot taken as the run starts)."""
    assert profile.snapshots is not None
    grain = profile.snapshots.grain_kib * KIB
    grains = max(1.0, job.working_set / grain)
    per_write = max(1.0, job.block_size / grain)
    if job.sequential:
        return 1.0  # a sequential writer moves on to grains it has not written yet
    a = write_iops * per_write / grains
    t0, t1 = job.ramp_s, job.ramp_s + job.runtime_s
    if a * job.runtime_s < 1e-9:
        return 1.0
    return min(1.0, (math.exp(-a * t0) - math.exp(-a * t1)) / (a * job.runtime_s))


def _predict(profile: ArrayProfile, state: ArrayState, job: Job, cow: float) -> Prediction:
    n = max(1, job.outstanding)
    fr = job.read_fraction
    fw = 1.0 - fr
    bs = float(job.block_size)
    level = state.raid_level
    group = profile.raid_groups[level]
    drives = profile.drives
    ranks = state.ranks
    explain: dict[str, float | str] = {}

    owners, cache_share = _servers(profile, state)
    cache = profile.cache
    read_cache = cache.read_gib * GIB * cache_share * cache.efficiency
    write_cache = cache.write_gib * GIB * cache_share
    tier = cache.flash_tier
    if tier is not None and state.write_back:
        write_cache = tier.capacity_gib * GIB * tier.write_share
    explain["controllers"] = owners

    # A multi-rank volume is spread in units of stripe_kib (host LVM stripe or pool extent);
    # an I/O larger than the unit is split into pieces, each its own I/O below.
    if state.layout != "single_rank" and state.stripe_kib:
        pieces = max(1, math.ceil(bs / (state.stripe_kib * KIB)))
    else:
        pieces = 1
    piece = bs / pieces
    explain["pieces"] = pieces

    # Ranks and drives that serve the I/O
    width = group.width
    failed = 0 if state.health == "optimal" else 1
    if job.sequential and state.layout == "pool_stripe" and ranks > 1:
        # A stream stays on one rank for a whole extent: streams land on ranks at random.
        streams = job.numjobs
        ranks_busy = ranks * (1 - (1 - 1 / ranks) ** streams)
    else:
        ranks_busy = float(ranks)
    busy_drives = ranks_busy * (width - failed)
    if state.health == "rebuilding":
        busy_drives *= 1 - profile.timing.rebuild_share
    explain["drives_busy"] = busy_drives

    # Short-stroking: the working set occupies only a band of each drive.
    span = job.working_set / (ranks * group.data * drives.capacity_gb * 1e9)
    pos = _positioning_s(profile, span)
    explain["positioning_ms"] = pos * 1000

    # Cache hit ratios
    flash_hit = 0.0
    if job.sequential:
        read_hit = cache.prefetch_hit if state.read_ahead else 0.0
    else:
        read_hit = min(1.0, read_cache / max(job.working_set, 1))
        if tier is not None:
            tier_read = tier.capacity_gib * GIB * (1 - tier.write_share) * cache.efficiency
            flash_hit = (1 - read_hit) * min(1.0, tier_read / max(job.working_set, 1))
    miss = max(0.0, 1.0 - read_hit - flash_hit)
    explain["read_hit"] = read_hit
    explain["flash_tier_hit"] = flash_hit

    # Back-end work per host read and write
    if job.sequential:
        read_work = _sequential(profile, level, piece, False, True).scaled(pieces)
        if not state.read_ahead:
            read_work.rotations += 0.5 * pieces  # each request waits for its sector anew
        write_work = _sequential(profile, level, piece, True, state.write_back).scaled(pieces)
    else:
        read_work = _random_read(profile, level, piece).scaled(pieces)
        write_work = _random_write(profile, level, piece).scaled(pieces)
    if level in MIRRORED:
        read_work.positions *= MIRROR_POSITIONING
    if failed:
        # A read of the failed drive's data is rebuilt from the rest of its group.
        rebuild_reads = 1.0 / width if level in MIRRORED else (group.data - 1) / width
        read_work.positions *= 1 + rebuild_reads
        write_work.positions *= 1 + (0 if level in MIRRORED else (group.data - 2) / width)
    if not job.sequential:
        read_work = read_work.scaled(miss)  # read-ahead still moves every sequential byte
    extra_ctrl_r = extra_ctrl_w = 0.0
    if state.data_reduction and profile.data_reduction is not None:
        dr = profile.data_reduction
        read_work.bytes /= dr.ratio
        write_work.bytes /= dr.ratio
        read_work.positions += miss * dr.metadata_ios
        write_work.positions += dr.metadata_ios
        extra_ctrl_r += dr.read_us_per_kib * bs / KIB / 1e6
        extra_ctrl_w += dr.write_us_per_kib * bs / KIB / 1e6
    if cow > 0 and profile.snapshots is not None:
        snap = profile.snapshots
        grain = float(snap.grain_kib * KIB)
        copies = max(1.0, bs / grain) * cow
        cow_work = _random_read(profile, level, grain)
        cow_work.add(_random_write(profile, level, grain))
        cow_work.positions += snap.metadata_ios
        write_work.add(cow_work, copies)
        explain["first_write_share"] = cow

    def drive_time(w: _Work) -> float:
        if drives.rotating:
            return (
                w.positions * pos
                + w.rotations * _rotation_s(profile)
                + w.bytes / (drives.transfer_mib_s * MIB)
            )
        reads = w.positions - w.write_positions
        return reads * _flash_op_s(profile, False) + w.write_positions * _flash_op_s(profile, True)

    def bus_time(w: _Work) -> float:
        return w.bytes / (drives.transfer_mib_s * MIB)

    seq_read_prefetched = job.sequential and state.read_ahead
    stations: list[_Station] = []
    # Host: each fio job is a thread; a blocking engine pays a system call and a context
    # switch per I/O, an asynchronous one only the submission and reaping.
    cpu = (profile.host.sync_us if job.synchronous else profile.host.async_us) / 1e6
    cpu += profile.host.split_us / 1e6 * (pieces - 1)
    host = profile.host
    stations.append(_Station("host_cpu", min(job.numjobs, host.cores), cpu, cpu))
    fe = pieces / (host.hbas * host.hba_iops) + bs / (host.hbas * host.link_mib_s * MIB)
    stations.append(_Station("host_links", 1, fe, fe))
    ctl = profile.controllers
    per_io = pieces / ctl.iops + bs / (ctl.mib_s * MIB)
    if state.layout == "pool_stripe":
        per_io += pieces * profile.pool.extent_map_us / 1e6
    stations.append(_Station("controllers", owners, per_io + extra_ctrl_r, per_io + extra_ctrl_w))
    if tier is not None:
        tier_read = flash_hit * pieces * tier.read_us / 1e6
        tier_write = pieces * tier.program_us / 1e6 if state.write_back else 0.0
        stations.append(
            _Station("flash_tier", tier.devices * tier.parallelism, tier_read, tier_write)
        )
        tier_bytes = bs / (tier.transfer_mib_s * MIB)
        stations.append(
            _Station(
                "flash_tier_bus",
                tier.devices,
                flash_hit * tier_bytes,
                tier_bytes if state.write_back else 0.0,
            )
        )
    servers = max(1, round(busy_drives))
    if drives.rotating:
        stations.append(
            _Station(
                "drives",
                servers,
                drive_time(read_work),
                drive_time(write_work),
                not seq_read_prefetched,
                not state.write_back,
            )
        )
    else:
        stations.append(
            _Station(
                "drive_dies",
                servers * drives.parallelism,
                drive_time(read_work),
                drive_time(write_work),
                not seq_read_prefetched,
                not state.write_back,
            )
        )
        stations.append(
            _Station(
                "drive_bus",
                servers,
                bus_time(read_work),
                bus_time(write_work),
                not seq_read_prefetched,
                not state.write_back,
            )
        )

    hit = ctl.hit_latency_us / 1e6
    x_free, r_read, r_write, util = _solve(stations, fr, fw, hit, hit, n)

    # Work off the response path still bounds throughput: destage and prefetch bandwidth.
    cap = math.inf
    bottleneck = max(util, key=util.get)
    for s in stations:
        total = s.demand(fr, fw)
        if total > 0 and s.servers / total < cap:
            cap = s.servers / total
            bottleneck = s.name
    explain["bottleneck"] = bottleneck
    explain["utilisation"] = round(max(util.values()), 4)

    # Read latency: cache hits and misses are two populations.
    def read_parts(r_total: float, rho: float) -> tuple[Component, ...]:
        if fr == 0:
            return ()
        r_hit = hit + cpu + fe + per_io
        if seq_read_prefetched or miss <= 1e-9 or r_total <= r_hit:
            return (Component(1.0, max(r_total, 1e-6), _cv(CV_HIT, rho)),)
        r_miss = r_hit + (r_total - r_hit) / miss
        cs = CV_FLASH if not drives.rotating else CV_RANDOM
        return (
            Component(1 - miss, r_hit, _cv(CV_HIT, 0.0)),
            Component(miss, r_miss, _cv(cs, rho)),
        )

    def write_parts(r_total: float, rho: float) -> tuple[Component, ...]:
        if fw == 0:
            return ()
        if state.write_back:
            cs = CV_HIT
        else:
            cs = CV_SEQUENTIAL if job.sequential else (CV_RANDOM if drives.rotating else CV_FLASH)
        return (Component(1.0, max(r_total, 1e-6), _cv(cs, rho)),)

    rho = min(1.0, max(util.values()))
    if x_free <= cap * (1 + 1e-9):
        phase = Phase(1.0, x_free, read_parts(r_read, rho), write_parts(r_write, rho))
        return Prediction((phase,), explain)

    # The back end cannot keep up. Until the write cache fills, writes are absorbed at the
    # free-running rate; then throughput falls to what the back end destages (reads: what
    # read-ahead can fetch) and the blocked direction waits for it (Little: N = X R).
    x_b = cap
    blocked_writes = fw > 0 and state.write_back
    r_total = n / x_b
    if blocked_writes:
        rb_read = r_read
        rb_write = max(r_write, (r_total - fr * r_read) / fw)
    elif fr > 0:
        rb_write = r_write
        rb_read = max(r_read, (r_total - fw * r_write) / fr)
    else:
        rb_read, rb_write = r_read, max(r_write, r_total)
    steady = Phase(0.0, x_b, read_parts(rb_read, 1.0), write_parts(rb_write, 1.0))
    share_free = 0.0
    if blocked_writes and write_cache > 0:
        fill_rate = fw * bs * (x_free - x_b)
        t_fill = write_cache / fill_rate
        share_free = min(1.0, max(0.0, (t_fill - job.ramp_s) / job.runtime_s))
        explain["write_cache_full_after_s"] = round(t_fill, 1)
    if share_free <= 0:
        return Prediction((Phase(1.0, x_b, steady.read, steady.write),), explain)
    free = Phase(share_free, x_free, read_parts(r_read, rho), write_parts(r_write, rho))
    steady = Phase(1 - share_free, x_b, steady.read, steady.write)
    return Prediction((free, steady), explain)


def _cv(service_cv: float, rho: float) -> float:
    """Queueing pushes a response-time distribution toward the exponential (cv 1)."""
    rho = min(1.0, max(0.0, rho))
    return math.sqrt(service_cv**2 * (1 - rho) + rho)


# ---------------------------------------------------------------------------------------------
# fio's JSON


def _seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def mixture_percentiles(
    parts: list[tuple[float, float, float]], quantiles: np.ndarray
) -> np.ndarray:
    """Quantiles of a mixture of gamma distributions given as (weight, mean, cv)."""
    w = np.array([p[0] for p in parts], dtype=float)
    w = w / w.sum()
    mean = np.array([p[1] for p in parts], dtype=float)
    cv = np.maximum(np.array([p[2] for p in parts], dtype=float), 0.05)
    shape = 1.0 / cv**2
    scale = mean / shape
    if len(parts) == 1:
        return special.gammaincinv(shape[0], quantiles) * scale[0]
    lo = max(float(mean.min()) / 50, 1e-7)
    hi = float(mean.max()) * 30
    grid = np.geomspace(lo, hi, 800)
    cdf = (w[:, None] * special.gammainc(shape[:, None], grid[None, :] / scale[:, None])).sum(0)
    return np.interp(quantiles, cdf, grid)


def _lat_block(
    parts: list[tuple[float, float, float]], count: int, rng: np.random.Generator
) -> dict:
    qs = np.asarray(PERCENTILES) / 100.0
    edge = mixture_percentiles(parts, np.array([0.0001, 0.999999]))
    pct = mixture_percentiles(parts, qs) * 1e9
    w = sum(p[0] for p in parts)
    mean = sum(p[0] * p[1] for p in parts) / w
    second = sum(p[0] * (p[1] ** 2) * (1 + p[2] ** 2) for p in parts) / w
    std = math.sqrt(max(0.0, second - mean * mean))
    return {
        "min": int(edge[0] * 1e9),
        "max": int(edge[1] * 1e9 * rng.uniform(1.0, 1.5)),
        "mean": mean * 1e9,
        "stddev": std * 1e9,
        "N": count,
        "percentile": {f"{p:.6f}": int(v) for p, v in zip(PERCENTILES, pct, strict=True)},
    }


def _direction(
    iops: float,
    parts: list[tuple[float, float, float]],
    bs: int,
    runtime_s: float,
    rng: np.random.Generator,
) -> dict:
    total = int(iops * runtime_s)
    if total <= 0 or not parts:
        return _empty_direction()
    io_bytes = total * bs
    bw = io_bytes / runtime_s
    lat = _lat_block(parts, total, rng)
    return {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": int(bw),
        "bw": int(bw / 1024),
        "iops": total / runtime_s,
        "runtime": int(runtime_s * 1000),
        "total_ios": total,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "clat_ns": dict(lat),
        "lat_ns": dict(lat),
        "iops_mean": total / runtime_s,
    }


def _empty_direction() -> dict:
    zero = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    return {
        "io_bytes": 0,
        "io_kbytes": 0,
        "bw_bytes": 0,
        "bw": 0,
        "iops": 0.0,
        "runtime": 0,
        "total_ios": 0,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": dict(zero),
        "clat_ns": dict(zero),
        "lat_ns": dict(zero),
        "iops_mean": 0.0,
    }


def _io_weighted(
    pred: Prediction, direction: str, noise: float
) -> list[tuple[float, float, float]]:
    parts = []
    for phase in pred.phases:
        for c in getattr(phase, direction):
            parts.append((phase.share * phase.iops * c.weight, c.mean_s / noise, c.cv))
    return [p for p in parts if p[0] > 0]


def simulate_fio(
    profile: ArrayProfile,
    state: ArrayState,
    job: Job,
    *,
    job_name: str,
    job_options: dict[str, str],
    global_options: dict[str, str],
    seed: tuple[object, ...],
    timestamp: int,
) -> dict:
    """fio-format JSON (as ``fio --output-format=json`` writes it) for one simulated run."""
    rng = np.random.default_rng(_seed(*seed))
    pred = predict(profile, state, job)
    # Run-to-run noise: one log-normal factor per run on throughput; latency moves inversely.
    noise = float(rng.lognormal(0.0, profile.noise_cv))
    iops = pred.iops * noise
    runtime = job.runtime_s
    f_read = job.read_fraction
    read = _direction(
        iops * f_read, _io_weighted(pred, "read", noise), job.block_size, runtime, rng
    )
    write = _direction(
        iops * (1 - f_read), _io_weighted(pred, "write", noise), job.block_size, runtime, rng
    )
    return {
        "fio version": "fio-3.33",
        "timestamp": timestamp,
        "timestamp_ms": timestamp * 1000,
        "time": "",
        "global options": dict(global_options),
        "jobs": [
            {
                "jobname": job_name,
                "groupid": 0,
                "error": 0,
                "eta": 0,
                "elapsed": int(job.ramp_s + runtime),
                "job options": dict(job_options),
                "read": read,
                "write": write,
                "trim": _empty_direction(),
                "job_runtime": int(runtime * 1000),
            }
        ],
        "disk_util": [],
        "raidsweep_model": {k: v for k, v in pred.explain.items()},
    }
