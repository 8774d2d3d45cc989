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
from markupsafe import Markup

from recommender.acceptance_io import markdown_lines, report_section
from recommender.charts import curve_chart, heatmap, tradeoff_chart, tradeoff_points
from recommender.classes import METRIC_UNITS
from recommender.curves import KNEE_RULE, sweep_curves
from recommender.data import load_recommendations
from recommender.drift import drift_table
from recommender.evidence import EVIDENCE_COLUMNS, SHARE_MEANING
from recommender.features import IMPACT_COLUMNS, impact_summary
from recommender.figures import interval_text, score_decimals
from recommender.importance import class_importances
from recommender.matrix_text import matrix_more
from recommender.pareto import pareto_set
from recommender.recommendations import ClassRecommendation
from recommender.report_files import write_all
from recommender.scoring import FORMULA, SCORE_COLUMNS
from recommender.search_evidence import report_section as search_section
from recommender.telemetry_summary import SUMMARY_COLUMNS, telemetry_summary
from recommender.tradeoffs import TRADEOFF_FORMULA, hardware_facts, hardware_text
from recommender.views import (
    CONFIGURATION,
    GB_PER_TB,
    HEATMAP_METRICS,
    MAX_CURVES,
    RANK_CAPTION,
    class_limits_text,
    curve_name,
    curve_point_text,
    curve_points,
    heatmap_frame,
    limits_text,
    rank_label,
    run_concurrencies,
    usable_tb_text,
)
from recommender.views.markdown import figure, markdown_table
from sweeper.disclosure import sweep_disclosure, to_yaml
from sweeper.status import array_seconds, provisional
from sweeper.units import format_duration, format_ms, format_size
from sweeper.untrusted import csv_cell, markdown_html_prose, markdown_html_text

TEMPLATES = Path(__file__).parent / "templates"


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["key"] = breakable_key
    env.filters["breakable"] = breakable_text
    env.globals |= {
        "rank_label": rank_label,
        "limits_text": limits_text,
        "rank_caption": RANK_CAPTION,
        "CONFIGURATION": CONFIGURATION,
        "ms": lambda v: format_ms(v) if pd.notna(v) else "–",
    }
    return env


def breakable_key(text: Any) -> Markup:
    """A configuration key, escaped, that a narrow column may wrap after a ``/`` (between
    its parts), never inside a part (``wb-ra``)."""
    parts = str(text).split("/")
    shown = [p + "/" for p in parts[:-1]] + parts[-1:]
    return Markup("<wbr>").join(Markup('<span class="part">{}</span>').format(p) for p in shown)


def breakable_text(text: Any) -> Markup:
    """Text, escaped, that a narrow column may wrap after each ``/``: the cell names in a
    latency or a limit (``randrw70/8k/qd1x16``) are no wider than one of their parts."""
    return Markup("/<wbr>").join(str(text).split("/"))


def _svg(chart: Any) -> str:
    return vlc.vegalite_to_svg(chart.to_dict())


