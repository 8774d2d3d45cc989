"""Where one host I/O goes in the simulated array: LUNs, pieces, ranks, drives, cache hits,
the back-end work it causes and the path's own minimum service time.

``README.md`` beside this file gives the formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sweeper.sim import backend
from sweeper.sim.backend import KIB, MIB, Work
from sweeper.sim.profile import MIRRORED, ArrayProfile
from sweeper.sim.skew import hot_share
from sweeper.sim.state import ArrayState, Job

GIB = 1024**3


@dataclass(frozen=True)
class Floors:
    """The path's own service time with no queueing anywhere (seconds)."""

    hit: float  # fastest cache hit: host, links, controller, the cache itself
    hit_mean: float  # a typical cache hit
    miss: float  # a read that reaches a drive: a hit's path plus the fastest drive access
    write: float  # a write: into cache (write-back) or onto the drives (write-through)


@dataclass
class Geometry:
    owners: int  # controllers that serve the volume
    luns: int  # LUNs the host sees (one per rank with host striping)
    pieces: int  # pieces the host's LVM cuts one I/O into
    backend_ios: int  # I/Os the pieces become after merging per LUN
    busy_drives: float
    #: separate drive queues among the busy drives (a mirrored pair is one, a failed
    #: drive's partner alone too)
    drive_queues: float
    #: the share of the drives' time host I/O gets (a rebuild takes the rest)
    drive_share: float
    span: float  # share of each drive's stroke the working set occupies
    read_hit: float
    flash_hit: float
    miss: float
    prefetched: bool  # sequential reads served by read-ahead
    write_cache: float  # bytes
    destaged: float  # share of written bytes that must reach the drives
    read_work: Work  # per host read, all pieces
    write_work: Work
    cpu_s: float
    links_s: float
    controller_read_s: float
    controller_write_s: float
    pool_read_s: float  # the pool's virtualisation path (0 for other layouts)
    pool_write_s: float
    floors: Floors
    #: the owning servers' device adapters: parity computed per host write (RAID 5/6)
    parity_s: float = 0.0
    #: a flush after every write (fdatasync, fsync): its round trip, off the write's latency
    flush_s: float = 0.0
    explain: dict[str, float | str] = field(default_factory=dict)


def _servers(profile: ArrayProfile, state: ArrayState) -> tuple[int, float]:
    """Controllers that serve the volume, and the share of the cache they hold."""
    c = profile.controllers.count
    if getattr(profile.affinity, state.layout) == "one":
        owners = 1
    else:
        owners = min(c, state.ranks) if state.layout != "single_rank" else c
    return owners, owners / c


