"""How long validating a very large config space takes: refused or validated, never stuck.

A spec whose config space holds more than 100,000 configurations (RAID 5/6/10 × single rank,
host stripe and pool stripe of 2 to 64 ranks × 23 stripe sizes each × 4 cache policies ×
snapshots × data reduction: 139,152 configurations) is validated by ``load_spec`` in three
shapes: grid mode on the simulated array (refused at once for its size, with the advice to
use optimize mode), optimize mode on the simulated array (every configuration the profile
cannot build named, grouped by reason), and optimize mode on linux_md (every configuration
checked against the platform's rules). Also the 69,552-configuration grid that once got no
verdict in 300 s. Each is timed in this process after one warm-up validation (imports and
the profile read once), and again as a whole ``raidsweep run --check`` process where asked.

Goal: each validated or refused in under 2 s.

Run: .venv/bin/python benchmarks/space_validation.py [--repeat N] [--cli]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sweeper.configuration import space_size  # noqa: E402
from sweeper.errors import InputError  # noqa: E402
from sweeper.spec import ConfigSpace, load_spec  # noqa: E402

GOAL_S = 2.0
RANKS = list(range(2, 65))
STRIPES = [2**i for i in range(2, 25)]  # 4 KiB .. 16 GiB, every power of two the spec takes


def _spec(name: str, platform: str, mode: str, space: dict[str, Any]) -> dict[str, Any]:
    inventory = {
        "sim": ROOT / "inventories" / "sim" / "hosts.yml",
        "linux_md": ROOT / "tests" / "fixtures" / "linux_md" / "hosts.yml",
    }[platform]
    study: dict[str, Any] = {"mode": mode}
    if mode == "optimize":
        study["budget"] = 50
    return {
        "name": name,
        "platform": platform,
        "inventory": str(inventory),
        "platform_options": {"profile": "ds8800-like"} if platform == "sim" else {},
        "config_space": space,
        "matrix": {
            "patterns": ["write", "randread", "randwrite", "randrw70"],
            "block_sizes": ["4k", "8k", "16k", "64k"],
            "concurrency": ["1x1", "1x16"],
            "runtime": "60s",
            "ramp": "5s",
        },
        "classes": ["redo_log", "data_file"],
        "study": study,
    }


def _large_space() -> dict[str, Any]:
    return {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe", "pool_stripe"],
        "ranks": RANKS,
        "stripe_kib": STRIPES,
        "cache_policy": ["wb-ra", "wb-nora", "wt-ra", "wt-nora"],
        "snapshots": [False, True],
        "data_reduction": [False, True],
    }


def _linux_md_space() -> dict[str, Any]:
    """linux_md builds every RAID level but has no data reduction: 115,960 configurations."""
    return _large_space() | {
        "raid_level": ["raid0", "raid1", "raid5", "raid6", "raid10"],
        "data_reduction": [False],
    }


def _reported_space() -> dict[str, Any]:
    """A space of the size that got no verdict in 300 s: 69,552 configurations."""
    return _large_space() | {"layout": ["host_stripe"]}


def _validate(path: Path) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        load_spec(path)
        verdict = "valid"
    except InputError as exc:
        first = exc.problems[0] if exc.problems else ""
        verdict = f"refused, {len(exc.problems)} problem(s): {first[:110]}"
    return time.perf_counter() - start, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="validations per case (best)")
    parser.add_argument("--cli", action="store_true", help="also time raidsweep run --check")
    args = parser.parse_args()
    cases = [
        ("grid-sim", "sim", "grid", _large_space()),
        ("optimize-sim", "sim", "optimize", _large_space()),
        ("optimize-linux-md", "linux_md", "optimize", _linux_md_space()),
        ("reported-grid", "sim", "grid", _reported_space()),
    ]
    print(f"goal: every case validated or refused in under {GOAL_S:.0f} s")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.yaml"
        warm.write_text(yaml.safe_dump(_spec("warm", "sim", "grid", {"raid_level": ["raid5"]})))
        _validate(warm)
        for name, platform, mode, space in cases:
            path = Path(tmp) / f"{name}.yaml"
            path.write_text(yaml.safe_dump(_spec(name, platform, mode, space)))
            size = space_size(ConfigSpace.model_validate(space))
            best, verdict = min(_validate(path) for _ in range(args.repeat))
            worst = max(worst, best)
            print(f"{name:18s} {size:>9,} configurations: {best:6.3f} s  {verdict}")
            if args.cli:
                start = time.perf_counter()
                proc = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "sweeper.cli",
                        "run",
                        str(path),
                        "--check",
                        "--store",
                        str(Path(tmp) / "store"),
                    ],
                    capture_output=True,
                    text=True,
                    timeout=600,
                    check=False,
                )
                took = time.perf_counter() - start
                print(
                    f"{'':18s} raidsweep run --check (whole process): {took:6.3f} s, "
                    f"exit {proc.returncode}"
                )
    print(f"slowest: {worst:.3f} s")
    print("GOAL MET" if worst < GOAL_S else "GOAL MISSED")


if __name__ == "__main__":
    main()
