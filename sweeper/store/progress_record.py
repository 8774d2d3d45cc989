"""What a sweeper's progress record must be to be read: the shape ``sweep.progress`` writes
(``progress_record``), each value of its type.

The record decides what ``status``, ``recommend``, the report and the app say of a sweep
(running, finished, how much is left) and its texts reach the terminal, so a record that is
not one (a list, a state raidsweep never writes, a count that is text, a pid that is no
process's, a text holding ESC) is damaged: it is named and left out, never trusted. Values are
strict, as in a spec (no ``true`` for a number, no NaN or infinity); keys this raidsweep does
not know (a newer one's) are not read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from sweeper.untrusted import control_problem
from sweeper.yamlsource import format_loc

#: the longest text read from a record (a class name, a configuration's key, a time)
_LONGEST_TEXT = 1000
#: the largest pid Linux gives (a larger one is no process: ``os.kill`` would overflow)
_PID_MAX = 2**22


def _printable(text: str) -> str:
    """``text``, if it holds no control character (ESC, BEL, CSI; a line break neither: each
    of these texts is a part of one line on a terminal)."""
    problem = control_problem(text)  # its characters include every free text's
    if problem is not None:
        raise ValueError(problem)
    return text


Text = Annotated[str, Field(max_length=_LONGEST_TEXT), AfterValidator(_printable)]
Count = Annotated[int, Field(ge=0)]
NonNegative = Annotated[float, Field(ge=0)]
Probability = Annotated[float, Field(ge=0, le=1)]


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="ignore", frozen=True)


class ClassEvidence(_Record):
    """``sweep.stopping.ClassEvidence`` as kept."""

    name: Text
    pick: Text | None
    p_beaten: Probability
    confidence: Probability
    confident: bool
    fitted: Count
    threat: Text | None = None
    p_threat: Probability = 0.0
    unsure: Text | None = None
    predicted_best: Text | None = None


class Evidence(_Record):
    """``sweep.stopping.StopDecision`` as kept (``record``)."""

    stop: bool
    within_pct: NonNegative
    confidence: Probability
    measured: Count
    space: Count
    classes: list[ClassEvidence]


class ProgressRecord(_Record):
    """``sweep.progress.progress_record``: the state is required, the rest is read where it
    is (what is missing reads as unknown)."""

    #: what a sweeper writes (``not started`` is what a reader says of a sweep without one)
    state: Literal["running", "finished", "interrupted"]
    pid: Annotated[int, Field(ge=1, le=_PID_MAX)] | None = None
    updated_at: Text | None = None
    configurations_total: Count | None = None
    runs_total: Count | None = None
    array_s_total: NonNegative | None = None
    array_s_used: NonNegative | None = None
    configurations_failed: list[Text] | None = None
    evidence: Evidence | None = None


def checked_progress(record: Any) -> dict[str, Any]:
    """The progress record ``record`` (a JSON document) with the values this raidsweep reads,
    as written; ValueError saying what is wrong with it (never quoting it: it may hold
    anything) when it is not one."""
    if not isinstance(record, dict):
        raise ValueError("not a progress record")
    try:
        return ProgressRecord.model_validate(record).model_dump(exclude_unset=True)
    except ValidationError as exc:
        raise ValueError(_first_problem(exc)) from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


def _first_problem(exc: ValidationError) -> str:
    """``evidence.classes[0].name: Input should be a valid string (and 2 more problems)``."""
    problems = exc.errors(include_url=False, include_input=False, include_context=False)
    first = problems[0]
    where = format_loc(first["loc"]) if first["loc"] else "the record"
    message = first["msg"].removeprefix("Value error, ")
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{where}: {message}{more}"
