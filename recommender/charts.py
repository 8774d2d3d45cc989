"""Altair charts shared by the app and the report (one definition, two renderers)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from sweeper.units import format_size


def heatmap(frame: pd.DataFrame, metric_label: str, *, higher_is_better: bool = True) -> alt.Chart:
    """Configuration × block size, coloured by ``value`` (mean over repetitions)."""
    data = frame.copy()
    data["bs"] = data["block_size"].map(format_size)
    order = [format_size(b) for b in sorted(data["block_size"].unique())]
    scheme = "viridis" if higher_is_better else "inferno"
    base = alt.Chart(data).encode(
        x=alt.X("bs:O", sort=order, title="block size"),
        y=alt.Y(
            "config_key:N",
            title=None,  # the keys speak for themselves; a title would crowd long labels
            sort=sorted(data["config_key"].unique()),
            axis=alt.Axis(labelLimit=360),
        ),
    )
    rect = base.mark_rect().encode(
        color=alt.Color(
            "value:Q",
            title=metric_label,
            scale=alt.Scale(scheme=scheme, reverse=not higher_is_better),
        ),
        tooltip=[
            alt.Tooltip("config_key:N", title="configuration"),
            alt.Tooltip("bs:O", title="block size"),
            alt.Tooltip("value:Q", title=metric_label, format=",.2f"),
            alt.Tooltip("sd:Q", title="sd", format=",.2f"),
            alt.Tooltip("n:Q", title="repetitions"),
        ],
    )
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text("value:Q", format=",.3~s"),
        color=alt.value("white"),
    )
    return (rect + text).properties(height=alt.Step(22), width=alt.Step(56))


def curve_chart(frame: pd.DataFrame) -> alt.Chart:
    """IOPS against mean latency as I/Os in flight grow, one line per curve.

    ``frame``: curve, outstanding, iops, latency_ms, and role (Speed, Optimum, Maximum or "").
    """
    base = alt.Chart(frame).encode(
        x=alt.X("iops:Q", title="IOPS"),
        y=alt.Y("latency_ms:Q", title="mean latency (ms)", scale=alt.Scale(type="log")),
        color=alt.Color("curve:N", title=None, legend=alt.Legend(labelLimit=360)),
        tooltip=[
            alt.Tooltip("curve:N"),
            alt.Tooltip("outstanding:Q", title="I/Os in flight"),
            alt.Tooltip("iops:Q", format=",.0f"),
            alt.Tooltip("latency_ms:Q", title="latency (ms)", format=",.3f"),
            alt.Tooltip("role:N"),
        ],
    )
    line = base.mark_line(point=True).encode(order="outstanding:Q")
    marks = base.transform_filter(alt.datum.role != "").mark_point(size=120, shape="diamond")
    return (line + marks).properties(width=520, height=300)


def tradeoff_chart(part: pd.DataFrame, metric: str) -> alt.Chart:
    """One class: score against usable capacity share, coloured by data-loss risk per year (log
    scale); the trade-off Pareto set drawn larger and outlined."""
    data = part.dropna(subset=["usable_share", "loss_risk_per_year"]).copy()
    data["usable_pct"] = 100 * data["usable_share"]
    data["front"] = data["tradeoff_front"].map({True: "Pareto set", False: "dominated"})
    return (
        alt.Chart(data)
        .mark_point(filled=True, opacity=0.85)
        .encode(
            x=alt.X(
                "usable_pct:Q", title="usable capacity (% of raw)", scale=alt.Scale(zero=False)
            ),
            y=alt.Y("score:Q", title=f"score ({metric})", scale=alt.Scale(zero=False)),
            color=alt.Color(
                "loss_risk_per_year:Q",
                title="data-loss risk / year",
                scale=alt.Scale(type="log", scheme="orangered"),
            ),
            size=alt.Size(
                "front:N",
                scale=alt.Scale(domain=["Pareto set", "dominated"], range=[220, 60]),
                title=None,
            ),  # fmt: skip
            shape=alt.Shape("front:N", title=None),
            tooltip=[
                alt.Tooltip("config_key:N", title="configuration"),
                alt.Tooltip("score:Q", format=",.0f"),
                alt.Tooltip("usable_pct:Q", title="usable %", format=".0f"),
                alt.Tooltip("loss_risk_per_year:Q", title="loss risk / year", format=".1e"),
                alt.Tooltip("rebuild_h:Q", title="rebuild (h)", format=".1f"),
            ],
        )
        .properties(width=420, height=260)
    )
