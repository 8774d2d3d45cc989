"""Whether a stored run's address reads as raidsweep writes it: its configuration key and its
cell key each one that parses and is spelt as raidsweep spells it, its repetition 1 or more.
Readers parse them (a configuration key into its configuration, a cell key into its cell), so
a run whose address does not read so is left out as damaged, its file named, and never
parsed."""

from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from sweeper.configuration import Configuration
from sweeper.workload import WorkloadCell

#: the parts of a run's address that readers parse
PARSED = ("config_key", "cell_key", "repetition")
#: what a read of runs gives of each run besides the columns wanted, for ``badly_addressed``:
#: its file, and the parts of its address (by the names here, no column of the runs table's)
FILE = "__file"
CHECKED = {FILE: "filename"} | {f"__{n}": n for n in PARSED}
#: what each parsed part must be, as a warning says it
_WHAT = {
    "config_key": "a configuration key as raidsweep writes it (e.g. raid10/single_rank/wb-ra)",
    "cell_key": "a cell key as raidsweep writes it (e.g. randread/8k/qd1x16)",
    "repetition": "a repetition (1 or more)",
}
#: how much of a value a warning shows
_SHOWN = 80


@functools.lru_cache(maxsize=65536)
def _config_key_read(key: str) -> bool:
    try:
        return Configuration.from_key(key).key == key
    except (ValueError, ArithmeticError):
        return False


@functools.lru_cache(maxsize=65536)
def _cell_key_read(key: str) -> bool:
    try:
        return WorkloadCell.parse(key).key == key
    except (ValueError, ArithmeticError):
        return False


def _repetition_read(repetition: int) -> bool:
    return repetition >= 1


_READ = {"config_key": _config_key_read, "cell_key": _cell_key_read, "repetition": _repetition_read}


def _shown(value: Any) -> str:
    """``value`` as a warning shows it: quoted, its control characters escaped, cut short."""
    if isinstance(value, str) and len(value) > _SHOWN:
        return repr(value[:_SHOWN]) + "…"
    return repr(value)


def address_problem(row: dict[str, Any]) -> str | None:
    """Why the stored run ``row`` (its ``PARSED`` parts, none null) is not read, or None."""
    for column in PARSED:
        if not _READ[column](row[column]):
            return f"damaged, column {column!r} holds {_shown(row[column])}, not {_WHAT[column]}"
    return None


def badly_addressed(
    table: pa.Table, checked: pa.ChunkedArray
) -> tuple[pa.Array | pa.ChunkedArray, dict[str, str]]:
    """Which rows of ``table`` (a read of runs with the ``CHECKED`` columns) among those of
    ``checked`` (true where the row is the run its place is for, so its address has no null)
    have an address that does not read as raidsweep writes it; and each of their files with
    why (its first such row's problem). Each distinct value is judged once."""
    bad = pa.array([False] * table.num_rows, pa.bool_())
    for column in PARSED:
        values = table[f"__{column}"]
        unread = [v for v in pc.unique(values.drop_null()).to_pylist() if not _READ[column](v)]
        if unread:
            bad = pc.or_(bad, pc.fill_null(pc.is_in(values, pa.array(unread, values.type)), False))
    bad = pc.and_(bad, pc.fill_null(checked, False))
    if not pc.any(bad).as_py():
        return bad, {}
    rows = table.select(list(CHECKED)).filter(bad).to_pylist()
    said: dict[str, str] = {}
    for row in rows:
        problem = address_problem({n: row[f"__{n}"] for n in PARSED})
        if problem is not None:
            said.setdefault(row[FILE], problem)
    return bad, said