def build_context(store: Any, record: dict[str, Any]) -> dict[str, Any]:
    sweep_id = record["sweep_id"]
    attempts = store.runs(sweep_id, include_failed=True)  # one read serves every figure below
    runs = attempts[attempts["status"] == "ok"]
    configs = store.configurations(sweep_id)
    recs = load_recommendations(store, record, runs)
    ranked = pd.concat([r.ranked for r in recs], ignore_index=True) if recs else pd.DataFrame()
    spec = record["spec"]
    sections = []
    for rec in recs:
        wclass, part = rec.wclass, rec.ranked
        points = tradeoff_points(part)
        # one precision for the class's scores and their intervals, as on every surface
        decimals = score_decimals(part["score"]) if len(part) else 0
        sections.append(
            {
                "name": wclass.name,
                "description": wclass.description,
                "metric": wclass.metric,
                "unit": METRIC_UNITS[wclass.metric],
                "score_decimals": decimals,
                "score_spec": f",.{decimals}f",
                "cells": [(c.cell, c.weight) for c in wclass.cells],
                "limits": class_limits_text(wclass.limits),
                "rows": part.to_dict("records"),
                "best": rec.best.to_dict() if rec.best is not None else None,
                "runner_up": rec.runner_up.to_dict() if rec.runner_up is not None else None,
                "sentence": rec.sentence(),
                "evidence": rec.evidence.to_dict("records"),
                "front": part[part["tradeoff_front"]].to_dict("records") if len(part) else [],
                "tradeoff_svg": _svg(tradeoff_chart(points, wclass.metric))
                if len(points)
                else None,
                "impact": rec.impact.to_dict("records"),
                "missing": rec.missing,
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
            qd = run_concurrencies(sel)
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
        #: the per-class recommendations, for the Markdown and CSV tables beside the HTML
        "recommendations": recs,
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "formula": FORMULA,
        "share_meaning": SHARE_MEANING,
        "tradeoff_formula": TRADEOFF_FORMULA,
        "sections": sections,
        "heatmaps": heatmaps,
        "curves": curves,
        "pareto": pareto_set(ranked).reset_index().to_dict("records") if len(ranked) else [],
        "hardware": hardware_text(hardware_facts(record)),
        "prices": spec.get("prices"),
        "impact": impact_summary(
            pd.concat([r.impact for r in recs], ignore_index=True) if recs else pd.DataFrame()
        ).to_dict("records"),
        "drift": _drift(runs, spec["matrix"].get("drift")),
        "n_runs": len(runs),
        "n_failed": len(attempts) - len(runs),
        "n_configs": runs["config_key"].nunique() if len(runs) else 0,
        "provisional": provisional(store, record["sweep_id"]),
        "acceptance": report_section(store, record),
        "search": search_section(store, record),
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
            "more": matrix_more(matrix),
        },
        "configurations": (
            configs[["config_key", "status", "changed_tasks", "started_at"]].to_dict("records")
            if len(configs)
            else []
        ),
        "host": host,
        "tools": tools,
        "reproducibility": disclosure["reproducibility"],
        "spec_yaml": html.escape(json.dumps(spec, indent=2)),
        "job_files": disclosure["job_files"],
        "measurement": to_yaml(disclosure["measurement"]),
        "repeatability": disclosure["repeatability"],
        "telemetry": {"rows": telemetry_summary(runs), "labels": [c[1] for c in SUMMARY_COLUMNS]},
        "facts": {
            c["configuration"]: to_yaml(c["facts"] or {}) for c in disclosure["configurations"]
        },
    }


def _curves(runs: pd.DataFrame, matrix: dict[str, Any]) -> dict[str, Any]:
    table = sweep_curves(runs, matrix)
    rows = [
        {
            "curve": curve_name(r.config_key, r.curve),
            "speed": r.speed,
            "optimum": r.optimum,
            "maximum": r.maximum,
            "method": r.method,
            # why there is no Optimum, or what more there is to say of it
            "note": r.note.removeprefix(KNEE_RULE).removeprefix("; "),
            # where a sweep of this curve would have stopped (else nothing: NaN in the frame)
            "stopped": r.stopped if isinstance(r.stopped, str) else None,
        }
        for r in table.itertuples()
    ]
    points = curve_points(table, one_role=True)
    svg = _svg(curve_chart(points)) if len(points) and len(rows) <= MAX_CURVES else None
    return {"rows": rows, "svg": svg}


def _drift(runs: pd.DataFrame, rule: dict[str, Any] | None) -> dict[str, Any] | None:
    if not rule:
        return None
    return {"cell": rule["cell"], "rows": drift_table(runs, rule["cell"]).to_dict("records")}


