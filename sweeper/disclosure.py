"""Full disclosure of a sweep or a run, as SPC-1 asks and the studies we follow lacked.

Load hosts, tool and version, the exact job files, ramp and measurement interval, steady
state, the storage configuration with its facts as Ansible gathered them, and timings.
Built from the results store alone, so it can be printed long after the sweep.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import yaml

from recommender.repeatability import cell_statistics, repeatability_summary
from sweeper.reproducibility import checklist
from sweeper.units import format_duration


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _plain(value: Any) -> Any:
    """Values YAML and JSON can print: timestamps as ISO text, NaN as None."""
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, float) and value != value:
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def sweep_disclosure(store: Any, record: dict[str, Any]) -> dict[str, Any]:
    """What a reader needs to judge and repeat the sweep."""
    sweep_id = record["sweep_id"]
    attempts = store.runs(sweep_id, include_failed=True)
    configs = store.configurations(sweep_id)
    ok = attempts[attempts["status"] == "ok"] if len(attempts) else attempts
    spec = record.get("spec", {})
    matrix = spec.get("matrix", {})
    first: dict[str, Any] = {}
    if len(ok):
        first = store.run_detail(ok["run_id"].iloc[0]) or {}
    run_disc = _json(first.get("disclosure")) or {}
    job_files = {}
    for cell, group in ok.groupby("cell_key", sort=True) if len(ok) else []:
        detail = store.run_detail(group["run_id"].iloc[0]) or {}
        job_files[cell] = detail.get("job_file")
    configurations = []
    for c in configs.to_dict("records"):
        configurations.append(
            {
                "configuration": c["config_key"],
                "attempt": _plain(c["attempt"]),
                "status": c["status"],
                "changed_tasks": _plain(c["changed_tasks"]),
                "failed_task": _plain(c["failed_task"]),
                "error": _plain(c["error"]),
                "reconfiguration_array_time": format_duration(float(c["reconfig_array_time_s"])),
                "started_at": _plain(c["started_at"]),
                "finished_at": _plain(c["finished_at"]),
                "facts": _json(c["facts"]),
            }
        )
    out = {
        "sweep": sweep_id,
        "description": record.get("description", ""),
        "platform": record.get("platform"),
        "created_at": record.get("created_at"),
        "raidsweep_version": record.get("raidsweep_version"),
        "load_hosts": run_disc.get("load_hosts", []),
        "tool": {"name": first.get("tool"), "version": first.get("tool_version")},
        "versions": run_disc.get("versions", {}),
        "measurement": {
            "engine": matrix.get("engine"),
            "direct_io": True,
            "ramp": format_duration(float(matrix.get("ramp", 0))),
            "measurement_interval": format_duration(float(matrix.get("runtime", 0))),
            "repetitions": matrix.get("repetitions"),
            "working_set_bytes": matrix.get("working_set"),
            "fill_before_reads": run_disc.get("fill"),
        },
        "runs": {
            "stored": int(len(ok)),
            "failed_attempts": int(len(attempts) - len(ok)),
            "first_started": _plain(attempts["started_at"].min()) if len(attempts) else None,
            "last_finished": _plain(attempts["finished_at"].max()) if len(attempts) else None,
        },
        "repeatability": repeatability_summary(cell_statistics(ok)) if len(ok) else {"cells": 0},
        "configurations": configurations,
        "job_files": job_files,
        "spec": spec,
    }
    # last: the checklist reads the record above
    return out | {
        "environment": spec.get("environment") or {},
        "reproducibility": checklist(out),
    }


def run_disclosure(
    store: Any, run_id: str, *, fio_output: bool = False, attempt: int | None = None
) -> dict[str, Any] | None:
    """Everything stored about one run (fio's JSON only when asked: it is long): its good
    record, else its latest attempt; with ``attempt``, its Nth (``ResultsStore.run_detail``)."""
    detail = store.run_detail(run_id, attempt=attempt)
    if detail is None:
        return None
    out = {k: _plain(v) for k, v in detail.items() if k not in ("disclosure", "fio_json")}
    out["disclosure"] = _json(detail.get("disclosure"))
    if fio_output:
        out["fio_json"] = _json(detail.get("fio_json"))
    return out


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # Job files and errors print as they are, one line per line.
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def to_yaml(doc: dict[str, Any]) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
