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


def min_access_s(profile: ArrayProfile, nbytes: float) -> float:
    """The shortest a drive access can take: a track-to-track seek and the transfer (the
    floor of every response that reaches the drives)."""
    d = profile.drives
    transfer = nbytes / (d.transfer_mib_s * MIB)
    if d.rotating:
        return d.track_seek_ms / 1000 + transfer
    return (d.read_us or 0.0) / 1e6 + transfer


def flash_op_s(profile: ArrayProfile, write: bool) -> float:
    d = profile.drives
    if write:
        return (d.program_us or 0.0) * d.write_amplification / 1e6
    return (d.read_us or 0.0) / 1e6


@dataclass
class Work:
    """Back-end work per host I/O: positioning events and bytes moved."""

    positions: float = 0.0  # random accesses (seek + rotation, or a flash page operation)
    write_positions: float = 0.0  # of which writes (flash programs; destaged on HDD)
    bytes: float = 0.0
    rotations: float = 0.0  # full rotations waited (read-modify-write in place)

    def add(self, other: Work, times: float = 1.0) -> None:
        self.positions += other.positions * times
        self.write_positions += other.write_positions * times
        self.bytes += other.bytes * times
        self.rotations += other.rotations * times

    def scaled(self, k: float) -> Work:
        return Work(
            self.positions * k, self.write_positions * k, self.bytes * k, self.rotations * k
        )


def random_read(profile: ArrayProfile, level: str, x: float) -> Work:
    drives = min(profile.raid_groups[level].data, math.ceil(x / (profile.strip_kib * KIB)))
    return Work(positions=drives, bytes=x)


def random_write(profile: ArrayProfile, level: str, x: float) -> Work:
    group = profile.raid_groups[level]
    strip = profile.strip_kib * KIB
    drives = min(group.data, math.ceil(x / strip))
    if level in MIRRORED:
        return Work(positions=2 * drives, write_positions=2 * drives, bytes=2 * x)
    if group.redundancy == 0:
        return Work(positions=drives, write_positions=drives, bytes=x)
    full = group.data * strip
    if x >= full:  # full-stripe write: no reads, parity computed from the new data
        return Work(
            positions=group.width, write_positions=group.width, bytes=x * group.width / group.data
        )
    # Partial stripe: read old data and parity, write new data and parity (RMW). A spinning
    # drive writes the new block where it read the old one: it positions once and waits one
    # rotation for the sector to come round again; flash reads a page and programs another.
    touched = drives + group.redundancy
    moved = x + group.redundancy * min(x, strip)
    if profile.drives.rotating:
        return Work(positions=touched, write_positions=touched, bytes=2 * moved, rotations=touched)
    return Work(positions=2 * touched, write_positions=touched, bytes=2 * moved)


def sequential(profile: ArrayProfile, level: str, x: float, write: bool, coalesced: bool) -> Work:
    group = profile.raid_groups[level]
    overhead = group.width / group.data  # parity or second copy passes under the heads too
    if not write or coalesced or x >= profile.full_stripe_kib(level) * KIB:
        w = Work(bytes=x * overhead)
        if write and not profile.drives.rotating:
            w.write_positions = w.positions = math.ceil(x / (profile.strip_kib * KIB))
        return w
    if level in MIRRORED or group.redundancy == 0:
        return Work(bytes=x * overhead)
    # Write-through partial stripe written in place: read old data and parity, wait one
    # rotation, write them back.
    touched = min(group.data, math.ceil(x / (profile.strip_kib * KIB))) + group.redundancy
    return Work(bytes=2 * x * overhead, rotations=touched)


def parity_s(profile: ArrayProfile, level: str, x: float, sequential: bool) -> float:
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
    if sequential or x >= profile.full_stripe_kib(level) * KIB:
        return x * group.width / group.data / rate
    updates = 1.0 + adapters.q_factor * (group.redundancy - 1)
    # the bytes a read-modify-write reads and writes, as the drives move them
    return updates * adapters.update_us / 1e6 + random_write(profile, level, x).bytes / rate