def render_report(store: Any, record: dict[str, Any], ctx: dict[str, Any] | None = None) -> str:
    template = _env().get_template("report.html.j2")
    ctx = dict(ctx or build_context(store, record))
    ctx["fmt"] = lambda v, spec=",.0f": figure(v, spec)  # REPORT.md's figures spelled alike
    ctx["interval"] = interval_text
    ctx["knee_rule"] = KNEE_RULE
    ctx["point"] = curve_point_text  # a curve's point as the CLI and the app write it
    ctx["usable_tb"] = usable_tb_text  # usable capacity in TB, as every ranking gives it
    return template.render(**ctx)


def write_report(
    store: Any, record: dict[str, Any], path: Path, ctx: dict[str, Any] | None = None
) -> list[Path]:
    """The HTML report at ``path``; beside it ``<stem>.md`` and ``<stem>-<table>.csv``. All of
    them or none: each is checked, then written aside, then put in place (``write_all``)."""
    ctx = ctx if ctx is not None else build_context(store, record)
    path = Path(path)
    files = {path: render_report(store, record, ctx).encode("utf-8")}
    files |= table_files(record, path, ctx)
    return write_all(files)


# Markdown and CSV ------------------------------------------------------------------------------
RANKING_CSV_COLUMNS = [
    *SCORE_COLUMNS,
    "meets_limits",
    "violations",
    "cells_missing",
    "usable_share",
    "usable_gb",
    "drives",
    "rebuild_h",
    "loss_risk_per_year",
    "cost",
    "cost_per_usable_gb",
    "cost_per_unit",
    "tradeoff_front",
]


#: what the evidence CSV adds to each class's evidence rows
EVIDENCE_EXTRA = ["class", "recommended_config", "runner_up_config"]


def report_tables(recs: list[ClassRecommendation]) -> dict[str, pd.DataFrame]:
    """The report's tables as data: rankings (with trade-offs), evidence, feature impact."""
    ranked = [r.ranked for r in recs if len(r.ranked)]
    rankings = (
        pd.concat(ranked, ignore_index=True).reindex(columns=RANKING_CSV_COLUMNS)
        if ranked
        else pd.DataFrame(columns=RANKING_CSV_COLUMNS)
    )
    evidence = [
        r.evidence.assign(
            **{
                "class": r.name,
                "recommended_config": r.best["config_key"],
                "runner_up_config": r.runner_up["config_key"],
            }
        )
        for r in recs
        if len(r.evidence) and r.best is not None and r.runner_up is not None
    ]
    impact = [r.impact for r in recs if len(r.impact)]
    return {
        "rankings": rankings,
        # an empty table keeps its header: a CSV reader still learns what it would hold
        "evidence": (
            pd.concat(evidence, ignore_index=True)
            if evidence
            else pd.DataFrame(columns=[*EVIDENCE_COLUMNS, *EVIDENCE_EXTRA])
        ),
        "features": (
            pd.concat(impact, ignore_index=True) if impact else pd.DataFrame(columns=IMPACT_COLUMNS)
        ),
        "decisions": pd.DataFrame(
            [
                {
                    "class": r.name,
                    "recommended": r.best["config_key"] if r.best is not None else "",
                    "decision": r.sentence(),
                }
                for r in recs
            ]
        ),
    }


