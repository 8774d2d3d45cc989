"""The operator's side of a manual sweep: what to build next is posted in the sweep's
folder, and the answer (the LUN as the host sees it) comes back from the interactive prompt
of ``raidsweep run``, from ``raidsweep ready`` anywhere, or from the app.

Files in ``<sweep>/array/operator/`` (``<sweep>/array-W/operator/`` for ``--worker W``):
``waiting.json`` (the configuration waited for, its place in the sweep, the instructions, the
answers refused so far) and ``answer.json`` (the operator's answer, until the sweep takes it;
each taken answer is kept under ``answers/``). Both are written whole or not at all (atomic
rename), so a crash never leaves half of one.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import TypeAdapter, ValidationError

from sweeper.errors import StoreError
from sweeper.store.files import atomic_write_bytes, read_record
from sweeper.untrusted import strings, text_control_problem

WAITING = "waiting.json"
ANSWER = "answer.json"
HISTORY = "answers"
#: the largest operator's file read (one is well under 4 KiB)
_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Waiting:
    """The configuration a manual sweep waits for the operator to build."""

    config_key: str
    #: its place among the sweep's configurations (1-based) and how many there are
    position: int
    total: int
    instructions: list[str]
    since: str
    #: each answer refused for this configuration so far, with why
    refused: list[str] = field(default_factory=list)

    @property
    def headline(self) -> str:
        return (
            f"waiting for the operator: build {self.config_key} ({self.position} of {self.total})"
        )


@dataclass(frozen=True)
class Answer:
    """The operator's answer: the configuration is built, and fio may write to ``target``."""

    config_key: str
    target: str
    #: the operator's own words (what was built, the LUN's name on the array, a ticket)
    note: str = ""
    #: where it came from: prompt, ready (the command) or app
    via: str = "ready"
    answered_at: str = ""


class OperatorPrompt(Protocol):
    """The terminal the sweep runs in, when a person sits at it."""

    def show(self, lines: list[str]) -> None:
        """Print what to build (and why an answer was refused)."""

    def line(self, timeout_s: float) -> str | None:
        """A line the operator typed within ``timeout_s``, else None."""


def room(state_dir: Path) -> Path:
    """The folder of the operator's files for a platform state folder."""
    return state_dir / "operator"


def waiting_rooms(sweep_dir: Path) -> list[tuple[Path, Waiting]]:
    """Each operator's room of the sweep that waits, with what it waits for: the sweep's own
    (``array/``) and each worker's (``array-W/``: with ``--worker W`` every worker drives its
    own array, so each may wait for its own configuration)."""
    states = [sweep_dir / "array", *sorted(sweep_dir.glob("array-*"))]
    found = []
    for state in states:
        waiting = waiting_in(room(state))
        if waiting is not None:
            found.append((room(state), waiting))
    return found


def _write(path: Path, doc: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, json.dumps(doc, indent=2).encode(), replace=True)


def _read(path: Path) -> dict[str, object] | None:
    """The operator's file at ``path`` (a JSON mapping), None where there is none or it is not
    one: read within bounds (a FIFO, or /dev/zero behind a link, in its place is refused
    unread: ``status`` hung on one), none of its texts holding a control character (they
    are printed on the operator's terminal)."""
    try:
        doc = read_record(path, max_bytes=_MAX_BYTES, kind="operator's file")
    except StoreError:
        return None
    if not isinstance(doc, dict) or any(text_control_problem(t) for _, t in strings(doc)):
        return None
    return doc


#: what a posted Waiting must be read back as (its fields of their types)
_WAITING = TypeAdapter(Waiting)


def post(folder: Path, waiting: Waiting) -> None:
    _write(folder / WAITING, asdict(waiting))


def waiting_in(folder: Path) -> Waiting | None:
    """What the sweep waits for, if it waits (also after it was stopped while waiting)."""
    doc = _read(folder / WAITING)
    if doc is None:
        return None
    try:  # each value of its type: the headline and the app show them
        return _WAITING.validate_python(doc)
    except ValidationError:
        return None


def clear(folder: Path) -> None:
    (folder / WAITING).unlink(missing_ok=True)


def give(folder: Path, answer: Answer) -> None:
    """Leave the answer for the sweep (a newer answer replaces one not yet taken)."""
    stamped = answer.answered_at or time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _write(folder / ANSWER, asdict(answer) | {"answered_at": stamped})


def take(folder: Path) -> Answer | None:
    """The answer left for the sweep, moved into the history; None if there is none (or
    it is not an answer: then it is moved aside too, and refused by the caller's silence)."""
    path = folder / ANSWER
    doc = _read(path)
    if doc is None:
        return None
    history = folder / HISTORY
    history.mkdir(parents=True, exist_ok=True)
    kept = history / f"{len(list(history.iterdir())) + 1:04d}.json"
    path.replace(kept)
    try:
        return Answer(**doc)  # type: ignore[arg-type]
    except TypeError:
        return None
