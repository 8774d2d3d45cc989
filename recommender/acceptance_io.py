"""A sweep's acceptance read from the store, for ``raidsweep accept``, the report and the app:
the gates (the sweep's own, or given), its runs and classes, the baseline sweep's runs (from
the same store or another), the verdict, and the verdict as a JSON document and as the
report's section."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from pydantic import ValidationError

from recommender.acceptance import (
    EXIT_STATUS,
    AcceptanceError,
    SweepRuns,
    Verdict,
    judge,
    measured_text,
)
from recommender.data import sweep_classes
from sweeper.errors import InputError, StoreError
from sweeper.spec.acceptance import Acceptance, matrix_problems
from sweeper.status import provisional
from sweeper.untrusted import markdown_html_text

#: the JSON document's schema name (fields are only added within a version)
ACCEPT_SCHEMA = "raidsweep.accept/1"


def sweep_acceptance(record: dict[str, Any]) -> Acceptance | None:
    """The acceptance block of the spec the sweep ran with (None: it has none)."""
    block = (record.get("spec") or {}).get("acceptance")
    if not block:
        return None
    try:
        return Acceptance.model_validate(block)
    except ValidationError as exc:
        problems = [f"acceptance.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise AcceptanceError(f"sweep {record.get('sweep_id')}", problems) from None


def verdict_for(
    store: Any, record: dict[str, Any], acceptance: Acceptance, baseline_store: Any = None
) -> Verdict:
    """The verdict of ``acceptance`` on the sweep of ``record``; the baseline sweep is read
    from ``baseline_store`` (default: ``store``). Raises AcceptanceError naming the place."""
    name = str(record["sweep_id"])
    runs = store.runs(name)
    if runs.empty:
        raise AcceptanceError("acceptance", [f"sweep {name} has no runs to judge yet"])
    cells = sorted(set(runs["cell_key"]))
    problems = [f"acceptance.{p}" for p in matrix_problems(acceptance, cells)]
    if problems:
        raise AcceptanceError("acceptance", problems)
    baseline = None
    if acceptance.baseline is not None:
        other = baseline_store if baseline_store is not None else store
        base_name = acceptance.baseline.sweep
        try:
            found = other.get_sweep(base_name)
        except StoreError as exc:
            raise AcceptanceError("acceptance", [f"acceptance.baseline.sweep: {exc}"]) from None
        if found is None:
            raise AcceptanceError(
                "acceptance",
                [
                    f"acceptance.baseline.sweep: no sweep {base_name!r} in {other.root} "
                    "(--baseline-store names the store that holds it)"
                ],
            )
        baseline = SweepRuns(base_name, other.runs(base_name))
        if baseline.runs.empty:
            raise AcceptanceError(
                "acceptance", [f"acceptance.baseline.sweep: sweep {base_name} has no runs"]
            )
    return judge(acceptance, SweepRuns(name, runs), sweep_classes(record), baseline)


def _number(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


def check_rows(verdict: Verdict) -> list[dict[str, Any]]:
    """Every check as a row (the table of the CLI, the report and the app)."""
    return [
        {
            "gate": c.gate,
            "target": c.target,
            "configuration": c.configuration,
            "criterion": c.criterion,
            "required": c.required,
            "measured": measured_text(c),
            "verdict": c.verdict,
            "note": c.note,
        }
        for c in verdict.checks
    ]


def accept_document(verdict: Verdict, note: str | None = None) -> dict[str, Any]:
    """``raidsweep accept --json``: the verdict, its counts and every check with its figures
    (the mean, or the ratio to the baseline, with the interval's bounds; null where none)."""
    return {
        "schema": ACCEPT_SCHEMA,
        "sweep": verdict.sweep,
        "baseline": verdict.baseline,
        "confidence": verdict.confidence,
        "provisional": note,
        "verdict": verdict.verdict,
        "exit_status": EXIT_STATUS[verdict.verdict],
        "counts": verdict.counts,
        "checks": [
            {
                "gate": c.gate,
                "target": c.target,
                "configuration": c.configuration,
                "criterion": c.criterion,
                "required": c.required,
                "relative": c.relative,
                "unit": "ratio to baseline" if c.relative else c.unit,
                "value": _number(c.measured),
                "lo": _number(c.lo),
                "hi": _number(c.hi),
                "repetitions": c.n,
                "verdict": c.verdict,
                "note": c.note or None,
            }
            for c in verdict.checks
        ],
    }


def report_section(store: Any, record: dict[str, Any]) -> dict[str, Any] | None:
    """The report's acceptance section: the verdict of the sweep's own gates, or what keeps
    them from being judged; None when the spec has no acceptance block."""
    try:
        acceptance = sweep_acceptance(record)
        if acceptance is None:
            return None
        verdict = verdict_for(store, record, acceptance)
    except InputError as exc:
        return {"problems": exc.problems, "verdict": None}
    return section_of(verdict, provisional(store, verdict.sweep))


def section_of(verdict: Verdict, note: str | None = None) -> dict[str, Any]:
    """The report's acceptance section of ``verdict`` (``note``: why it is provisional)."""
    return {
        "problems": [],
        "verdict": verdict.verdict,
        "counts": verdict.counts,
        "confidence": verdict.confidence,
        "baseline": verdict.baseline,
        "provisional": note,
        "rows": check_rows(verdict),
    }


def markdown_lines(section: dict[str, Any] | None) -> list[str]:
    """The acceptance section of the Markdown report (none without an acceptance block)."""
    if not section:
        return []
    text = markdown_html_text  # gate targets and keys are the user's text: never markup
    out = ["## Acceptance", ""]
    if section["problems"]:
        out += ["**The acceptance gates could not be judged:**", ""]
        return out + [f"- {text(p)}" for p in section["problems"]] + [""]
    counts = section["counts"]
    base = section["baseline"]
    against = f"; relative gates against sweep {text(base)}" if base else ""
    out += [
        f"**Verdict: {section['verdict'].upper()}** — {counts['pass']} check(s) passed, "
        f"{counts['fail']} failed, {counts['undecided']} undecided"
        f"{against}.",
        "",
    ]
    if section["provisional"]:
        out += [f"**{text(section['provisional'])}**", ""]
    rows = pd.DataFrame(section["rows"]).drop(columns="note").map(lambda v: text(str(v)))
    return out + [rows.to_markdown(index=False), ""]
