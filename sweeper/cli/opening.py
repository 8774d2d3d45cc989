"""How the commands open their work, each failure exit status 2 naming the problem: a stored
sweep from the results store (``open_sweep``), or a spec's sweeper with its platform, plan and
preflight (``open_sweeper``)."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from sweeper.cli.common import err, fail
from sweeper.errors import InputError, StoreError

if TYPE_CHECKING:
    from sweeper.operator_room import OperatorPrompt
    from sweeper.store import ResultsStore
    from sweeper.sweep import Progress, Sweeper

#: ``--worker``: a part of lock and state paths
WORKER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def open_sweep(
    store: Path, sweep: str | None, classes: list[str] | None = None, *, ranked: bool = False
) -> tuple[ResultsStore, dict[str, Any]]:
    """The results store and the named sweep's record (else the latest's), its classes
    replaced by ``classes`` when given; ``ranked``: exit 2 when it then names no class to
    rank by (a record whose spec says ``classes: []``)."""
    from sweeper.store import open_store

    results = open_store(store)
    record = with_classes(latest_sweep(results, sweep), classes)
    if ranked and not record["spec"]["classes"]:
        path = Path(results.root) / str(record["sweep_id"]) / "sweep.json"
        hint = "rank its runs by a class of your choice with --class NAME or FILE"
        fail(StoreError(f"{path}: damaged (its spec names no classes); {hint}"))
    return results, record


def latest_sweep(results: ResultsStore, sweep: str | None) -> dict[str, Any]:
    """The named sweep's record, else the latest; exit 2 when there is none or it is
    damaged (a bad name never becomes a path)."""
    try:
        if sweep is not None:  # '' is no name (never "the latest"): the store says so
            record = results.get_sweep(sweep)
            if record is None:
                fail(StoreError(f"no sweep {sweep!r} in {results.root}; {_there(results, sweep)}"))
            return _readable(results, record)
        sweeps = results.list_sweeps()
    except StoreError as exc:
        fail(exc)
    warn_damaged(results)
    if not sweeps:
        damaged = " (and damaged ones, above)" if getattr(results, "damaged", None) else ""
        hint = "run one with `raidsweep run SPEC`"
        fail(StoreError(f"no sweeps in {results.root}{damaged}; {hint}"))
    return _readable(results, sweeps[0])


def _readable(results: ResultsStore, record: dict[str, Any]) -> dict[str, Any]:
    """The record, if every field of it that is read (its spec as the spec's models take it,
    its hardware facts, its texts: ``recommender.data.check_record``) is one this raidsweep
    reads (exit 2 naming the record and the fields otherwise: a damaged record, or one a
    newer raidsweep wrote). Checked once: what ranks it then reads it on. Its class files
    are loaded where the classes are ranked."""
    from recommender.data import check_record, record_place

    try:
        return check_record(record, record_place(results, record))
    except InputError as exc:
        fail(exc)


def _there(results: ResultsStore, sweep: str) -> str:
    """What a mistyped sweep name or store should be told: the sweeps that are there (the
    nearest first), or that the store holds none."""
    import difflib

    names = [r["sweep_id"] for r in results.list_sweeps()]
    if not names:
        what = "it holds no sweep" if Path(results.root).is_dir() else "there is no folder there"
        return f"{what}: is --store (or RAIDSWEEP_STORE) the store you meant?"
    near = difflib.get_close_matches(sweep, names, n=3, cutoff=0.6)
    shown = list(dict.fromkeys([*near, *sorted(names)]))[:10]
    more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    return f"its sweeps: {', '.join(shown)}{more} (raidsweep status lists them)"


def warn_damaged(results: ResultsStore) -> None:
    """What the store's last reads found damaged and left out, each naming its file once
    (a command that read the runs twice found it twice)."""
    for line in dict.fromkeys(getattr(results, "damaged", None) or []):
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


def with_classes(record: dict[str, Any], classes: list[str] | None) -> dict[str, Any]:
    """The sweep record with its classes replaced by ``classes``, each checked against the
    cells the sweep measures (exit 2 naming the class file's line otherwise)."""
    if not classes:
        return record
    from recommender.classes import (
        check_against_sweep,
        class_path,
        shipped_class_names,
        unknown_class,
    )
    from recommender.data import CheckedRecord
    from sweeper.spec import Matrix

    cells = [c.key for c in Matrix.model_validate(record["spec"]["matrix"]).cells()]
    names = []
    known = shipped_class_names()
    given: dict[str, str] = {}  # class name -> the argument that gave it
    for i, name in enumerate(classes):
        if name in classes[:i]:  # its ranking would be shown twice
            fail(InputError("--class", [f"{name[:200]!r} is given twice"]))
        unknown = unknown_class(name, known)  # a name, not a file: the spec's rule
        if unknown is not None:
            fail(InputError("--class", [unknown]))
        # a file given on the command line is where the user says: from the working folder
        # (a spec's class files are found from the spec's folder)
        where = name if name in known or not Path(name).suffix else os.path.abspath(name)
        try:
            wclass = check_against_sweep(where, cells)
        except InputError as exc:
            fail(exc)
        if wclass.name in given:  # their rankings would mix under one name
            fail(
                InputError(
                    "--class",
                    [
                        f"{given[wclass.name][:200]!r} and {name[:200]!r} are both class "
                        f"{wclass.name!r}: give each class once"
                    ],
                )
            )
        given[wclass.name] = name
        # os.path.realpath: never an error (Path.resolve raises on a loop of links)
        names.append(name if name in known else os.path.realpath(class_path(where)))
    changed = record | {"spec": record["spec"] | {"classes": names}}
    # each class checked against the sweep above: the record stays as checked as it was
    return CheckedRecord(changed) if isinstance(record, CheckedRecord) else changed


def open_sweeper(
    spec_file: Path,
    store: Path,
    *,
    exclusive: bool = False,
    worker: str | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
    prompt: OperatorPrompt | None = None,
) -> Sweeper:
    """The spec's sweeper (platform, plan, preflight done), or exit 2 naming the problem;
    ``exclusive``: exit 2 before the preflight if another process runs it or its storage."""
    from sweeper.spec import load_spec
    from sweeper.store import open_store
    from sweeper.sweep import Sweeper

    try:
        spec, inventory = load_spec(spec_file)
    except (InputError, ValueError) as exc:
        fail(exc)
    # a part of lock and state paths: checked before any is looked at
    if worker is not None and not WORKER_NAME.fullmatch(worker):
        fail(
            ValueError(
                f"--worker: {worker!r} is not a name (a letter or digit first, then letters, "
                "digits, '.', '_', '-'; at most 64)"
            )
        )
    try:
        return Sweeper(
            spec,
            inventory,
            open_store(store),
            spec_path=spec_file,
            progress=progress,
            stop=stop,
            worker=worker,
            exclusive=exclusive,  # refused before the first play if another runs it
            prompt=prompt,
        )
    except (InputError, ValueError) as exc:
        fail(exc)


def warn_busy(sweeper: Sweeper) -> None:
    """For a command that changes nothing: who else runs this sweep or drives its storage."""
    for held in sweeper.busy():
        for problem in held.problems:
            err.print(
                f"[yellow]note:[/] {escape(held.source)} is {escape(problem)}",
                highlight=False,
                soft_wrap=True,
            )
