"""``raidsweep sql``'s memory on a large result (goal: the peak stays under 400 MB and grows
by under 25% from 1 to 30 million rows written as CSV).

A query's result streams out in chunks of DuckDB's vectors, so what the command holds does
not grow with the result. Baseline, run beside it: the same query read whole into pandas
(DuckDB's ``.df()``) and then written, which is what the command did before it streamed.

Each figure is a real process's peak resident set (``ru_maxrss`` of the child): the command as
a user runs it (``.venv/bin/raidsweep sql --format csv``, output to /dev/null) on a scratch
store holding no sweep, and the baseline as a small Python process doing the same.

Run: .venv/bin/python benchmarks/sql_memory.py [--rows 1000000,10000000,30000000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAIDSWEEP = ROOT / ".venv" / "bin" / "raidsweep"
GOAL_MB = 400
GOAL_GROWTH = 1.25

BASELINE = """
import sys, duckdb
frame = duckdb.connect().sql(sys.argv[1]).df()
sys.stdout.write(frame.to_csv(index=False))
"""


def _query(rows: int) -> str:
    return f"SELECT i, 'run-' || i AS name, i / 7 AS value FROM range({rows}) t(i)"  # noqa: S608


#: a fresh interpreter runs the command and reports that one child's peak (MB) and seconds
MEASURE = """
import resource, subprocess, sys, time
began = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, time.monotonic() - began)
"""


def _peak_mb(command: list[str]) -> tuple[float, float]:
    """The command's peak resident set in MB and its wall time; it must succeed."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], capture_output=True, text=True, check=True
    ).stdout
    peak, seconds = out.split()
    return float(peak), float(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1000000,10000000,30000000")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.rows.split(","))
    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "store"
        store.mkdir()
        streamed, baseline = [], []
        for rows in sizes:
            cmd = [str(RAIDSWEEP), "sql", "--store", str(store), "--format", "csv", _query(rows)]
            streamed.append(_peak_mb(cmd))
            baseline.append(_peak_mb([sys.executable, "-c", BASELINE, _query(rows)]))
    print(f"{'rows':>12}  {'raidsweep sql MB':>17}  {'s':>6}  {'read whole MB':>14}  {'s':>6}")
    for rows, (mb, s), (base_mb, base_s) in zip(sizes, streamed, baseline, strict=True):
        print(f"{rows:>12,}  {mb:>17.0f}  {s:>6.1f}  {base_mb:>14.0f}  {base_s:>6.1f}")
    top = max(mb for mb, _ in streamed)
    growth = streamed[-1][0] / streamed[0][0]
    met = top < GOAL_MB and growth < GOAL_GROWTH
    print(
        f"goal: peak under {GOAL_MB} MB (is {top:.0f}), growth from {sizes[0]:,} to "
        f"{sizes[-1]:,} rows under {GOAL_GROWTH:.2f}x (is {growth:.2f}x): "
        f"{'met' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
