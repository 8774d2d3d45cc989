"""Reading the store for the recommender, the report and the app (no writes)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
from pydantic import BaseModel, ValidationError

from recommender.classes import WorkloadClass, load_class
from recommender.recommendations import ClassRecommendation, class_recommendations
from recommender.scoring import rank_classes
from recommender.tradeoffs import HardwareFacts, hardware_facts
from recommender.views.grids import HEATMAP_METRICS, heatmap_frame
from sweeper.errors import InputError
from sweeper.spec import Matrix, SweepSpec
from sweeper.store.records import RUN_SCHEMA, run_columns
from sweeper.yamlsource import format_loc

__all__ = [
    "HEATMAP_METRICS",
    "SCORING_COLUMNS",
    "CheckedRecord",
    "DamagedRecord",
    "check_record",
    "heatmap_frame",
    "load_rankings",
    "load_recommendations",
    "record_damage",
    "record_place",
    "record_problems",
    "scoring_frame",
    "sweep_classes",
]


#: the fields of a sweep's record beside its spec and hardware that are read, each a text
RECORD_TEXTS = ("description", "platform", "created_at", "raidsweep_version", "fingerprint")


def record_problems(record: dict[str, Any]) -> list[str]:
    """What of a sweep's record (``<store>/<sweep>/sweep.json``, a file anyone may edit) the
    recommender, the report, compare, accept and the app cannot read, each ``field: problem``:
    its spec as the spec's own models take it (``SweepSpec``: classes, matrix, hardware,
    prices, study, acceptance …), the hardware facts recorded with it (``HardwareFacts``)
    and its texts. None for a record raidsweep wrote; a newer raidsweep's unknown key is one."""
    # a spec that names no class (``classes: []``, which no spec file may say) is read: its
    # runs are shown with no score (``recommend --class`` ranks them)
    problems = _model_problems(
        SweepSpec, record.get("spec"), "spec.", {("too_short", ("classes",))}
    )
    if record.get("hardware") is not None:
        problems += _model_problems(HardwareFacts, record["hardware"], "hardware.")
    problems += [
        f"{key}: {type(record[key]).__name__} where raidsweep writes text"
        for key in RECORD_TEXTS
        if record.get(key) is not None and not isinstance(record[key], str)
    ]
    return problems


def _model_problems(
    model: type[BaseModel],
    value: Any,
    prefix: str,
    allowed: Collection[tuple[str, tuple[Any, ...]]] = (),
) -> list[str]:
    """``value``'s problems as ``model``, each ``<prefix><field>: problem``; but those of
    ``allowed`` (pydantic's error type and the field's place)."""
    try:
        model.model_validate(value)
    except ValidationError as exc:
        out = []
        for e in exc.errors(include_url=False):
            if (e["type"], e["loc"]) in allowed:
                continue
            # not the names pydantic gives its validators ('function-after[…]')
            loc = [p for p in e["loc"] if not (isinstance(p, str) and "[" in p and p.endswith("]"))]
            msg = e["msg"].removeprefix("Value error, ")
            msg = "unknown key" if e["type"] == "extra_forbidden" else msg
            # not "… or instance of HardwareFacts": a model's name says nothing in a file
            msg = "Input should be a mapping" if e["type"] == "model_type" else msg
            field = prefix + format_loc(loc) if loc else prefix.rstrip(".")
            out.append(f"{field}: {msg}")
        return out
    except RecursionError:
        return [f"{prefix.rstrip('.')}: nested too deeply to validate"]
    return []


class DamagedRecord(InputError):
    """A sweep's record that cannot be read as a whole (``check_record``), said on one line:
    ``<store>/<sweep>/sweep.json: damaged (field: problem; …)``, its first problems."""

    #: the problems named; the rest counted
    SHOWN = 3

    def render(self) -> str:
        shown = self.problems[: self.SHOWN]
        more = len(self.problems) - len(shown)
        rest = f"; and {more} more" if more else ""
        return f"{self.source}: damaged ({'; '.join(shown)}{rest})"


class CheckedRecord(dict[str, Any]):
    """A sweep's record that ``check_record`` found readable: what opened it (the commands'
    ``open_sweep``) and what ranks it (``sweep_classes``) read it on without a check of
    their own. A copy changed with ``|`` is a plain dict again, checked anew."""


