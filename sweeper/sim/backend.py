"""Back-end work of the simulated array: what one host I/O costs the drives of a RAID group.

Pure functions of the profile; ``README.md`` beside this file gives the formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sweeper.sim.profile import MIRRORED, ArrayProfile

KIB = 1024
MIB = 1024**2
# A mirrored read goes to the copy that can serve it sooner: the shorter of two positioning
# times (two idle drives: 2/3 of one; busy drives leave less choice).
MIRROR_POSITIONING = 0.75
# Requests a drive reorders at once (tagged command queueing): positioning shrinks with the
# queue it can choose from, up to this depth.
DRIVE_QUEUE_DEPTH = 32
# How much reordering shortens positioning: with q requests to choose from, a drive
# positions in q^-0.3 of the time one request takes (about 1.9x the rate at q = 8).
RPO_EXPONENT = 0.3
# Dirty tracks of one drive the destage elevator sorts at a time (write-back destage).
DESTAGE_QUEUE = 4.0


def rotation_s(profile: ArrayProfile) -> float:
    return 60.0 / float(profile.drives.rpm or 7200)


def positioning_s(profile: ArrayProfile, span: float, queue: float = 1.0) -> float:
    """Seek + rotational latency on a drive whose used band is ``span`` of its stroke and
    that chooses among ``queue`` requests (shortest positioning time first):
    ``(seek(span) + rotation / 2) · q^−RPO_EXPONENT``, ``q`` at most the drive's queue.
    """
    d = profile.drives
    if not d.rotating:
        return 0.0
    assert d.avg_seek_ms is not None
    q = min(float(DRIVE_QUEUE_DEPTH), max(1.0, queue))
    seek = d.track_seek_ms + (d.avg_seek_ms - d.track_seek_ms) * math.sqrt(min(1.0, span))
    return (seek / 1000 + rotation_s(profile) / 2) * q**-RPO_EXPONENT


def flash_op_s(profile: ArrayProfile, write: bool) -> float:
    d = profile.drives
    if write:
        return (d.program_us or 0.0) * d.write_amplification / 1e6
    return (d.read_us or 0.0) / 1e6


@dataclass
class Work:
    """Back-end work per host I/O: positioning events and bytes moved, and over how many
    drives one request's work spreads (they serve their parts at once)."""

    positions: float = 0.0  # random accesses (seek + rotation, or a flash page operation)
    write_positions: float = 0.0  # of which writes (flash programs; destaged on HDD)
    bytes: float = 0.0
    rotations: float = 0.0  # full rotations waited (read-modify-write in place)
    #: drives one request's work is spread over, served in parallel (the request waits for
    #: the slowest of them)
    spread: float = 1.0

    def add(self, other: Work, times: float = 1.0) -> None:
        self.positions += other.positions * times
        self.write_positions += other.write_positions * times
        self.bytes += other.bytes * times
        self.rotations += other.rotations * times
        self.spread = max(self.spread, other.spread)

    def scaled(self, k: float) -> Work:
        return Work(
            self.positions * k,
            self.write_positions * k,
            self.bytes * k,
            self.rotations * k,
            self.spread,
        )


def strips(profile: ArrayProfile, x: float) -> int:
    """Strips (hence drives, up to the group's width) a request of ``x`` bytes touches."""
    return max(1, math.ceil(x / (profile.strip_kib * KIB)))


def random_read(profile: ArrayProfile, level: str, x: float) -> Work:
    drives = min(profile.raid_groups[level].data, strips(profile, x))
    return Work(positions=drives, bytes=x, spread=drives)


def _rmw(profile: ArrayProfile, level: str, x: float) -> Work:
    """Read-modify-write of ``x`` bytes inside one stripe (RAID 5/6)."""
    group = profile.raid_groups[level]
    strip = profile.strip_kib * KIB
    drives = min(group.data, strips(profile, x))
    # Read old data and parity, write new data and parity. A spinning drive writes the new
    # block where it read the old one: it positions once and waits one rotation for the
    # sector to come round again; flash reads a page and programs another.
    touched = drives + group.redundancy
    moved = x + group.redundancy * min(x, strip)
    if profile.drives.rotating:
        return Work(
            positions=touched,
            write_positions=touched,
            bytes=2 * moved,
            rotations=touched,
            spread=touched,
        )
    return Work(positions=2 * touched, write_positions=touched, bytes=2 * moved, spread=touched)


