"""Where a sweep's Parquet files lie: each configuration's run files in a folder of its own
(``<sweep>/runs/<folder>/<run id>[.failed-<stamp>].parquet``), its compacted parts
(``<sweep>/compacted/<folder>.<ns>.parquet``) and the configuration records
(``<sweep>/configurations/``); their listing in the order readers take them, what changes
when any is written, and whose place a file is."""

from __future__ import annotations

import re
from pathlib import Path

from sweeper.store.base import LeftOut
from sweeper.store.files import parquet_names, subfolders
from sweeper.store.one_row import COMPACTED
from sweeper.store.records import RunAddress, config_folder
from sweeper.vocabulary import RUN_ID_RE

RUNS = "runs"
CONFIGURATIONS = "configurations"
#: a run's own file: its good run, or a failed attempt (``.failed-<stamp>``)
RUN_FILE = re.compile(rf"{RUN_ID_RE.pattern}(\.failed-[0-9T]+)?\.parquet")


def config_dir(root: Path, sweep_id: str, config_key: str) -> Path:
    """The folder of the configuration's run files."""
    # One folder per configuration: reading one configuration's runs opens only its parts.
    return root / sweep_id / RUNS / config_folder(sweep_id, config_key)


def run_path(root: Path, address: RunAddress) -> Path:
    """The place of the good run at ``address``."""
    return config_dir(root, address.sweep_id, address.config_key) / f"{address.run_id}.parquet"


def parts(
    root: Path, sweep_id: str, config_dir: str | None = None, skipped: list[str] | None = None
) -> list[Path]:
    """The compacted parts of a sweep, or of one configuration folder (what keeps them
    from being listed said in ``skipped``)."""
    folder = root / sweep_id / COMPACTED
    return [
        folder / n
        for n in sorted(parquet_names(folder, skipped))
        if config_dir is None or n.startswith(f"{config_dir}.")
    ]


def run_files(
    root: Path, sweep_id: str, config_key: str | None = None, skipped: list[str] | None = None
) -> list[Path]:
    """Every run file, then every part, in that order (see ``parquet``'s docstring): of the
    sweep, or of the configuration ``config_key``; what cannot be listed said in
    ``skipped``."""
    runs = root / sweep_id / RUNS
    if config_key:
        name: str | None = config_folder(sweep_id, config_key)
        folders = [runs / name]
    else:
        name = None
        found = subfolders(runs, skipped, only_folders=True)
        folders = [runs / d for d in sorted(found)]
    files = [f / n for f in folders for n in sorted(parquet_names(f, skipped))]
    return files + parts(root, sweep_id, name, skipped)


def table_files(
    root: Path, sweep_id: str, table: str, skipped: list[str] | None = None
) -> list[Path]:
    """The files of a sweep's table kept in one folder (``configurations``)."""
    folder = root / sweep_id / table
    return [folder / n for n in sorted(parquet_names(folder, skipped))]


def loose_names(root: Path, sweep_id: str) -> list[str]:
    """The names of the sweep's run files not yet compacted, folder by folder."""
    runs = root / sweep_id / RUNS
    return [n for d in subfolders(runs) for n in parquet_names(runs / d)]


def version(root: Path, sweep_id: str) -> tuple[int, int, int, int]:
    """Changes whenever a run or a configuration record is stored or compacted: the count
    of run files, a sum over their names (a compaction removes files that later writes
    could bring back to the same count) and the count of parts and configurations."""
    names = loose_names(root, sweep_id)
    return (
        len(names),
        sum(map(hash, names)) & 0xFFFFFFFFFFFF,
        len(parts(root, sweep_id)),
        len(parquet_names(root / sweep_id / CONFIGURATIONS)),
    )


def left_out(path: Path, problem: str) -> LeftOut:
    """A file a read of runs left out, with whose place it is: a compacted part of a
    configuration (``<sweep>/compacted/<folder>.<ns>.parquet``), or a file of its folder
    (``<sweep>/runs/<folder>/<run id>[.failed-<stamp>].parquet``)."""
    if path.parent.name == COMPACTED:
        return LeftOut(path, problem, path.name.split(".", 1)[0], part=True)
    named = RUN_FILE.fullmatch(path.name)
    run_id = path.name.split(".", 1)[0] if named and named.group(1) is None else None
    return LeftOut(path, problem, path.parent.name, run_id)
