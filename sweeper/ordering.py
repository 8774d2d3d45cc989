"""Build order for a grid: the configurations in an order that keeps reconfiguring cheap.

Rebuilding RAID ranks takes hours on large drives, changing a cache policy seconds. The order
is a greedy nearest-neighbour tour over the platform's own step costs: from each configuration
the cheapest next one (ties: the listed order), so that every layout, stripe and cache policy of
one RAID build is measured before that build is torn down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sweeper.configuration import Configuration

StepCost = Callable[[Configuration | None, Configuration], float]


def cost_ordered(configs: Sequence[Configuration], step_cost: StepCost) -> list[Configuration]:
    """``configs`` in greedy cheapest-next order, starting from the cheapest first build."""
    remaining = list(configs)
    order: list[Configuration] = []
    previous: Configuration | None = None
    while remaining:
        costs = [step_cost(previous, c) for c in remaining]
        best = min(range(len(remaining)), key=lambda i: (costs[i], i))
        previous = remaining.pop(best)
        order.append(previous)
    return order


def total_cost(configs: Sequence[Configuration], step_cost: StepCost) -> float:
    """Array time of reconfiguring through ``configs`` in this order."""
    total, previous = 0.0, None
    for c in configs:
        total += step_cost(previous, c)
        previous = c
    return total