def stripe_pieces(
    profile: ArrayProfile, level: str, x: float, bs: float
) -> list[tuple[float, float]]:
    """How a write of ``x`` bytes at an offset that is a multiple of ``bs`` (fio's random
    offsets) falls on stripes: ``(share of writes, bytes)`` for each piece of one write,
    a piece of a whole stripe being a full-stripe write and any other a read-modify-write.

    The write's offset modulo the full stripe ``F`` runs over the multiples of
    ``gcd(bs, F)`` alike; each phase is cut at the stripe boundaries.
    """
    full = profile.full_stripe_kib(level) * KIB
    step = math.gcd(int(bs), int(full))
    if step >= x:  # every write lies inside one stripe (or is one)
        return [(1.0, x)]
    phases = int(full) // step
    shares: dict[float, float] = {}
    for i in range(phases):
        at, end = i * step, i * step + x
        while at < end:
            nxt = min(end, (at // full + 1) * full)
            shares[nxt - at] = shares.get(nxt - at, 0.0) + 1.0 / phases
            at = nxt
    return [(share, piece) for piece, share in sorted(shares.items())]


def random_write(profile: ArrayProfile, level: str, x: float, bs: float | None = None) -> Work:
    """Drive work of a random write of ``x`` bytes at an offset that is a multiple of ``bs``
    (``x`` itself unless the host's LVM cut it): the whole stripes it covers are written
    with parity from the new data, each part of a stripe by read-modify-write."""
    group = profile.raid_groups[level]
    drives = min(group.data, strips(profile, x))
    if level in MIRRORED:
        return Work(
            positions=2 * drives, write_positions=2 * drives, bytes=2 * x, spread=2 * drives
        )
    if group.redundancy == 0:
        return Work(positions=drives, write_positions=drives, bytes=x, spread=drives)
    full = profile.full_stripe_kib(level) * KIB
    work = Work()
    whole = 0.0
    for share, piece in stripe_pieces(profile, level, x, bs or x):
        if piece >= full:
            whole += share * piece
        else:
            work.add(_rmw(profile, level, piece), share)
    if whole > 0:
        # whole stripes: every drive of the group positions once and writes its strips
        # (contiguous on each drive), parity computed from the new data
        positions = group.width * min(1.0, whole / full)
        work.add(
            Work(
                positions=positions,
                write_positions=positions,
                bytes=whole * group.width / group.data,
                spread=group.width,
            )
        )
    work.spread = min(float(group.width), work.spread)
    return work


def sequential(profile: ArrayProfile, level: str, x: float, write: bool, coalesced: bool) -> Work:
    """Drive work of one sequential request of ``x`` bytes. The bytes pass at the drives'
    transfer rate (parity or the second copy under the heads too); flash reads or programs
    a page for each strip; a write-through write waits for the media: a spinning drive one
    rotation for its sector, a partial stripe read-modify-written in place."""
    group = profile.raid_groups[level]
    overhead = group.width / group.data  # parity or second copy passes under the heads too
    if write:
        touched = min(group.width, math.ceil(strips(profile, x) * overhead))
    else:
        touched = min(group.data, strips(profile, x))
    w = Work(bytes=x * overhead, spread=touched)
    if not profile.drives.rotating:
        # a page operation on every strip's die, read or program
        w.positions = math.ceil(strips(profile, x) * (overhead if write else 1.0))
        if write:
            w.write_positions = w.positions
    if not write or coalesced:
        return w
    if x >= profile.full_stripe_kib(level) * KIB or level in MIRRORED or group.redundancy == 0:
        if profile.drives.rotating:
            w.rotations = touched  # each drive waits for its sector to come round
        return w
    # Write-through partial stripe written in place: read old data and parity, wait one
    # rotation, write them back (flash: read and program the pages).
    if not profile.drives.rotating:
        return _rmw(profile, level, x)
    touched = min(group.data, strips(profile, x)) + group.redundancy
    return Work(bytes=2 * x * overhead, rotations=touched, spread=touched)


def parity_s(
    profile: ArrayProfile, level: str, x: float, sequential: bool, bs: float | None = None
) -> float:
    """Time the device adapter's RAID engine spends on one write of ``x`` bytes to one rank.

    The engine moves every byte it reads from and writes to the drives at ``mib_s``; a
    read-modify-write (a partial stripe written at random) also costs ``update_us`` for
    each parity it updates, a Q update ``q_factor`` of them: ``(1 + q_factor (r − 1)) ·
    update_us + 2 (x + r · min(x, strip)) / mib_s``. A full stripe or a sequential write
    computes its parity from the new data: ``x · width / data / mib_s``. Mirrors and RAID 0
    compute no parity.
    """
    adapters = profile.device_adapters
    group = profile.raid_groups[level]
    if adapters is None or level in MIRRORED or group.redundancy == 0:
        return 0.0
    rate = adapters.mib_s * MIB
    if sequential:
        return x * group.width / group.data / rate
    full = profile.full_stripe_kib(level) * KIB
    updates = 1.0 + adapters.q_factor * (group.redundancy - 1)
    total = 0.0
    for share, piece in stripe_pieces(profile, level, x, bs or x):
        if piece >= full:
            total += share * piece * group.width / group.data / rate
        else:
            # the bytes a read-modify-write reads and writes, as the drives move them
            rmw = _rmw(profile, level, piece).bytes / rate
            total += share * (updates * adapters.update_us / 1e6 + rmw)
    return total
