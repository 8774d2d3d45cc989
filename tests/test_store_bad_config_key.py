"""A run whose address does not read as raidsweep writes it (a configuration key that is
none, a cell key that does not parse, a repetition below 1), stored at the very place its
address hashes to, is damaged: every reader leaves it out with a warning naming the file, the
column and what it holds, reads every other run, and changes nothing in the store; no reader
parses it (``recommend`` and ``report`` ended with a traceback on such a key).

Each case damages a real store: a small sweep on the simulated array, run by the installed
command, and the commands run as a user runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sweeper.store import ParquetStore
from sweeper.store.records import RunAddress, config_folder
from sweeper.store.snapshot import SNAPSHOT
from tests.support.cli import on_store
from tests.support.files import folder_contents
from tests.support.sweeps import copy_store, tiny_store

SWEEP = "b1"
RUNS = 8  # 2 configurations × 2 cells × 2 repetitions
#: a key a spreadsheet and a browser would both act on
FORMULA_KEY = '=HYPERLINK("http://x")<img src=x onerror=alert(9)>'


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep on the simulated array, run by ``raidsweep run``."""
    return tiny_store(tmp_path_factory.mktemp("bad-config-key"), SWEEP)


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the finished sweep without its snapshot: readers read its run files."""
    copy = copy_store(pristine, tmp_path)
    (copy / SWEEP / SNAPSHOT).unlink()
    return copy


def readdressed(store: Path, column: str, value: Any) -> Path:
    """The sweep's first run file rewritten with ``column`` holding ``value``, its run id
    the hash of its new address and put where that address's file goes (the old file
    removed): a file that is the run its place is for. Its path."""
    old = sorted((store / SWEEP / "runs").rglob("*.parquet"))[0]
    table = pq.read_table(old)
    row = table.to_pylist()[0] | {column: value}
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    row["run_id"] = address.run_id
    folder = store / SWEEP / "runs" / config_folder(SWEEP, row["config_key"])
    folder.mkdir(exist_ok=True)
    path = folder / f"{address.run_id}.parquet"
    pq.write_table(pa.Table.from_pylist([row], schema=table.schema), path)
    old.unlink()
    return path


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        (
            "config_key",
            FORMULA_KEY,
            f"column 'config_key' holds {FORMULA_KEY!r}, not a configuration key",
        ),
        # the key's pattern, but a layout of many ranks named without them
        (
            "config_key",
            "raid5/host_stripe/wb-ra",
            "column 'config_key' holds 'raid5/host_stripe/wb-ra', not a configuration key",
        ),
        (
            "cell_key",
            "randread/8k/qd1x16/zz",
            "column 'cell_key' holds 'randread/8k/qd1x16/zz', not a cell key",
        ),
        ("repetition", 0, "column 'repetition' holds 0, not a repetition (1 or more)"),
    ],
)
def test_a_run_whose_address_does_not_read_is_left_out_and_named(
    store: Path, tmp_path: Path, column: str, value: Any, said: str
) -> None:
    victim = readdressed(store, column, value)
    before = folder_contents(store)
    commands = [("recommend", SWEEP), ("sql", "SELECT count(*) AS n FROM runs", "--format", "csv")]
    if column == "config_key":  # what a report parses besides: every configuration's key
        commands.insert(1, ("report", SWEEP, "-o", str(tmp_path / "report.html")))
    for command in commands:
        code, out = on_store(store, *command)
        assert code == 0, (command, out)
        assert f"warning: {victim}: damaged, {said}" in out and "; left out" in out, (command, out)
    assert out.startswith(f"n {RUNS - 1} "), out
    assert folder_contents(store) == before


def test_a_compacted_part_holding_such_a_run_is_named_and_its_other_runs_read(
    store: Path, tmp_path: Path
) -> None:
    """Compacted with the runs of its folder, the run is left out of the part; the part's
    other runs are read."""
    readdressed(store, "cell_key", "zz")
    ParquetStore(store).compact(SWEEP)
    (store / SWEEP / SNAPSHOT).unlink()
    part = next(
        p
        for p in (store / SWEEP / "compacted").glob("*.parquet")
        if "zz" in pq.read_table(p, columns=["cell_key"]).column("cell_key").to_pylist()
    )
    before = folder_contents(store)
    code, out = on_store(store, "report", SWEEP, "-o", str(tmp_path / "report.html"))
    assert code == 0 and f"warning: {part}: damaged, column 'cell_key' holds 'zz'" in out, out
    code, out = on_store(store, "sql", "SELECT count(*) AS n FROM runs", "--format", "csv")
    assert code == 0 and out.startswith(f"n {RUNS - 1} "), out
    assert folder_contents(store) == before
