"""The simulated array's performance model: a closed queueing network solved by exact MVA.

Pure functions of (profile, array state, fio job); ``sweeper/sim/README.md`` gives the
formulas and names each mechanism.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field, replace

import numpy as np

from sweeper.sim.backend import KIB
from sweeper.sim.fiojson import Component, direction, empty_direction, lat_block
from sweeper.sim.geometry import Geometry, geometry
from sweeper.sim.network import Solution, Station, held_residence, solve
from sweeper.sim.profile import ArrayProfile
from sweeper.sim.state import ArrayState, Job
from sweeper.sim.stations import build_stations

GIB = 1024**3
# Service-time variability (coefficient of variation) of each kind of work
CV_HIT = 0.3
CV_RANDOM = 0.5
CV_SEQUENTIAL = 0.25
CV_FLASH = 0.35
SMOOTH_MIN = 6.0
#: a flush's shortest time, as a share of its mean (its round trip without any queueing)
FLUSH_FLOOR = 0.8
HARD_LIMITS = ("host_cpu", "host_links", "controllers", "pool_path")

__all__ = ["ArrayState", "Component", "Job", "Phase", "Prediction", "predict", "simulate_fio"]


@dataclass(frozen=True)
class Phase:
    """A stretch of the measurement window with steady throughput (e.g. before and after
    the write cache fills)."""

    share: float  # of the measurement window
    iops: float
    read: tuple[Component, ...]
    write: tuple[Component, ...]
    #: the most this phase can carry through its on-path limits (links, controllers, ...)
    ceiling: float = math.inf


@dataclass(frozen=True)
class Prediction:
    phases: tuple[Phase, ...]
    #: the mechanisms' figures for this run (hit ratios, utilisations, bottleneck, ...)
    explain: dict[str, float | str] = field(default_factory=dict)
    #: share of the write cache dirty when the run ends (the next run starts from it)
    dirty_end: float = 0.0
    #: the flush after every write (fdatasync, fsync), seconds; 0 without one
    flush_s: float = 0.0

    @property
    def iops(self) -> float:
        return sum(p.share * p.iops for p in self.phases)

    @property
    def ceiling(self) -> float:
        """Throughput the run cannot exceed, whatever the run-to-run noise."""
        return sum(p.share * max(p.iops, p.ceiling) for p in self.phases)

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


def predict(
    profile: ArrayProfile, state: ArrayState, job: Job, *, dirty_start: float | None = None
) -> Prediction:
    """Throughput and latency distributions for ``job`` on the array in ``state``.

    ``dirty_start`` is the share of the write cache the previous run left dirty; ``None``
    means the run follows one like it (the cache as this job itself leaves it). A pure
    function of immutable inputs: a sweep asks for the same run again (the run before a
    repetition, for its cache) and gets the answer it got before.
    """
    pred = _predict_once(_Same(profile), state, job, dirty_start)
    return replace(pred, explain=dict(pred.explain))


class _Same:
    """A profile as a cache key by identity (profiles are frozen: the same object gives the
    same answers; the cache keeps it alive, so its identity is not reused meanwhile)."""

    __slots__ = ("profile",)

    def __init__(self, profile: ArrayProfile) -> None:
        self.profile = profile

    def __hash__(self) -> int:
        return id(self.profile)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.profile is self.profile


@functools.lru_cache(maxsize=4096)
def _predict_once(key: _Same, state: ArrayState, job: Job, dirty_start: float | None) -> Prediction:
    profile = key.profile.with_rank_drives(state.raid_level, state.rank_drives)
    cow = 1.0 if state.snapshots else 0.0
    pred = _predict(profile, state, job, cow, dirty_start)
    if state.snapshots and profile.snapshots is not None:
        # The share of writes that are first writes since the snapshot depends on the
        # throughput, which depends on that share: iterate to the fixed point.
        for _ in range(3):
            cow = _first_write_share(profile, job, pred.iops * (1 - job.read_fraction))
            pred = _predict(profile, state, job, cow, dirty_start)
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


def _cv(service_cv: float, rho: float) -> float:
    """Queueing pushes a response-time distribution toward the exponential (cv 1)."""
    rho = min(1.0, max(0.0, rho))
    return math.sqrt(service_cv**2 * (1 - rho) + rho)


def _comp(weight: float, mean: float, cv: float, floor: float) -> Component:
    return Component(weight, max(mean, floor * 1.0001, 1e-7), cv, floor)


def _predict(
    profile: ArrayProfile, state: ArrayState, job: Job, cow: float, dirty_start: float | None
) -> Prediction:
    g = geometry(profile, state, job, cow)
    fr, fw = job.read_fraction, 1.0 - job.read_fraction
    n = max(1, job.outstanding * profile.host.load_hosts)
    hit = profile.controllers.hit_latency_us / 1e6
    # Tagged command queueing: positioning shrinks with the queue each busy drive holds;
    # solve, read the drives' queues, and solve again with the shorter positioning.
    # A read that holds a pool slot through its drive access waits at the drives only
    # behind the other holders: solve what it spends there (``staged``) with them alone,
    # and the network again with that hold, to a fixed point.
    queue = 1.0
    staged: float | None = None
    held_wait = 0.0
    sol = None
    stations: list[Station] = []
    for _ in range(FIXED_POINT_STEPS):
        stations = build_stations(profile, state, job, g, queue, staged, held_wait)
        sol = solve(stations, fr, fw, hit, hit + g.flush_s, n)
        drives = next(s for s in stations if s.name in ("drives", "drive_dies"))
        busy, waiting = sol.load(drives.name).utilisation, sol.load(drives.name).queue
        settled = True
        if drives.read_held:
            pool = next(s for s in stations if s.name == "pool_path")
            new_staged, held_queue, held_each = _staged(drives, pool, sol, fr, fw, g)
            settled = staged is not None and abs(new_staged - staged) < FIXED_POINT_TOL * staged
            # damped in proportion (the first guess, the access alone, can be far off)
            before = staged if staged is not None else drives.read_path or drives.read
            staged = math.sqrt(max(before, 1e-9) * max(new_staged, 1e-9))
            held_wait = held_queue * held_each
            waiting += held_queue * drives.queues
        # requests in the drives' queues, and those in service beyond one per queue
        per_drive = (waiting + busy * (drives.servers - drives.queues)) / drives.servers
        new = max(1.0, per_drive / max(busy, 1e-9)) if busy > 0 else 1.0
        if abs(new - queue) < FIXED_POINT_TOL * queue and settled:
            break
        # damped in proportion: undamped, a deep queue's short positioning empties the
        # queue and a shallow one's long positioning fills it, a cycle of two
        queue = math.sqrt(queue * new)
    assert sol is not None
    explain = dict(g.explain)
    explain["drive_queue"] = round(queue, 2)
    on_path_cap = min(
        s.servers / d
        for s in stations
        if (d := fr * (s.read if s.read_on_path else 0) + fw * (s.write if s.write_on_path else 0))
        > 0
    )
    # The limits no run exceeds, whatever its noise: links, host and controllers (a
    # drive's rate is itself an average of positioning times that vary between runs).
    hard = min(s.capacity(fr, fw) for s in stations if s.name in HARD_LIMITS)
    # Back-end bound: near-equal limits interfere (each queues work for the other), so the
    # bound is a smooth minimum of the stations' capacities, (Σ c^−p)^(−1/p).
    caps = [s.capacity(fr, fw) for s in stations]
    cap = sum(c**-SMOOTH_MIN for c in caps if c < math.inf) ** (-1 / SMOOTH_MIN)
    bottleneck = min(stations, key=lambda s: s.capacity(fr, fw)).name
    explain["bottleneck"] = bottleneck
    floors = g.floors
    x_free = min(sol.iops, on_path_cap)

    def read_parts(r_total: float, rho: float) -> tuple[Component, ...]:
        if fr == 0:
            return ()
        if g.prefetched or g.miss <= 1e-9 or r_total <= floors.hit_mean:
            return (_comp(1.0, r_total, _cv(CV_HIT, rho), floors.hit),)
        r_miss = (r_total - floors.hit_mean * (1 - g.miss)) / g.miss
        cs = CV_RANDOM if profile.drives.rotating else CV_FLASH
        return (
            _comp(1 - g.miss, floors.hit_mean, _cv(CV_HIT, 0.0), floors.hit),
            _comp(g.miss, r_miss, _cv(cs, rho), floors.miss),
        )

    def write_parts(r_cycle: float, rho: float) -> tuple[Component, ...]:
        if fw == 0:
            return ()
        r_total = r_cycle - g.flush_s  # the flush that follows the write is fio's "sync"
        if state.write_back:
            cs = CV_HIT
        elif job.sequential:
            cs = CV_SEQUENTIAL
        else:
            cs = CV_RANDOM if profile.drives.rotating else CV_FLASH
        return (_comp(1.0, r_total, _cv(cs, rho), floors.write),)

    def explained(x: float) -> Prediction:
        util = {s.name: min(1.0, x * s.demand(fr, fw) / s.servers) for s in stations}
        explain["utilisation"] = round(max(util.values()), 4)
        return Prediction(phases, explain, dirty_end, g.flush_s)

    rho = sol.busiest
    if x_free <= cap * (1 + 1e-9):
        phases: tuple[Phase, ...] = (
            Phase(1.0, x_free, read_parts(sol.read_s, rho), write_parts(sol.write_s, rho)),
        )
        phases = (replace(phases[0], ceiling=hard),)
        dirty_end = _drained(dirty_start, g, job, stations, x_free, fr, fw)
        return explained(x_free)

    # The back end cannot keep up. Until the write cache fills, writes are absorbed at the
    # free-running rate; then throughput falls to what the back end destages (reads: what
    # read-ahead can fetch) and the blocked direction waits for it (Little: N = X R).
    x_b = cap
    blocked_writes = fw > 0 and state.write_back
    r_total = n / x_b
    if blocked_writes:
        rb_read = sol.read_s
        rb_write = max(sol.write_s, (r_total - fr * sol.read_s) / fw)
    elif fr > 0:
        rb_write = sol.write_s
        rb_read = max(sol.read_s, (r_total - fw * sol.write_s) / fr)
    else:
        rb_read, rb_write = sol.read_s, max(sol.write_s, r_total)
    steady = Phase(0.0, x_b, read_parts(rb_read, 1.0), write_parts(rb_write, 1.0), hard)
    share_free = 0.0
    dirty_end = 1.0 if blocked_writes else 0.0
    if blocked_writes and g.write_cache > 0:
        start = 1.0 if dirty_start is None else min(1.0, max(0.0, dirty_start))
        fill_rate = fw * job.block_size * g.destaged * (x_free - x_b)
        # Nothing of the writes stays to be destaged (fill_rate 0): the cache never fills.
        t_fill = (1.0 - start) * g.write_cache / fill_rate if fill_rate > 0 else math.inf
        share_free = min(1.0, max(0.0, (t_fill - job.ramp_s) / job.runtime_s))
        explain["write_cache_full_after_s"] = round(t_fill, 1) if fill_rate > 0 else None
        if share_free >= 1.0:
            dirty_end = start + fill_rate * (job.ramp_s + job.runtime_s) / g.write_cache
    if share_free <= 0:
        phases = (replace(steady, share=1.0),)
        return explained(x_b)
    free = Phase(
        share_free,
        x_free,
        read_parts(sol.read_s, rho),
        write_parts(sol.write_s, rho),
        hard,
    )
    phases = (free, replace(steady, share=1 - share_free))
    return explained(share_free * x_free + (1 - share_free) * x_b)


#: steps and relative tolerance of the drives' queue (command queueing) and a pool read's
#: staging time, solved together to a fixed point
FIXED_POINT_STEPS = 16
FIXED_POINT_TOL = 0.005


def _staged(
    drives: Station, pool: Station, sol: Solution, fr: float, fw: float, g: Geometry
) -> tuple[float, float, float]:
    """What a read miss holding a pool slot spends at the drives, from the slots' holders
    alone (``network.held_residence``): ``L = min(slots, X · fr · (path + staged))`` of
    them cycle between the rest of the hold and the drive queues, where writes on the
    path wait too and destage is served between them (``1 + U_destage / 2``).
    Returns the time, the held reads in each drive queue, and the wait each causes."""
    m, queues = drives.servers, drives.queues
    x = sol.iops
    inflate = 1.0
    ahead = 0.0
    if drives.write_on_path:
        # writes in the queue a read joins: requests ahead of it, each its own wait
        writes = sol.load(drives.name).queue / queues
        ahead = writes * max(drives.write, (drives.write_path or drives.write) * queues) / m
    else:
        inflate += 0.5 * min(1.0, x * fw * drives.write / m)
    demand = drives.read * inflate
    path = (drives.read_path if drives.read_path is not None else drives.read) * inflate
    wait = max(demand, path * queues) / m
    rest = g.pool_read_s  # the slot's own time: the extent lookup and the data's pass
    holders = min(float(pool.servers), x * fr * pool.read)
    staged, queue = held_residence(demand / m, wait, path, rest + ahead, holders)
    return staged + ahead, queue, wait


def _drained(
    start: float | None,
    g: Geometry,
    job: Job,
    stations: list[Station],
    x: float,
    fr: float,
    fw: float,
) -> float:
    """The write cache's dirty share after a run the back end keeps up with: destage drains
    it with the drives' spare time, ``(1 − U) · m · bs · destaged / D_w`` bytes per second
    (``D_w`` the drive time of one host write of this job's size and pattern)."""
    if start is None or g.write_cache <= 0 or start <= 0:
        return 0.0
    drives = next(s for s in stations if s.name in ("drives", "drive_dies"))
    if drives.write <= 0:
        return start
    spare = max(0.0, 1.0 - x * drives.demand(fr, fw) / drives.servers)
    rate = spare * drives.servers * job.block_size * max(g.destaged, 1e-6) / drives.write
    return max(0.0, start - rate * (job.ramp_s + job.runtime_s) / g.write_cache)


# ---------------------------------------------------------------------------------------------
# fio's JSON


def _seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _io_weighted(pred: Prediction, direction: str, stretch: float) -> list[Component]:
    """The run's populations weighted by I/Os; ``stretch`` scales the part above each
    floor (the run's noise: fewer I/Os per second in a closed loop, longer waits)."""
    parts = []
    for phase in pred.phases:
        for c in getattr(phase, direction):
            w = phase.share * phase.iops * c.weight
            if w > 0:
                mean = c.floor_s + (c.mean_s - c.floor_s) * stretch
                parts.append(Component(w, mean, c.cv, c.floor_s))
    return parts


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
    dirty_start: float | None = None,
    prediction: Prediction | None = None,
) -> dict:
    """fio-format JSON (as ``fio --output-format=json`` writes it) for one simulated run;
    ``prediction``: the run's figures where the caller made them (an open loop's)."""
    rng = np.random.default_rng(_seed(*seed))
    pred = prediction or predict(profile, state, job, dirty_start=dirty_start)
    # Run-to-run noise first, one log-normal factor per run; then the physical limits: no
    # run carries more than its links, controllers and drives can. An open loop carries
    # its arrivals: the noise is in its latency only.
    noise = float(rng.lognormal(0.0, profile.noise_cv))
    if job.rate_iops is not None:
        noise = min(1.0, noise)
    iops = min(pred.iops * noise, pred.ceiling)
    stretch = pred.iops / iops if iops > 0 else 1.0
    runtime = job.runtime_s
    f_read = job.read_fraction
    read = direction(
        iops * f_read, _io_weighted(pred, "read", stretch), job.block_size, runtime, rng
    )
    write = direction(
        iops * (1 - f_read), _io_weighted(pred, "write", stretch), job.block_size, runtime, rng
    )
    explain = dict(pred.explain)
    explain["write_cache_dirty_at_end"] = round(pred.dirty_end, 4)
    sync = empty_direction()
    flushes = write["total_ios"]
    if pred.flush_s > 0 and flushes > 0:
        # fio's "sync" section: the flush after every write (total_ios stays 0 there)
        flush = Component(1.0, pred.flush_s, CV_HIT, FLUSH_FLOOR * pred.flush_s)
        sync = {"total_ios": 0, "lat_ns": lat_block([flush], flushes, rng)}
    return {
        # fio's format, not fio's output: the version says which model wrote it
        "fio version": f"fio-3.33 (simulated by raidsweep, profile {profile.name})",
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
                "trim": empty_direction(),
                "sync": sync,
                "job_runtime": int(runtime * 1000),
            }
        ],
        "disk_util": [],
        "raidsweep_model": explain,
    }
