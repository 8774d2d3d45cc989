"""The stations of the simulated array's queueing network for one job (``README.md``)."""

from __future__ import annotations

from sweeper.sim import backend
from sweeper.sim.backend import MIB, Work
from sweeper.sim.geometry import Geometry
from sweeper.sim.network import Station
from sweeper.sim.profile import ArrayProfile
from sweeper.sim.state import ArrayState, Job


def _fork_join(pieces: int) -> float:
    """How much longer the slowest of ``pieces`` parallel drive accesses takes than one:
    ``1 + (H_j − 1) / 2`` (the expected maximum, service cv about 0.5)."""
    harmonic = sum(1.0 / i for i in range(1, pieces + 1))
    return 1.0 + 0.5 * (harmonic - 1.0)


def holds_reads(g: Geometry) -> bool:
    """Whether a read holds the pool's path slot through its drive access (read misses
    on a pool that read-ahead does not serve)."""
    return bool(g.pool_read_s or g.pool_write_s) and not g.prefetched


def build_stations(
    profile: ArrayProfile,
    state: ArrayState,
    job: Job,
    g: Geometry,
    queue: float,
    staged: float | None = None,
    held_wait: float = 0.0,
) -> list[Station]:
    """Host CPU, host links, controllers, the pool's path, flash tier and drives.

    ``queue`` is the number of requests a busy drive holds (tagged command queueing
    shortens positioning); destage is sorted by the array's elevator instead.
    ``staged`` is what a read miss holding a pool slot spends at the drives (its access
    and the requests ahead of it there; None: its access alone), ``held_wait`` what a
    write on the path waits at its drive behind those reads.
    """
    drives = profile.drives
    host = profile.host
    pos_read = backend.positioning_s(profile, g.span, queue)
    pos_write = backend.positioning_s(
        profile, g.span, backend.DESTAGE_QUEUE if state.write_back else queue
    )

    # A rebuild takes its share of every busy drive's time: host work there takes longer
    # by 1 / (1 − rebuild_share), on the media and on a flash drive's bus alike.
    slow = 1.0 / g.drive_share

    def drive_time(w: Work, pos: float) -> float:
        if drives.rotating:
            return slow * (
                w.positions * pos
                + w.rotations * backend.rotation_s(profile)
                + w.bytes / (drives.transfer_mib_s * MIB)
            )
        reads = w.positions - w.write_positions
        return slow * (
            reads * backend.flash_op_s(profile, False)
            + w.write_positions * backend.flash_op_s(profile, True)
        )

    def drive_path(w: Work, pos: float) -> float:
        """What one host I/O waits at the drives: its ``n`` parallel accesses (LVM pieces
        times the drives each spreads over) each take ``1/n`` of the work ``D``, and it
        waits for the slowest, ``D · F(n) / n`` (``F`` as for the LVM's pieces)."""
        n = max(1, round(g.backend_ios * w.spread))
        return drive_time(w, pos) * _fork_join(n) / n

    def bus_time(w: Work) -> float:
        return slow * w.bytes / (drives.transfer_mib_s * MIB)

    numjobs = job.numjobs * host.load_hosts
    stations = [
        Station("host_cpu", min(numjobs, host.cores * host.load_hosts), g.cpu_s, g.cpu_s),
        Station("host_links", 1, g.links_s, g.links_s),
        Station("controllers", g.owners, g.controller_read_s, g.controller_write_s),
    ]
    read_t = drive_time(g.read_work, pos_read)
    write_t = drive_time(g.write_work, pos_write)
    held = holds_reads(g)
    if g.pool_read_s or g.pool_write_s:
        # One virtualisation path per extent pool, in the server that owns it: host I/O
        # holds one of its slots; a read miss keeps it until the drive has staged the data
        # (destage bypasses it: a dirty track already knows its rank). What it spends at
        # the drives beyond its own access is waiting there, not the path's service.
        access = drive_path(g.read_work, pos_read) if held else 0.0
        at_drives = max(access, staged) if held and staged is not None else access
        stations.append(
            Station(
                "pool_path",
                profile.pool.slots,
                g.pool_read_s + at_drives,
                g.pool_write_s,
                read_path=g.pool_read_s + at_drives,
                write_path=g.pool_write_s,
                read_waits=at_drives - access,
            )
        )
    if g.parity_s > 0:
        # Each serving controller computes the parity of its ranks' writes in its device
        # adapter's RAID engine: a pool's ranks all belong to one server and share one.
        stations.append(
            Station(
                "device_adapters",
                g.owners,
                0.0,
                g.parity_s,
                write_on_path=not state.write_back,
            )
        )
    tier = profile.cache.flash_tier
    if tier is not None:
        ios = g.backend_ios
        tier_read = g.flash_hit * ios * tier.read_us / 1e6
        tier_write = ios * tier.program_us / 1e6 if state.write_back else 0.0
        stations.append(
            Station("flash_tier", tier.devices * tier.parallelism, tier_read, tier_write)
        )
        tier_bytes = job.block_size / (tier.transfer_mib_s * MIB)
        stations.append(
            Station(
                "flash_tier_bus",
                tier.devices,
                g.flash_hit * tier_bytes,
                tier_bytes if state.write_back else 0.0,
            )
        )
    servers = max(1, round(g.busy_drives))
    queues = max(1, min(servers, round(g.drive_queues)))
    read_on = not g.prefetched
    write_on = not state.write_back
    # The pieces of one host I/O, and the strips of each, run on different drives at once:
    # the I/O waits for the slowest, not for their sum.
    # A spinning drive is one server; a flash drive has ``parallelism`` dies working at once.
    media, media_servers = (
        ("drives", servers) if drives.rotating else ("drive_dies", servers * drives.parallelism)
    )
    # A request waits at the drive that holds its data; a mirrored pair reads from either
    # copy, whichever comes free first (one queue of two), and writes both. A read that
    # holds a pool slot is at the drives only while it holds it: its time there is the
    # slot's (``staged``), and only the slots' holders queue there.
    stations.append(
        Station(
            media,
            media_servers,
            read_t,
            write_t,
            read_on,
            write_on,
            read_path=drive_path(g.read_work, pos_read),
            write_path=drive_path(g.write_work, pos_write),
            queues=queues,
            read_held=held,
            held_wait=held_wait,
        )
    )
    if not drives.rotating:
        stations.append(
            Station(
                "drive_bus",
                servers,
                bus_time(g.read_work),
                bus_time(g.write_work),
                read_on,
                write_on,
                read_path=bus_time(g.read_work) / max(1.0, g.backend_ios * g.read_work.spread),
                write_path=bus_time(g.write_work) / max(1.0, g.backend_ios * g.write_work.spread),
            )
        )
    return stations
