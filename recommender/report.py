"""The commissioning report: one self-contained HTML file (charts inlined as SVG)."""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
import vl_convert as vlc

from recommender.charts import curve_chart, heatmap
from recommender.curves import sweep_curves
from recommender.data import HEATMAP_METRICS, heatmap_frame, sweep_classes
from recommender.drift import drift_table
from recommender.importance import class_importances
from recommender.pareto import pareto_set
from recommender.scoring import FORMULA, rank_classes
from sweeper.disclosure import sweep_disclosure, to_yaml
from sweeper.status import array_seconds
from sweeper.store.parquet import atomic_write_bytes
from sweeper.units import format_duration, format_size

TEMPLATES = Path(__file__).parent / "templates"


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def _svg(chart: Any) -> str:
    return vlc.vegalite_to_svg(chart.to_dict())


def build_context(store: Any, record: dict[str, Any]) -> dict[str, Any]:
    sweep_id = record["sweep_id"]
    attempts = store.runs(sweep_id, include_failed=True)  # one read serves every figure below
    runs = attempts[attempts["status"] == "ok"]
    configs = store.configurations(sweep_id)
    classes = sweep_classes(record)
    ranked = rank_classes(runs, classes)
    spec = record["spec"]
    sections = []
    for wclass in classes:
        part = ranked[ranked["class"] == wclass.name]
        best = part.iloc[0] if len(part) else None
        runner_up = part.iloc[1] if len(part) > 1 else None
        sections.append(
            {
                "name": wclass.name,
                "description": wclass.description,
                "metric": wclass.metric,
                "cells": [(c.cell, c.weight) for c in wclass.cells],
                "limits": [f"{lim.metric} ≤ {lim.max}" for lim in wclass.limits],
                "rows": part.to_dict("records"),
                "best": best.to_dict() if best is not None else None,
                "runner_up": runner_up.to_dict() if runner_up is not None else None,
                "missing": part["cells_missing"].iloc[0] if len(part) else "",
            }
        )
    importance = class_importances(ranked)
    for section in sections:
        mine = importance[importance["class"] == section["name"]]
        section["importance"] = mine.sort_values("importance", ascending=False).to_dict("records")
    heatmaps = []
    if len(runs):
        for pattern in sorted(runs["pattern"].unique()):
            sel = runs[runs["pattern"] == pattern]
            qd = sorted(
                set("qd" + sel["iodepth"].astype(str) + "x" + sel["numjobs"].astype(str)),
                key=lambda s: [int(x) for x in s[2:].split("x")],
            )
            ranges = sorted(int(v) for v in sel["active_pct"].dropna().unique()) or [None]
            for conc in qd:
                for ws in ranges:
                    for label in ("IOPS", "p99 read latency (ms)", "p99 write latency (ms)"):
                        metric = HEATMAP_METRICS[label]
                        frame = heatmap_frame(runs, pattern, metric, conc, ws)
                        frame = frame.dropna(subset=["value"])
                        if frame.empty:
                            continue
                        better = metric in ("iops", "mbps")
                        chart = heatmap(frame, label, higher_is_better=better)
                        where = f" · ws{ws}" if ws is not None else ""
                        title = f"{pattern} · {conc}{where} · {label}"
                        heatmaps.append({"title": title, "svg": _svg(chart)})
    curves = _curves(runs, spec["matrix"])
    host = {}
    tools = {}
    if len(runs):
        sample = store.run_detail(runs["run_id"].iloc[0]) or {}
        disclosure = json.loads(sample.get("disclosure") or "{}")
        host = (disclosure.get("load_hosts") or [{}])[0]
        tools = disclosure.get("versions", {}) | {
            "workload tool": f"{sample.get('tool')} ({sample.get('tool_version')})"
        }
    matrix = spec["matrix"]
    disclosure = sweep_disclosure(store, record)
    return {
        "sweep": record,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "formula": FORMULA,
        "sections": sections,
        "heatmaps": heatmaps,
        "curves": curves,
        "pareto": pareto_set(ranked).reset_index().to_dict("records"),
        "drift": _drift(runs, spec["matrix"].get("drift")),
        "n_runs": len(runs),
        "n_failed": len(attempts) - len(runs),
        "n_configs": runs["config_key"].nunique() if len(runs) else 0,
        "array_time": format_duration(array_seconds(attempts, configs)),
        "matrix": {
            "patterns": ", ".join(matrix["patterns"]),
            "block_sizes": ", ".join(format_size(int(b)) for b in matrix["block_sizes"]),
            "concurrency": ", ".join(matrix["concurrency"]),
            "engine": matrix["engine"],
            "runtime": format_duration(matrix["runtime"]),
            "ramp": format_duration(matrix["ramp"]),
            "repetitions": matrix["repetitions"],
            "working_set": format_size(matrix["working_set"]) if matrix["working_set"] else "-",
        },
        "configurations": (
            configs[["config_key", "status", "changed_tasks", "started_at"]].to_dict("records")
            if len(configs)
            else []
        ),
        "host": host,
        "tools": tools,
        "spec_yaml": html.escape(json.dumps(spec, indent=2)),
        "job_files": disclosure["job_files"],
        "measurement": to_yaml(disclosure["measurement"]),
        "repeatability": disclosure["repeatability"],
        "facts": {
            c["configuration"]: to_yaml(c["facts"] or {}) for c in disclosure["configurations"]
        },
    }


def _curves(runs: pd.DataFrame, matrix: dict[str, Any]) -> dict[str, Any]:
    table = sweep_curves(runs, matrix)
    rows, points = [], []
    for r in table.itertuples():
        ws = f"/ws{r.active_pct}" if r.active_pct is not None else ""
        name = f"{r.config_key} · {r.pattern}/{format_size(r.block_size)}{ws}"
        roles = {r.speed.outstanding: "Speed", r.maximum.outstanding: "Maximum"}
        if r.optimum is not None:
            roles[r.optimum.outstanding] = "Optimum"
        for p in r.points:
            role = roles.get(p.outstanding, "")
            points.append({"curve": name, "outstanding": p.outstanding, "iops": p.iops,
                           "latency_ms": p.latency_ms, "role": role})  # fmt: skip
        rows.append({"curve": name, "speed": r.speed, "optimum": r.optimum,
                     "maximum": r.maximum, "method": r.method, "stopped": r.stopped})  # fmt: skip
    svg = _svg(curve_chart(pd.DataFrame(points))) if points and len(rows) <= 12 else None
    return {"rows": rows, "svg": svg}


def _drift(runs: pd.DataFrame, rule: dict[str, Any] | None) -> dict[str, Any] | None:
    if not rule:
        return None
    return {"cell": rule["cell"], "rows": drift_table(runs, rule["cell"]).to_dict("records")}


def render_report(store: Any, record: dict[str, Any]) -> str:
    template = _env().get_template("report.html.j2")
    ctx = build_context(store, record)
    ctx["fmt"] = lambda v, spec=",.0f": format(v, spec) if pd.notna(v) else "–"
    return template.render(**ctx)


def write_report(store: Any, record: dict[str, Any], path: Path) -> Path:
    text = render_report(store, record)
    atomic_write_bytes(Path(path), text.encode("utf-8"), replace=True)
    return Path(path)
