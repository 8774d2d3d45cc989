"""The simulated array's closed queueing network, solved by exact mean-value analysis.

``README.md`` beside this file gives the formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple


@dataclass
class Station:
    """One resource: ``servers`` alike, ``read``/``write`` seconds of service per host I/O.

    ``read_path``/``write_path`` is what the I/O waits there when the station is idle, if
    it differs from the demand: pieces of one I/O served in parallel on several servers
    load the station with their sum but keep the I/O only as long as the slowest piece.

    ``queues``: the servers form this many separate queues of ``servers / queues`` each, and
    a request can wait only in the one that holds its data (a drive, or a mirrored pair
    that reads from either copy); 1 is one queue every server takes from.

    ``read_held``: a read does its work here while it holds a server of another station (a
    pool's path slot keeps a read miss until the drive has staged it): the work loads this
    station, but the read's time here is counted in that hold, so it neither waits here nor
    queues here in the network; ``held_wait`` is what a write on the path waits here behind
    those held reads (the reads ahead of it in its queue).

    ``read_waits``: of ``read``, the seconds a read waits in another station's queue while
    it holds a server here (not service this station limits: left out of ``capacity``).
    """

    name: str
    servers: int
    read: float
    write: float
    read_on_path: bool = True
    write_on_path: bool = True
    read_path: float | None = None
    write_path: float | None = None
    queues: int = 1
    read_held: bool = False
    held_wait: float = 0.0
    read_waits: float = 0.0

    def demand(self, fr: float, fw: float) -> float:
        return fr * self.read + fw * self.write

    def capacity(self, fr: float, fw: float) -> float:
        """Host I/Os per second this station can serve at most (all its work counted)."""
        total = self.demand(fr, fw) - fr * self.read_waits
        return self.servers / total if total > 0 else math.inf


class Load(NamedTuple):
    """How busy one station is in a solution: the share of its servers' time at work, and
    the I/Os waiting or in service there (for the station's own scheduling)."""

    utilisation: float
    queue: float


IDLE = Load(0.0, 0.0)


class Solution(NamedTuple):
    """Throughput, each direction's response time, and every station's load by name (a
    tuple, not a frozen dataclass: the solver builds one per iteration of every question)."""

    iops: float
    read_s: float
    write_s: float
    loads: dict[str, Load]

    def load(self, station: str) -> Load:
        """The named station's load (idle where the network has no such station)."""
        return self.loads.get(station, IDLE)

    @property
    def busiest(self) -> float:
        """The highest utilisation of any station (0 for an empty network)."""
        return max((s.utilisation for s in self.loads.values()), default=0.0)


def mva(
    demands: list[float], waits: list[float], delay: float, n: int
) -> tuple[float, list[float], list[float]]:
    """Exact single-class MVA over stations that may be split into separate queues.
    Returns X(n), Q(n) and Q(n-1), ``Q`` the requests at each station's every queue.

    ``demands[k]`` is the work one host I/O brings each of station ``k``'s queues (per
    server), ``waits[k]`` what the I/O waits there for each request ahead of it in its
    queue and for its own service; for a station of one queue the two are equal.
    """
    q = [0.0] * len(demands)
    q_prev = q
    x = 0.0
    for k in range(1, min(n, EXACT_POPULATION) + 1):
        q_prev = q
        r = [w * (1 + qi) for w, qi in zip(waits, q, strict=True)]
        x = k / (delay + sum(r))
        q = [x * d * (1 + qi) for d, qi in zip(demands, q, strict=True)]
    if n <= EXACT_POPULATION:
        return x, q, q_prev
    return _schweitzer(demands, waits, delay, n, q)


#: populations up to this are solved by exact MVA (one step per I/O in flight); above it by
#: Schweitzer's approximation, whose cost does not grow with the population
EXACT_POPULATION = 1024


def _schweitzer(
    demands: list[float], waits: list[float], delay: float, n: int, q: list[float]
) -> tuple[float, list[float], list[float]]:
    """Schweitzer's approximate MVA for a large population ``n``: the queues an arriving
    I/O finds are the full population's scaled to the ``n − 1`` others,
    ``Q(n − 1) ≈ Q(n) (n − 1)/n``, solved by damped fixed-point iteration from ``q`` (the
    exact queues at ``EXACT_POPULATION``, scaled up)."""
    scale = n / EXACT_POPULATION
    q = [qi * scale for qi in q]
    shrink = (n - 1) / n
    x = 0.0
    for _ in range(SCHWEITZER_STEPS):
        seen = [qi * shrink for qi in q]
        x = n / (delay + sum(w * (1 + si) for w, si in zip(waits, seen, strict=True)))
        new = [x * d * (1 + si) for d, si in zip(demands, seen, strict=True)]
        change = max((abs(a - b) for a, b in zip(new, q, strict=True)), default=0.0)
        q = [0.5 * (a + b) for a, b in zip(new, q, strict=True)]
        if change <= 1e-9 * n:
            break
    seen = [qi * shrink for qi in q]
    x = n / (delay + sum(w * (1 + si) for w, si in zip(waits, seen, strict=True)))
    q = [x * d * (1 + si) for d, si in zip(demands, seen, strict=True)]
    return x, q, [qi * shrink for qi in q]


#: fixed-point steps Schweitzer's iteration takes at most
SCHWEITZER_STEPS = 5000


def solve(
    stations: list[Station], fr: float, fw: float, delay_r: float, delay_w: float, n: int
) -> Solution:
    """Throughput and per-direction response time of the network with ``n`` I/Os in flight.

    A station with ``m`` servers is one queue of demand ``D/m`` plus a pure delay of
    ``p − D/m`` (Seidmann, ``p = D`` unless the pieces run in parallel). Work off the
    response path (destage, prefetch) only loads the station: the array gives host I/O
    priority over destage and prefetch, so an on-path request waits at most for the one in
    service: its demand grows by ``1 + U_off / 2``.

    A station of ``G`` separate queues (``queues``) of ``c = m / G`` servers holds each of an
    I/O's pieces in one queue, chosen by where its data lies: every queue sees the demand
    ``D/m`` per host I/O, and the I/O waits ``p / c`` for each request ahead of its piece
    (``p`` its path: the slowest piece), at least the one queue's ``D/m``.
    """
    x_guess = 0.0
    result = Solution(0.0, 0.0, 0.0, {})
    for _ in range(6):
        q_dem, w_dem, z_r, z_w, d_r, d_w = [], [], delay_r, delay_w, [], []
        for s in stations:
            off = (0.0 if s.read_on_path else fr * s.read) + (
                0.0 if s.write_on_path else fw * s.write
            )
            u_off = min(1.0, x_guess * off / s.servers)
            inflate = 1.0 + 0.5 * u_off
            m = s.servers
            held = s.read_held
            sr = s.read * inflate if s.read_on_path and not held else 0.0
            sw = s.write * inflate if s.write_on_path else 0.0
            pr = (s.read_path if s.read_path is not None else s.read) * inflate
            pw = (s.write_path if s.write_path is not None else s.write) * inflate
            g = s.queues
            wr = max(sr, pr * g) / m if s.read_on_path and not held else 0.0
            ww = max(sw, pw * g) / m if s.write_on_path else 0.0
            d_r.append(wr)
            d_w.append(ww)
            z_r += max(0.0, pr - wr) if s.read_on_path and not held else 0.0
            z_w += max(0.0, pw - ww) + s.held_wait if s.write_on_path else 0.0
            q_dem.append(fr * sr / m + fw * sw / m)
            w_dem.append(fr * wr + fw * ww)
        delay = fr * z_r + fw * z_w
        x, q, q_prev = mva(q_dem, w_dem, delay, n)
        r_read = z_r + sum(d * (1 + qq) for d, qq in zip(d_r, q_prev, strict=True))
        r_write = z_w + sum(d * (1 + qq) for d, qq in zip(d_w, q_prev, strict=True))
        loads = {
            s.name: Load(min(1.0, x * s.demand(fr, fw) / s.servers), qq * s.queues)
            for s, qq in zip(stations, q, strict=True)
        }
        result = Solution(x, r_read, r_write, loads)
        if abs(x - x_guess) <= 1e-3 * max(x, 1.0):
            break
        x_guess = x
    return result


def held_residence(
    demand: float, wait: float, path: float, delay: float, population: float
) -> tuple[float, float]:
    """What a request waits at a station of separate queues while it holds one of a few
    servers elsewhere (a pool's path slot held through the drive access), and the requests
    that stay in each queue: only the ``population`` holders (fractional: interpolated) can
    be there, so exact MVA over them, each cycling between the queue (``demand`` per queue,
    ``wait`` per request ahead, ``path`` when alone) and ``delay`` (the rest of its hold).
    Returns ``(R, Q)``: ``R = path − wait + wait · (1 + Q(L − 1))`` and ``Q(L)``."""
    top = max(1, math.ceil(population))
    qs = [0.0]
    z = delay + max(0.0, path - wait)
    for k in range(1, top + 1):
        r = wait * (1 + qs[-1])
        x = k / (z + r) if z + r > 0 else 0.0
        qs.append(x * demand * (1 + qs[-1]))

    def at(n: float) -> float:
        n = min(float(top), max(0.0, n))
        lo = int(n)
        hi = min(top, lo + 1)
        return qs[lo] + (qs[hi] - qs[lo]) * (n - lo)

    ahead = at(population - 1.0)
    return max(0.0, path - wait) + wait * (1 + ahead), at(population)
