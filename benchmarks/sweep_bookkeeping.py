"""The sweep's bookkeeping stays flat as the store grows: the last configurations of a long
sweep cost no more wall time than the first.

On the simulated array, a grid sweep of the first 500 configurations (in build order) of a
space of 1,224, with pruning on (each configuration is compared with every one completed
before it) and a matrix of one cell, one repetition and a short runtime. The Ansible play,
a constant cost of seconds per configuration, is replaced by what the sim role does (it
records the array's state for the simulated runner, and publishes it as the play's facts),
in-process: what a configuration costs is then the sweep's own work, its bookkeeping
included. The wall time per configuration is the time
between two configurations finishing (median over each block, so that another process's
load on the machine does not decide; the mean is printed too). The sweeper's own CPU time per
configuration is printed beside it: unlike wall time, others' load does not move it.

Goal: the last 100 configurations cost at most 1.2× the first 100 per configuration.

Run: .venv/bin/python benchmarks/sweep_bookkeeping.py [configurations]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

import sweeper.play_ahead
from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration


def sim_play(playbook: str, inventory: Path, extravars: dict[str, Any], **_: Any) -> PlayResult:
    """What playbooks/roles/sim does for reconfigure.yml, without starting Ansible."""
    config = Configuration.from_params(extravars)
    state = config.params() | {
        "profile": extravars["sim_profile"],
        "ranks": config.rank_count,
        "stripe_kib": config.stripe_kib,
        "snapshots": config.snapshots,
        "data_reduction": config.data_reduction,
        "health": extravars["sim_health"],
    }
    folder = Path(extravars["sim_state_dir"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "array.json").write_text(json.dumps(state, sort_keys=True))
    return PlayResult("successful", 0, 1, None, None, "", 0.0, facts=state)


# Every configuration's play is the stand-in, none is started ahead.
sweeper.play_ahead.PlaysAhead.start = lambda self: None  # type: ignore[method-assign]
sweeper.play_ahead.PlaysAhead.reconfigure = (  # type: ignore[method-assign]
    lambda self, extravars, **_: sim_play("reconfigure.yml", self._inventory, extravars)
)

from sweeper.spec import load_spec  # noqa: E402
from sweeper.store import ParquetStore  # noqa: E402
from sweeper.sweep import Progress, run_sweep  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIGURATIONS, BLOCK, GOAL_RATIO = 500, 100, 1.2


def spec_dict(configurations: int) -> dict[str, Any]:
    return {
        "name": "bookkeeping",
        "platform": "sim",
        "inventory": str(ROOT / "inventories/sim/hosts.yml"),
        "platform_options": {"profile": "ds8800-like"},
        "config_space": {
            "raid_level": ["raid5", "raid6", "raid10"],
            "layout": ["single_rank", "host_stripe", "pool_stripe"],
            "ranks": [2, 3, 4, 6, 8],
            "stripe_kib": {
                "host_stripe": [8, 16, 32, 64, 128, 256, 512, 1024],
                "pool_stripe": [16384, 1048576],
            },
            "cache_policy": ["wb-ra", "wb-nora", "wt-ra", "wt-nora"],
            "snapshots": [False, True],
        },
        "matrix": {
            "patterns": ["write"],
            "block_sizes": ["64k"],
            "concurrency": ["1x16"],
            "engine": "psync",
            "runtime": "10s",
            "ramp": "1s",
            "repetitions": 1,
            "working_set": "100g",
        },
        "classes": [str(ROOT / "benchmarks" / "classes" / "seq_write.yaml")],
        "study": {"mode": "grid", "prune": True, "seed": 7, "budget": configurations},
    }


class Clock(Progress):
    """When each configuration finished (complete, pruned or failed)."""

    def __init__(self) -> None:
        self.finished: list[float] = []
        self.cpu: list[float] = []

    def configuration_done(self, key: str, status: str, array_s: float) -> None:
        self.finished.append(time.perf_counter())
        self.cpu.append(time.process_time())


def main() -> int:
    configurations = int(sys.argv[1]) if len(sys.argv) > 1 else CONFIGURATIONS
    block = min(BLOCK, configurations // 2)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bookkeeping.yaml"
        path.write_text(yaml.safe_dump(spec_dict(configurations)))
        spec, inventory = load_spec(path)
        clock = Clock()
        started, cpu_started = time.perf_counter(), time.process_time()
        outcome = run_sweep(spec, inventory, ParquetStore(Path(tmp) / "store"), progress=clock)
        total_s = time.perf_counter() - started
    times = [started, *clock.finished]
    costs = [b - a for a, b in zip(times, times[1:], strict=False)]
    first, last = costs[:block], costs[-block:]
    ratio = statistics.median(last) / statistics.median(first)
    cpu_times = [cpu_started, *clock.cpu]
    cpu = [b - a for a, b in zip(cpu_times, cpu_times[1:], strict=False)]
    cpu_ratio = statistics.median(cpu[-block:]) / statistics.median(cpu[:block])
    print(
        f"{len(costs)} configurations ({outcome.configurations_done} complete, "
        f"{len(outcome.configurations_pruned)} pruned, {len(outcome.configurations_failed)} "
        f"failed), {outcome.runs_written} runs, {total_s:.0f} s"
    )
    for name, part in ((f"first {block}", first), (f"last {block}", last)):
        print(
            f"  {name:9} {statistics.median(part):6.3f} s per configuration (median), "
            f"{statistics.fmean(part):6.3f} s (mean)"
        )
    print(f"  ratio     {ratio:6.2f}   (goal ≤ {GOAL_RATIO})")
    print(
        f"  CPU time  {statistics.median(cpu[:block]):6.3f} s → "
        f"{statistics.median(cpu[-block:]):6.3f} s per configuration (median), "
        f"ratio {cpu_ratio:.2f}"
    )
    met = ratio <= GOAL_RATIO and len(costs) >= configurations
    print("GOAL MET" if met else "GOAL MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