def geometry(profile: ArrayProfile, state: ArrayState, job: Job, cow: float) -> Geometry:
    bs = float(job.block_size)
    level = state.raid_level
    group = profile.raid_groups[level]
    drives = profile.drives
    ranks = state.ranks
    host = profile.host
    ctl = profile.controllers
    explain: dict[str, float | str] = {}

    owners, cache_share = _servers(profile, state)
    cache = profile.cache
    read_cache = cache.read_gib * GIB * cache_share * cache.efficiency
    # Each rank may hold only its share of a controller's write cache dirty: the volume's
    # ranks on each serving controller bound what it can use there.
    ranks_each = state.ranks / owners
    write_cache = (
        cache.write_gib * GIB * cache_share * min(1.0, ranks_each * cache.rank_write_share)
    )
    tier = cache.flash_tier
    if tier is not None and state.write_back:
        write_cache = tier.capacity_gib * GIB * tier.write_share
    explain["controllers"] = owners
    explain["write_cache_gib"] = round(write_cache / GIB, 3)

    # Host striping: the LVM cuts an I/O at its stripe into k pieces; the pieces that land
    # on the same LUN are contiguous there and merge into one request per LUN.
    luns = ranks if state.layout == "host_stripe" else 1
    if state.layout != "single_rank" and state.stripe_kib:
        pieces = max(1, math.ceil(bs / (state.stripe_kib * KIB)))
    else:
        pieces = 1
    backend_ios = min(pieces, luns) if state.layout == "host_stripe" else pieces
    piece = bs / backend_ios
    explain["pieces"] = pieces
    explain["luns"] = luns

    width = group.width
    failed = 0 if state.health == "optimal" else 1
    if job.sequential and state.layout == "pool_stripe" and ranks > 1:
        # A stream stays on one rank for a whole extent: streams land on ranks at random.
        streams = job.numjobs * host.load_hosts
        ranks_busy = ranks * (1 - (1 - 1 / ranks) ** streams)
    else:
        ranks_busy = float(ranks)
    busy_drives = ranks_busy * (width - failed)
    # A mirrored pair is one queue (either copy reads); the failed drive's partner is one
    # queue alone: a failure takes a drive, not a queue.
    drive_queues = ranks_busy * width / 2 if level in MIRRORED else busy_drives
    # A rebuild reads the surviving drives onto a spare: extra work that takes its share
    # of every busy drive's time, leaving host I/O the rest.
    drive_share = 1.0 - profile.timing.rebuild_share if state.health == "rebuilding" else 1.0
    explain["drives_busy"] = busy_drives
    span = job.working_set / (ranks * group.data * drives.capacity_gb * 1e9)

    flash_hit = 0.0
    ws = max(job.working_set, 1)
    blocks = ws / bs
    if job.sequential:
        read_hit = cache.prefetch_hit if state.read_ahead else 0.0
    else:
        # A cache holds the hottest share of the working set; skewed access (fio's
        # random_distribution) sends more than that share of the I/O there.
        read_hit = hot_share(job.distribution, read_cache / ws, blocks)
        if tier is not None:
            tier_read = tier.capacity_gib * GIB * (1 - tier.write_share) * cache.efficiency
            flash_hit = (1 - read_hit) * hot_share(job.distribution, tier_read / ws, blocks)
    miss = max(0.0, 1.0 - read_hit - flash_hit)
    explain["read_hit"] = read_hit
    explain["flash_tier_hit"] = flash_hit
    # A write to data already dirty in the write cache replaces it there: only the writes
    # outside the share of the working set the write cache holds are destaged.
    coalesced = hot_share(job.distribution, write_cache / ws, blocks)
    destaged = 1.0 if job.sequential else max(0.0, 1.0 - coalesced)
    if write_cache <= 0 or not state.write_back:
        destaged = 1.0

    if job.sequential:
        read_work = backend.sequential(profile, level, piece, False, True).scaled(backend_ios)
        if not state.read_ahead and drives.rotating:
            # Each request waits for its sector (half a rotation) where its stream was the
            # last on the drive; where other streams share the drive (each of the S − 1
            # others is there with probability 1/D) the drive has moved away and positions,
            # as a random read does (command queueing shortens it alike).
            streams = job.numjobs * host.load_hosts
            moved = 1.0 - (1.0 - 1.0 / max(1.0, busy_drives)) ** (streams - 1)
            read_work.positions += moved * backend_ios
            # a stream read on passes parity (or the other copy) under the heads; one that
            # repositions reads only its own bytes
            read_work.bytes = backend_ios * piece * (moved + (1.0 - moved) * width / group.data)
            read_work.rotations += (1.0 - moved) * 0.5 * backend_ios
            explain["sequential_repositioned"] = round(moved, 4)
        write_work = backend.sequential(profile, level, piece, True, state.write_back)
        write_work = write_work.scaled(backend_ios)
    else:
        read_work = backend.random_read(profile, level, piece).scaled(backend_ios)
        write_work = backend.random_write(profile, level, piece, piece).scaled(backend_ios)
    # the fastest a request's drive access can be: its share of the bytes on each drive
    # it spreads over, after the shortest positioning (flash: a page read)
    read_floor = drive_floor(profile, read_work, piece)
    write_floor_drive = drive_floor(profile, write_work, piece)
    if level in MIRRORED:
        read_work.positions *= backend.MIRROR_POSITIONING
    if failed:
        rebuild_reads = 1.0 / width if level in MIRRORED else (group.data - 1) / width
        read_work.positions *= 1 + rebuild_reads
        write_work.positions *= 1 + (0 if level in MIRRORED else (group.data - 2) / width)
    if not job.sequential:
        read_work = read_work.scaled(miss)  # read-ahead still moves every sequential byte
    write_work = write_work.scaled(destaged)
    parity = backend_ios * destaged * backend.parity_s(profile, level, piece, job.sequential, piece)
    extra_r = extra_w = 0.0
    if state.data_reduction and profile.data_reduction is not None:
        dr = profile.data_reduction
        ratio = reduction_ratio(dr.ratio, job)
        explain["reduction_ratio"] = round(ratio, 3)
        read_work.bytes /= ratio
        write_work.bytes /= ratio
        read_work.positions += miss * dr.metadata_ios
        write_work.positions += dr.metadata_ios
        extra_r += dr.read_us_per_kib * bs / KIB / 1e6
        extra_w += dr.write_us_per_kib * bs / KIB / 1e6
    if cow > 0 and profile.snapshots is not None:
        snap = profile.snapshots
        grain = float(snap.grain_kib * KIB)
        cow_work = backend.random_read(profile, level, grain)
        cow_work.add(backend.random_write(profile, level, grain))
        cow_work.positions += snap.metadata_ios
        write_work.add(cow_work, max(1.0, bs / grain) * cow)
        explain["first_write_share"] = cow

    cpu = (host.sync_us if job.synchronous else host.async_us) / 1e6
    cpu += host.split_us / 1e6 * (pieces - 1)
    links = backend_ios / (host.hbas * host.hba_iops) + bs / (host.hbas * host.link_mib_s * MIB)
    per_io = backend_ios / ctl.iops + bs / (ctl.mib_s * MIB)
    if ctl.mirror_writes and owners > 1:
        # The partner's copy of each write: a second operation among the serving pair.
        extra_w += per_io
    pool_r = pool_w = 0.0
    if state.layout == "pool_stripe":
        pool = profile.pool
        pool_w = pool.extent_map_us / 1e6 + (bs / (pool.path_mib_s * MIB) if pool.path_mib_s else 0)
        pool_r = pool_w + (0.0 if job.sequential else miss * pool.stage_us / 1e6)
    hit = ctl.hit_latency_us / 1e6
    path = cpu + links + per_io
    hit_floor = path + 0.6 * hit + (pool_w if state.layout == "pool_stripe" else 0.0)
    hit_mean = path + hit + pool_w
    miss_floor = hit_floor + read_floor
    write_floor = hit_floor if state.write_back else hit_floor + write_floor_drive
    # fdatasync/fsync: a second system call and a flush command without data, which the
    # array answers from its non-volatile write cache (the write it follows is committed
    # there already); O_DSYNC writes carry FUA, which that cache satisfies on arrival.
    flush = 0.0
    if job.sync in ("fdatasync", "fsync") and fw_any(job):
        flush = host.sync_us / 1e6 + 1 / (host.hbas * host.hba_iops) + 1 / ctl.iops + 0.6 * hit
        explain["flush_us"] = round(flush * 1e6, 1)
    return Geometry(
        owners=owners,
        luns=luns,
        pieces=pieces,
        backend_ios=backend_ios,
        busy_drives=busy_drives,
        drive_queues=drive_queues,
        drive_share=drive_share,
        span=span,
        read_hit=read_hit,
        flash_hit=flash_hit,
        miss=miss,
        prefetched=job.sequential and state.read_ahead,
        write_cache=write_cache,
        destaged=destaged,
        read_work=read_work,
        write_work=write_work,
        cpu_s=cpu,
        links_s=links,
        controller_read_s=per_io + extra_r,
        controller_write_s=per_io + extra_w,
        pool_read_s=pool_r,
        pool_write_s=pool_w,
        floors=Floors(hit_floor, hit_mean, miss_floor, write_floor),
        parity_s=parity,
        flush_s=flush,
        explain=explain,
    )


