"""Warm start (``study.warm_start``): a previous sweep's best configurations, per class of
this sweep, measured first.

The previous sweep is read from its own store (another array of the same family, or the
simulated rehearsal of this one) and ranked with this sweep's classes; the first ``top`` of
each class that lie in this sweep's config space go to the front of the queue. The scores
themselves are not carried over (another array answers differently): the evidence that
decides this sweep is measured on this array.
"""

from __future__ import annotations

from pathlib import Path

from recommender.classes import WorkloadClass
from recommender.scoring import rank_classes
from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.errors import InputError, SpecError, StoreError
from sweeper.spec import SweepSpec
from sweeper.store import ParquetStore

PLACE = "study.warm_start"


def _refused(spec: SweepSpec, source: str, field: str | None, problem: str) -> InputError:
    """The problem at ``study.warm_start[.field]``: led by the spec file's line where the spec
    was read from one (found only once the store is read, after the spec has loaded)."""
    place = f"{PLACE}.{field}" if field else PLACE
    if spec.source is None:
        return InputError(source, [f"{place}: {problem}"])
    line = spec.source.line_of(place.split("."))
    return SpecError(spec.source.name, [f"line {line}: {place}: {problem}"])


def warm_store(spec: SweepSpec, spec_path: Path | None) -> Path:
    """The previous sweep's store folder (relative to the spec's folder)."""
    assert spec.study.warm_start is not None
    path = Path(spec.study.warm_start.store).expanduser()
    if not path.is_absolute() and spec_path is not None:
        path = spec_path.parent / path
    return path


def warm_configurations(
    spec: SweepSpec, classes: list[WorkloadClass], spec_path: Path | None = None
) -> list[Configuration]:
    """The previous sweep's best configurations per class that lie in ``spec``'s space,
    best first, each once. InputError naming the place when the store, the sweep or its runs
    are missing or none of its configurations lies in the space (a spec read from a file: its
    line)."""
    warm = spec.study.warm_start
    if warm is None:
        return []
    source = str(spec_path or spec.name)
    if spec.study.mode != "optimize":
        grid = "a warm start needs mode: optimize (a grid measures all)"
        raise _refused(spec, source, None, grid)
    root = warm_store(spec, spec_path)
    if not root.is_dir():
        raise _refused(spec, source, "store", f"no store at {root}")
    store = ParquetStore(root)
    try:
        record = store.get_sweep(warm.sweep)
        runs = store.runs(warm.sweep) if record is not None else None
    except StoreError as exc:
        raise _refused(spec, source, None, str(exc)) from None
    if record is None or runs is None:
        raise _refused(spec, source, "sweep", f"no sweep {warm.sweep!r} in {root}")
    if runs.empty:
        raise _refused(spec, source, "sweep", f"sweep {warm.sweep!r} in {root} has no runs")
    space = {c.key: c for c in enumerate_configurations(spec.config_space)}
    ranked = rank_classes(runs, classes)
    ranked = ranked[ranked["config_key"].isin(list(space))]
    if ranked.empty:
        outside = f"no configuration of sweep {warm.sweep!r} lies in this config space"
        raise _refused(spec, source, "sweep", outside)
    picks: list[str] = []
    for _, part in ranked.groupby("class", sort=False):
        picks += [str(k) for k in part["config_key"].head(warm.top)]
    return [space[k] for k in dict.fromkeys(picks)]