def record_damage(record: dict[str, Any]) -> list[str]:
    """What of the record keeps it from being read: a spec naming no classes, its matrix
    (alone: everything else of the spec is checked against it, so its problems would be
    said again, less clearly), then every other field (``record_problems``)."""
    spec = record.get("spec")
    if isinstance(spec, dict):
        if "classes" not in spec:  # the models' default would stand in for them
            return ["its spec names no classes"]
        if "matrix" not in spec:
            return ["its spec's matrix: missing"]
        matrix = [p.removeprefix(": ") for p in _model_problems(Matrix, spec["matrix"], "")]
        if matrix:  # said as one list: "its spec's matrix: block_sizes[0]: …; runtime: …"
            return [f"its spec's matrix: {matrix[0]}", *matrix[1:]]
    return record_problems(record)


def check_record(record: dict[str, Any], where: str | None = None) -> CheckedRecord:
    """The record, checked once for every field the commands, the report and the app read
    (``record_damage``); DamagedRecord naming ``where`` (``record_place``) and the fields
    otherwise. A record checked before is passed on as it is."""
    if isinstance(record, CheckedRecord):
        return record
    problems = record_damage(record)
    if problems:
        raise DamagedRecord(where or record_place(None, record), problems)
    return CheckedRecord(record)


def record_place(store: Any, record: dict[str, Any]) -> str:
    """Where the sweep's record lies, to name it: ``<store>/<sweep>/sweep.json``."""
    name = str(record.get("sweep_id"))
    root = getattr(store, "root", None)
    return f"sweep {name}'s record" if root is None else str(Path(root) / name / "sweep.json")


def sweep_classes(record: dict[str, Any], where: str | None = None) -> list[WorkloadClass]:
    """The sweep's classes with the limits for its drives' media, each as it scores the
    sweep's matrix (a stand-in in place of a cell the matrix lacks). InputError naming the
    record (``where``, see ``record_place``) and its field when the record is damaged
    (``check_record``: once, a record the command opened was checked then) or a class of
    ``spec.classes`` does not load (its file edited, moved or removed)."""
    where = where or record_place(None, record)
    record = check_record(record, where)
    media = hardware_facts(record).get("media")
    cells = [c.key for c in Matrix.model_validate(record["spec"]["matrix"]).cells()]
    classes = []
    problems: list[str] = []
    for i, entry in enumerate(record["spec"]["classes"]):
        try:
            classes.append(load_class(entry).for_media(media).for_cells(cells))
        except InputError as exc:
            problems += [f"spec.classes[{i}]: {exc.source}: {p}" for p in exc.problems]
    if problems:
        raise InputError(where, problems)
    return classes


def load_rankings(store: Any, record: dict[str, Any]) -> tuple[pd.DataFrame, list[WorkloadClass]]:
    classes = sweep_classes(record, record_place(store, record))
    runs = store.runs(record["sweep_id"])
    return rank_classes(runs, classes), classes


#: the text columns the ranking reads; every other text column of a run (its ids, its
#: configuration and cell spelled out, tools, errors) and its timestamps are left behind
SCORED_TEXT = ("config_key", "cell_key", "telemetry_flag")
#: the store's columns that ``scoring_frame`` keeps: a read of these alone ranks the same
SCORING_COLUMNS = tuple(
    n
    for n in run_columns()
    if n in SCORED_TEXT
    or not (
        pa.types.is_string(RUN_SCHEMA.field(n).type)
        or pa.types.is_timestamp(RUN_SCHEMA.field(n).type)
    )
)


def scoring_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs as the ranking reads them: the same rankings as from the whole frame, for a
    fraction of the work at 100,000 runs. Every row a class selects is copied column by
    column, so only the text columns the ranking reads are kept (a store's are Arrow-backed,
    whose row selection costs most), and the cell key, which every class, limit and evidence
    rewrites (``/ws100`` is the whole volume), is categorical: the rewrite then runs once per
    distinct cell, not once per run, and yields plain strings as before."""
    keep = [
        c
        for c in runs.columns
        if c in SCORED_TEXT
        or not (
            isinstance(runs[c].dtype, pd.StringDtype)
            or pd.api.types.is_datetime64_any_dtype(runs[c])
        )
    ]
    out = runs[keep]
    if "cell_key" in out:
        out = out.assign(cell_key=out["cell_key"].astype("category"))
    return out


def load_recommendations(
    store: Any, record: dict[str, Any], runs: pd.DataFrame | None = None
) -> list[ClassRecommendation]:
    """Per class, the decision with its trade-offs and evidence (see recommendations.py);
    without ``runs``, the store's good runs are read, only their SCORING_COLUMNS."""
    if runs is None:
        runs = store.runs(record["sweep_id"], columns=SCORING_COLUMNS)
    classes = sweep_classes(record, record_place(store, record))
    return class_recommendations(
        scoring_frame(runs),
        classes,
        hardware_facts(record),
        (record.get("spec") or {}).get("prices"),
    )
