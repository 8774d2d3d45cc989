"""Steady state of a measured run, judged by the SNIA PTS rule over fio's interval logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sweeper.fio.steady import merge_job_logs, parse_interval_log, rounds, snia_steady_state


def judge_steady_state(folder: Path, stem: str, rule: Any, runtime_s: float) -> dict[str, Any]:
    """The SNIA PTS rule over the last ``rule.window`` rounds of fio's IOPS interval logs.

    The logs are read and removed; the rounds themselves are kept in the run's disclosure.
    """
    # One log per job; in client mode fio sends each host's back as ``….log.<host>``. Summed
    # over all of them, the rounds are the target's total IOPS.
    logs = sorted(folder.glob(f"{stem}_iops.*.log")) + sorted(folder.glob(f"{stem}_iops.*.log.*"))
    round_s = rule.round_s(runtime_s)
    record: dict[str, Any] = {
        "rule": "SNIA PTS",
        "round_s": round_s,
        "window": rule.window,
        "max_range_pct": rule.max_range_pct,
        "max_slope_pct": rule.max_slope_pct,
    }
    try:
        merged = merge_job_logs([parse_interval_log(p.read_text()) for p in logs])
        values = rounds(merged, round_s, None)
    except (OSError, ValueError) as exc:
        return record | {"steady": None, "reason": f"interval logs unusable: {exc}"}
    finally:
        for p in logs:
            p.unlink(missing_ok=True)
    record["rounds_iops"] = [round(v, 1) for v in values]
    if len(values) < rule.window:
        reason = f"{len(values)} round(s) of {round_s}s, fewer than the window of {rule.window}"
        return record | {"steady": None, "reason": reason}
    verdict = snia_steady_state(
        values[-rule.window :],
        rule.window,
        rule.max_range_pct / 100,
        rule.max_slope_pct / 100,
    )
    return record | {
        "steady": verdict.steady,
        "range_pct": verdict.range_pct,
        "slope_pct": verdict.slope_pct,
        "window_average_iops": verdict.average,
    }
