"""The simulated array's performance model: a closed queueing network solved by MVA.

Pure functions; ``sweeper/sim/README.md`` gives the formulas and the mechanisms.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from sweeper.sim.profile import ArrayProfile

MIB = 1024**2
PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)
# Back-end I/Os per small random host write (read-modify-write of data and parity, or two copies)
WRITE_PENALTY = {"raid0": 1, "raid1": 2, "raid10": 2, "raid5": 4, "raid6": 6}
# Mirrored reads go to the copy whose head is nearer: shorter seeks
MIRROR_SEEK_FACTOR = 0.7


@dataclass(frozen=True)
class ArrayState:
    """The configuration the simulated array is in (as the playbook recorded it)."""

    raid_level: str
    layout: str
    ranks: int
    stripe_kib: int | None
    cache_policy: str


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
    def outstanding(self) -> int:
        depth = 1 if self.engine in ("sync", "psync") else self.iodepth
        return depth * self.numjobs

    @property
    def sequential(self) -> bool:
        return not self.rw.startswith("rand")


@dataclass(frozen=True)
class Prediction:
    iops: float
    read_lat_s: float
    write_lat_s: float
    latency_cv: float


def _drive_random_s(profile: ArrayProfile, block_size: int, seek_factor: float = 1.0) -> float:
    d = profile.drives
    transfer = block_size / (d.transfer_mib_s * MIB)
    if d.type == "hdd":
        rotation = 0.5 * 60.0 / (d.rpm or 7200)
        return seek_factor * d.avg_seek_ms / 1000 + rotation + transfer
    return d.read_us / 1e6 / d.parallelism + transfer


def _mva(demands: list[float], delay: float, n: int) -> tuple[float, list[float]]:
    """Exact single-class MVA: throughput and queue lengths with ``n`` customers."""
    q = [0.0] * len(demands)
    x = 0.0
    for k in range(1, n + 1):
        r = [d * (1 + qi) for d, qi in zip(demands, q, strict=True)]
        x = k / (delay + sum(r))
        q = [x * ri for ri in r]
    return x, q


def predict(profile: ArrayProfile, state: ArrayState, job: Job) -> Prediction:
    """Mean throughput and per-direction latency for ``job`` on the array in ``state``."""
    n = max(1, job.outstanding)
    f_read = job.read_fraction
    f_write = 1.0 - f_read
    bs = job.block_size
    group = profile.raid_groups[state.raid_level]
    drives_per_rank = group.data + group.redundancy
    write_back = state.cache_policy.startswith("wb")
    read_ahead = state.cache_policy.endswith("-ra") and not state.cache_policy.endswith("nora")

    # Controller affinity: a pool belongs to one controller; host striping takes LUNs from
    # ranks that alternate between controllers; a single rank has one owner.
    if state.layout == "host_stripe":
        controllers = min(state.ranks, profile.controllers)
    else:
        controllers = 1
    cache_bytes = profile.cache_gib * 1024**3 * controllers / profile.controllers

    # Ranks that serve the I/O at once. Extent-granular pools keep a sequential stream on one
    # rank for a whole extent; fine host stripes spread every stream over all ranks.
    ranks = state.ranks
    if job.sequential and state.layout == "pool_stripe":
        extent = (state.stripe_kib or 1024) * 1024
        ranks_busy = ranks if extent <= bs else 1 + (ranks - 1) * min(1.0, bs * n / extent)
    else:
        ranks_busy = ranks
    drives_busy = ranks_busy * drives_per_rank

    # Read hits: random reads hit in proportion of cache to active working set; sequential
    # reads are prefetched when read-ahead is on.
    if job.sequential:
        read_hit = 0.97 if read_ahead else 0.0
    else:
        read_hit = min(0.95, cache_bytes / max(job.working_set, 1)) * 0.9

    # Drive-seconds per host I/O, per direction.
    if job.sequential:
        xfer = bs / (profile.drives.transfer_mib_s * MIB)
        per_read = xfer * drives_per_rank / group.data if state.raid_level != "raid10" else xfer
        if not read_ahead:
            per_read += _drive_random_s(profile, 0) * 0.5  # a missed rotation per request
        full_stripe = (group.data + group.redundancy) / group.data
        per_write = xfer * (2.0 if state.raid_level == "raid10" else full_stripe)
        read_miss = 1.0  # prefetch still moves the data; it only hides the latency
    else:
        seek_factor = MIRROR_SEEK_FACTOR if state.raid_level in ("raid10", "raid1") else 1.0
        per_read = _drive_random_s(profile, bs, seek_factor)
        per_write = WRITE_PENALTY.get(state.raid_level, 4) * _drive_random_s(profile, bs)
        read_miss = 1.0 - read_hit
    backend_read = per_read * read_miss
    backend_write = per_write

    fe = bs / (profile.host.links * profile.host.link_mib_s * MIB)
    ctrl = (1.0 / profile.controller.iops + bs / (profile.controller.mib_s * MIB)) / controllers
    hit = profile.controller.hit_latency_us / 1e6
    host = profile.host.io_overhead_us / 1e6

    # Stations: front end, controllers, back end (Seidmann: m servers = one fast queue + delay).
    def backend(work: float) -> tuple[float, float]:
        return work / drives_busy, work * (drives_busy - 1) / drives_busy

    r_q, r_delay = backend(backend_read)
    w_q, w_delay = backend(backend_write)
    # Hidden latency: sequential prefetch and write-back keep the back end off the response path.
    read_on_path = 0.0 if (job.sequential and read_ahead) else 1.0
    write_on_path = 0.0 if write_back else 1.0
    d_read = [fe, ctrl, r_q * read_on_path]
    d_write = [fe, ctrl, w_q * write_on_path]
    z_read = host + hit + r_delay * read_on_path
    z_write = host + hit + w_delay * write_on_path
    demands = [f_read * a + f_write * b for a, b in zip(d_read, d_write, strict=True)]
    delay = f_read * z_read + f_write * z_write
    x, q_prev = _mva(demands, delay, n)
    _, q_prev = _mva(demands, delay, n - 1) if n > 1 else (0.0, [0.0] * 3)
    r_read = z_read + sum(d * (1 + qi) for d, qi in zip(d_read, q_prev, strict=True))
    r_write = z_write + sum(d * (1 + qi) for d, qi in zip(d_write, q_prev, strict=True))

    # Whatever is off the response path still bounds throughput: destage and prefetch bandwidth.
    off_path = f_read * backend_read * (1 - read_on_path) + f_write * backend_write * (
        1 - write_on_path
    )
    on_path_util = demands[2]
    cap = drives_busy / (off_path + on_path_util) if (off_path + on_path_util) > 0 else math.inf
    if x > cap:
        stretch = (n / cap - delay) / max(n / x - delay, 1e-12)
        r_read *= stretch
        r_write *= stretch
        x = cap
    busiest = max(x * d for d in [*demands[:2], (off_path + on_path_util) / drives_busy])
    service_cv = 0.6 if not job.sequential else 0.25
    latency_cv = math.sqrt(service_cv**2 * (1 - min(busiest, 1.0)) + min(busiest, 1.0))
    return Prediction(x, r_read, r_write, latency_cv)


def _seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _lat_block(mean_s: float, cv: float, count: int, rng: np.random.Generator) -> dict:
    shape = 1.0 / (cv * cv)
    scale = mean_s / shape
    qs = np.asarray(PERCENTILES) / 100.0
    pct = stats.gamma.ppf(qs, shape, scale=scale) * 1e9
    mean_ns = mean_s * 1e9
    return {
        "min": int(stats.gamma.ppf(0.0001, shape, scale=scale) * 1e9),
        "max": int(stats.gamma.ppf(0.999999, shape, scale=scale) * 1e9 * rng.uniform(1.0, 1.5)),
        "mean": mean_ns,
        "stddev": mean_ns * cv,
        "N": count,
        "percentile": {f"{p:.6f}": int(v) for p, v in zip(PERCENTILES, pct, strict=True)},
    }


def _direction(iops: float, lat_s: float, cv: float, bs: int, runtime_s: float, rng) -> dict:
    total = int(iops * runtime_s)
    if total <= 0:
        return _empty_direction()
    io_bytes = total * bs
    bw = io_bytes / runtime_s
    lat = _lat_block(lat_s, cv, total, rng)
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
        "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
        "total_ios": 0, "short_ios": 0, "drop_ios": 0,
        "slat_ns": dict(zero), "clat_ns": dict(zero), "lat_ns": dict(zero), "iops_mean": 0.0,
    }  # fmt: skip


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
    noise = float(rng.lognormal(0.0, profile.noise_cv))
    iops = pred.iops * noise
    runtime = job.runtime_s
    f_read = job.read_fraction
    read = _direction(iops * f_read, pred.read_lat_s / noise, pred.latency_cv,
                      job.block_size, runtime, rng)  # fmt: skip
    write = _direction(iops * (1 - f_read), pred.write_lat_s / noise, pred.latency_cv,
                       job.block_size, runtime, rng)  # fmt: skip
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
    }
