"""The first read of a sweep's runs from about 1,500 loose run files, in a process of its own
(goal: the check of the files' columns, ``trust.damaged_parts``, under 0.15 s of it).

A sweep keeps one Parquet file per run until it holds ``COMPACT_AFTER_RUNS`` (1,500) of them,
and a reader (``raidsweep recommend`` while the sweep runs, the app, ``sql``) reads them all
when the sweep has no snapshot yet. Before it reads, the store checks that every file is
whole Parquet with the columns raidsweep writes (``trust.damaged_parts``), once per file and
process; DuckDB then reads the runs.

The store is built from real simulated runs: examples/quick.yaml is swept once into a scratch
store (1,134 runs), then its runs are written again as further repetitions with the store's
own ``put_run`` until it holds 1,500 run files (``--store DIR`` keeps it for the next time).
Its snapshot is set aside, so the runs are read from their files.

Printed, the median of ``--repeat`` fresh processes (each one's first read: Python's caches
cold, the files in the page cache): the check alone, the read of the runs that follows it,
and the whole first read as a reader meets it (``ParquetStore.runs``).

Run: .venv/bin/python benchmarks/store_first_read.py [--store DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sweeper.spec import load_spec  # noqa: E402
from sweeper.store import ParquetStore  # noqa: E402
from sweeper.store.snapshot import SNAPSHOT  # noqa: E402
from sweeper.sweep import run_sweep  # noqa: E402

SWEEP = "quick"
FILES = 1500
CHECK_GOAL_S = 0.15

#: one process's first read, printed as JSON: the check, the read after it, the whole read
_PROBE = """
import json, sys, time
from pathlib import Path
from sweeper.store import ParquetStore
from sweeper.store.trust import RUN_LAYOUT, damaged_parts

root = Path(sys.argv[1])
if sys.argv[2] == "split":
    store = ParquetStore(root)
    files = store._run_files("quick")
    t0 = time.perf_counter()
    damaged, _ = damaged_parts(files, RUN_LAYOUT)
    t1 = time.perf_counter()
    runs = store.runs("quick")
    t2 = time.perf_counter()
    print(json.dumps({"files": len(files), "damaged": len(damaged), "check": t1 - t0,
                      "after": t2 - t1, "rows": len(runs)}))
else:
    t0 = time.perf_counter()
    runs = ParquetStore(root).runs("quick")
    print(json.dumps({"whole": time.perf_counter() - t0, "rows": len(runs)}))
"""


def build_store(root: Path) -> None:
    """Sweep examples/quick.yaml into ``root``, then write its runs again as further
    repetitions until the sweep holds ``FILES`` run files."""
    spec_path = ROOT / "examples" / "quick.yaml"
    spec, inventory = load_spec(spec_path)
    store = ParquetStore(root)
    run_sweep(spec, inventory, store, spec_path=spec_path)
    files = sorted((root / SWEEP / "runs").glob("*/*.parquet"))
    more = FILES - len(files)
    print(f"building: {len(files)} runs swept, writing {more} more with put_run")
    for f in files[:more]:
        row: dict[str, Any] = pq.read_table(f).to_pylist()[0]
        row["repetition"] += 100
        store.put_run(row)


def probe(root: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root), mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, help="build the store here once, then reuse it")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.store or Path(scratch) / "store"
        if not (root / SWEEP / "sweep.json").exists():
            t0 = time.perf_counter()
            build_store(root)
            print(f"building: {time.perf_counter() - t0:.1f} s")
        snapshot = root / SWEEP / SNAPSHOT
        if snapshot.exists():
            snapshot.rename(root / SWEEP / f"{SNAPSHOT}.aside")
        files = sum(1 for _ in (root / SWEEP / "runs").glob("*/*.parquet"))
        splits = [probe(root, "split") for _ in range(args.repeat)]
        wholes = [probe(root, "whole") for _ in range(args.repeat)]
        check = statistics.median(s["check"] for s in splits)
        after = statistics.median(s["after"] for s in splits)
        whole = statistics.median(w["whole"] for w in wholes)
        rows = wholes[0]["rows"]
        print(f"store: {root} ({files} run files, {rows} runs read)")
        print(f"median of {args.repeat} processes, each one's first read:")
        per_file = check / files * 1e3
        print(f"  check of the files' columns:  {check:.3f} s ({per_file:.3f} ms a file)")
        print(f"  the read of the runs after it: {after:.3f} s")
        print(f"  first read, whole (runs()):    {whole:.3f} s")
        verdict = "met" if check <= CHECK_GOAL_S else "NOT met"
        print(f"goal: the check under {CHECK_GOAL_S} s at {files} files: {verdict}")


if __name__ == "__main__":
    main()
