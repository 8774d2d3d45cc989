"""An open-loop (rate) run on the simulated array: Poisson arrivals at a fixed rate.

At a rate ``λ`` below the closed loop's throughput ``X`` the array is busy ``ρ = λ / X`` of
the time and an I/O waits as in an M/G/1 queue: its latency grows from the one-outstanding
latency ``R₁`` as ``R₁ / (1 − ρ)``, never beyond the closed loop's own latency at the cell's
queue depth (fio measures latency from submission, and no more I/Os than the queue depth are
submitted at once). The run carries ``min(λ, X)``.
"""

from __future__ import annotations

import math
from dataclasses import replace

from sweeper.sim.fiojson import Component
from sweeper.sim.model import Phase, Prediction

#: the utilisation an open loop is taken at, at most (1 would be an infinite wait)
RHO_MAX = 0.99


def open_loop(closed: Prediction, single: Prediction, rate_iops: float) -> Prediction:
    """The prediction for arrivals at ``rate_iops`` from the cell's closed loop (``closed``)
    and the same job at one outstanding I/O (``single``)."""
    if not (math.isfinite(rate_iops) and rate_iops > 0):
        raise ValueError(f"a rate must be a positive number of IOPS, not {rate_iops!r}")
    x = min(rate_iops, closed.iops)
    rho = min(x / closed.iops, RHO_MAX) if closed.iops > 0 else RHO_MAX
    last = single.phases[-1]

    def scaled(parts: tuple[Component, ...], r1: float, r_closed: float) -> tuple[Component, ...]:
        if not parts or r1 <= 0:
            return parts
        want = min(r1 / (1 - rho), max(r_closed, r1))
        return tuple(replace(c, mean_s=c.mean_s * want / r1) for c in parts)

    phase = Phase(
        1.0,
        x,
        scaled(last.read, single.read_lat_s, closed.read_lat_s),
        scaled(last.write, single.write_lat_s, closed.write_lat_s),
    )
    explain = dict(closed.explain) | {
        "open_loop_rate_iops": round(rate_iops, 1),
        "open_loop_utilisation": round(rho, 4),
        "closed_loop_iops": round(closed.iops, 1),
    }
    return Prediction((phase,), explain, closed.dirty_end, closed.flush_s)