def drive_floor(profile: ArrayProfile, work: Work, piece: float) -> float:
    """The shortest drive access of a request of ``piece`` bytes whose work is ``work``:
    its bytes shared by the drives it spreads over, after a track-to-track seek where it
    positions (flash: a page read where it operates on pages); never more than the path
    the queueing network charges it."""
    d = profile.drives
    transfer = piece / max(1.0, work.spread) / (d.transfer_mib_s * MIB)
    if work.positions <= 0:
        return transfer
    if d.rotating:
        return d.track_seek_ms / 1000 + transfer
    return (d.read_us or 0.0) / 1e6 + transfer


def fw_any(job: Job) -> bool:
    return job.read_fraction < 1.0


#: the most a data profile's buffers can be reduced (fully compressible or repeated data)
MAX_REDUCTION = 20.0


def reduction_ratio(profile_ratio: float, job: Job) -> float:
    """Bytes written per byte stored: from the job's data profile when it has one,
    ``1 / ((1 − compress) (1 − dedupe))`` (a repeated buffer is stored once, the rest
    compressed), at most ``MAX_REDUCTION``; else the profile's ``ratio``."""
    if job.data is None:
        return profile_ratio
    kept = (1 - job.data.compress_pct / 100) * (1 - job.data.dedupe_pct / 100)
    return min(MAX_REDUCTION, 1 / kept) if kept > 0 else MAX_REDUCTION