def render_markdown(
    record: dict[str, Any], ctx: dict[str, Any], tables: dict[str, pd.DataFrame]
) -> str:
    """The report as Markdown: decisions, per-class rankings with trade-offs and evidence."""

    md = markdown_table
    text = markdown_html_text  # user text (descriptions, names, keys) is never markup
    out = [
        f"# raidsweep report: {text(record['sweep_id'])}",
        "",
        f"{markdown_html_prose(record.get('description', ''))} · "
        f"platform **{text(str(record.get('platform')))}** · "
        f"generated {ctx['generated']} · raidsweep {record.get('raidsweep_version')}",
        "",
        f"{ctx['n_configs']} configurations, {ctx['n_runs']} runs stored "
        f"({ctx['n_failed']} failed attempts), array time {ctx['array_time']}.",
        "",
        *markdown_lines(ctx["acceptance"]),
        "## Recommendations",
        "",
    ]
    if ctx["provisional"]:
        out += [f"**{text(ctx['provisional'])}**", ""]
    out += [f"- {text(s['sentence'])}" for s in ctx["sections"]]
    out += [
        "",
        f"{RANK_CAPTION}.",
        "",
        f"Scoring: {FORMULA}.",
        "",
        f"Trade-offs: {TRADEOFF_FORMULA}.",
        "",
    ]
    rankings = tables["rankings"]
    # The ranking's own leading columns (the class and the tie mark are said otherwise here),
    # then the trade-offs and what broke.
    leading = [c for c in SCORE_COLUMNS if c not in ("class", "tied")]
    shown = [*leading, "drives", "usable_tb", "usable_share", "loss_risk_per_year"]
    shown += ["cost_per_unit", "violations"]
    currency = (ctx.get("prices") or {}).get("currency", "USD")
    for s in ctx["sections"]:
        part = rankings[rankings["class"] == s["name"]].copy()
        part["rank"] = [rank_label(r, t) for r, t in zip(part["rank"], part["tied"], strict=True)]
        part["usable_tb"] = part["usable_gb"] / GB_PER_TB  # decimal TB, as drive sizes are given
        out += [f"## {text(s['name'])}", "", markdown_html_prose(s["description"]), ""]
        cells = ", ".join(f"{c} ({w:g})" for c, w in s["cells"])
        out += [text(f"Cells (weight): {cells}. Limits: {s['limits']}."), ""]
        if s["missing"]:
            out += [text(f"Not measured: {s['missing']}."), ""]
        unit = s["unit"]
        heads = {"score": f"score ({unit})", "cost_per_unit": f"{currency} / {unit}"}
        scores = dict.fromkeys(("score", "score_lo", "score_hi"), s["score_spec"])
        out += [md(part[shown], headings=heads, formats=scores), ""]
        ev = pd.DataFrame(s["evidence"])
        if len(ev):
            runner = s["runner_up"]["config_key"]
            out += [f"Evidence against the runner-up {text(runner)} ({SHARE_MEANING}):"]
            out += ["", md(ev), ""]
    if len(tables["features"]):
        out += ["## Feature impact", "", md(tables["features"]), ""]
    out += ["## Disclosure", ""]
    m = ctx["matrix"]
    out += [
        f"- matrix: patterns {m['patterns']}; block sizes {m['block_sizes']}; concurrency "
        f"{m['concurrency']}; engine {m['engine']}; ramp {m['ramp']}; runtime {m['runtime']}; "
        f"{m['repetitions']} repetitions; working set {m['working_set']}{m['more']}",
        "- load host: " + "; ".join(f"{k}: {v}" for k, v in ctx["host"].items()),
        "- tools: " + "; ".join(f"{k} {v}" for k, v in ctx["tools"].items()),
        *(
            text(f"- {r['question']}: {r['answer']} ({r['source']})")
            for r in ctx["reproducibility"]
        ),
        "- hardware: " + "; ".join(ctx["hardware"]),
        "",
        "The HTML report holds the heatmaps, curves, job files and storage facts.",
        "",
    ]
    return "\n".join(out)


def table_files(record: dict[str, Any], html_path: Path, ctx: dict[str, Any]) -> dict[Path, bytes]:
    """Beside the HTML report: ``<stem>.md`` and ``<stem>-<table>.csv`` for each table."""
    html_path = Path(html_path)
    tables = report_tables(ctx["recommendations"])
    files = {html_path.with_suffix(".md"): render_markdown(record, ctx, tables).encode()}
    for name, df in tables.items():
        files[html_path.with_name(f"{html_path.stem}-{name}.csv")] = csv_bytes(df)
    return files


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """A table of the report as its CSV file holds it (the app's downloads alike)."""
    # A cell a spreadsheet would take as a formula is quoted (CSV injection).
    safe = frame.map(csv_cell) if len(frame) else frame
    return safe.to_csv(index=False).encode()
