"""A composite run on the simulated array: several streams at the same time.

Each stream is first predicted alone; together they share the array's busiest resource: where
their utilisations alone add up to ``U > 1`` every stream gets ``1/U`` of its throughput and
waits ``U`` times as long (processor sharing of the common bottleneck), and below that they
do not disturb each other. A first-order model, stated as such in each run's record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sweeper.sim.fiojson import Component
from sweeper.sim.model import Prediction


def sharing_factor(alone: Sequence[Prediction]) -> float:
    """How much the streams slow each other: their utilisations alone summed, at least 1."""
    return max(1.0, sum(float(p.explain.get("utilisation", 0.0)) for p in alone))


def shared(pred: Prediction, factor: float) -> Prediction:
    """``pred`` with ``1/factor`` of its throughput and ``factor`` times its latency."""
    if factor < 1:
        raise ValueError(f"a sharing factor is at least 1, not {factor}")

    def slower(parts: tuple[Component, ...]) -> tuple[Component, ...]:
        return tuple(replace(c, mean_s=c.mean_s * factor) for c in parts)

    phases = tuple(
        replace(
            p,
            iops=p.iops / factor,
            ceiling=p.ceiling / factor,
            read=slower(p.read),
            write=slower(p.write),
        )
        for p in pred.phases
    )
    explain = dict(pred.explain) | {"composite_sharing_factor": round(factor, 4)}
    return replace(pred, phases=phases, explain=explain)
