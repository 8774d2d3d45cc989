"""Altair charts shared by the app and the report (one definition, two renderers)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import altair as alt
import pandas as pd

from recommender.figures import score_decimals, score_spec
from recommender.views.labels import metric_unit
from recommender.views.markdown import risk_text
from recommender.views.shading import DARK_INK, LIGHT_INK, shade, short_figure
from sweeper.units import format_size


def heatmap(frame: pd.DataFrame, metric_label: str, *, higher_is_better: bool = True) -> alt.Chart:
    """Configuration × block size, coloured by ``value`` (mean over repetitions)."""
    data = frame.copy()
    data["bs"] = data["block_size"].map(format_size)
    # each figure in the ink that reads on its square's colour (dark on the light end)
    data["ink"] = shade(
        data.assign(column=data["bs"]), per_column=False, higher_is_better=higher_is_better
    )["ink"]
    # three significant figures, k and M for thousands and millions, as in the app: a
    # latency of 0.0824 ms reads 0.0824 (d3's SI format wrote 82.4m under a label in ms)
    data["figure"] = [short_figure(v) for v in data["value"].astype(float)]
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
            alt.Tooltip("value:Q", title=metric_label, format=",.5~g"),
            alt.Tooltip("sd:Q", title="sd", format=",.3~g"),
            alt.Tooltip("n:Q", title="repetitions"),
        ],
    )
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text("figure:N"),
        color=alt.when(alt.datum.ink == DARK_INK)
        .then(alt.value(DARK_INK))
        .otherwise(alt.value(LIGHT_INK)),
    )
    return (rect + text).properties(height=alt.Step(22), width=alt.Step(56))


#: a latency tick as the tables write the figure (``figure``: four significant digits,
#: thousands grouped) with its unit: ``0.5 ms``, ``3 ms``, ``1,000 ms``
LATENCY_LABEL = "format(datum.value, abs(datum.value) >= 1000 ? ',.0f' : '.4~g') + ' ms'"
#: a legend's label: whole on a wide page, cut only at the width of a phone's window
_LEGEND_LABEL_LIMIT = alt.expr("max(120, containerSize()[0] - 30)")
#: the data-loss risk as the CLI and the tables write it (Python's ``.1e``: 1.1e-06, two
#: exponent digits), from d3's ``.1e`` (1.1e-6)
RISK_LABEL = "replace(format(datum.value, '.1e'), regexp('e([-+])([0-9])$'), 'e$1' + '0' + '$2')"


#: a usable-capacity tick as the tables write the share (one decimal at most: 87.5, 75)
USABLE_PCT_FORMAT = ".1~f"


#: legends below the plot stacked one under another, each from the plot's left: side by side
#: they ran off a phone's window (the trade-off's shapes beside its colour bar)
_LEGENDS_STACKED = alt.expr("{bottom: {direction: 'vertical', anchor: 'start'}}")
#: a latency axis over more decades than this is ticked at the powers of ten alone
_DECADES_IN_STEPS = 3


def log_ticks(values: Iterable[float]) -> list[float]:
    """Ticks for a log axis over ``values`` as an engineer reads one: 1, 2 and 5 of each
    decade the values reach (0.5, 1, 2, 5, 10, 20 …), from the decade below the least to the
    one above the greatest (Vega rounds a log scale's domain out to them); past
    ``_DECADES_IN_STEPS`` decades the powers of ten alone. Vega's own ticks are 1 to 9 of each
    decade, and the even ones are dropped where they would crowd: 1, 3, 5, 7, 9."""
    shown = [float(v) for v in values if math.isfinite(float(v)) and float(v) > 0]
    if not shown:
        return []
    low = math.floor(math.log10(min(shown)))
    high = max(math.ceil(math.log10(max(shown))), low + 1)
    steps = (1, 2, 5) if high - low <= _DECADES_IN_STEPS else (1,)
    ticks = [float(f"{m}e{e}") for e in range(low, high) for m in steps]
    return [*ticks, float(f"1e{high}")]


#: the plots' own heights, in pixels (a title, the axes and a legend are added to them)
CURVE_PLOT_HEIGHT = 300
TRADEOFF_PLOT_HEIGHT = 320


def curve_chart(frame: pd.DataFrame) -> alt.Chart:
    """IOPS against mean latency as I/Os in flight grow, one line per curve.

    ``frame``: curve, outstanding, iops, latency_ms, and role (Speed, Optimum, Maximum or "").
    """
    base = alt.Chart(frame).encode(
        x=alt.X("iops:Q", title="IOPS"),
        y=alt.Y(
            "latency_ms:Q",
            title="mean latency (ms)",
            scale=alt.Scale(type="log", nice=True),
            # every tick with its unit, at 1, 2 and 5 of each decade: 1 ms, 2 ms, 5 ms, 10 ms
            axis=alt.Axis(labelExpr=LATENCY_LABEL, values=log_ticks(frame["latency_ms"])),
        ),
        # below the plot, one curve a line: long names never squeeze the plot on a narrow page
        color=alt.Color(
            "curve:N",
            title=None,
            legend=alt.Legend(
                orient="bottom",
                direction="vertical",
                columns=1,
                labelLimit=_LEGEND_LABEL_LIMIT,
                # a curve's configuration and its workload on lines of their own: a phone's
                # window holds each whole
                labelExpr="split(datum.label, ' · ')",
            ),
        ),
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
    return (line + marks).properties(width=520, height=CURVE_PLOT_HEIGHT)


def tradeoff_points(ranked: pd.DataFrame) -> pd.DataFrame:
    """One class's configurations with what the Pareto view plots (rows lacking a figure out)."""
    cols = ["config_key", "score", "usable_share", "rebuild_h", "loss_risk_per_year"]
    if ranked.empty or not set(cols) <= set(ranked.columns):
        return pd.DataFrame(columns=[*cols, "usable_pct", "front", "limits"])
    out = ranked[cols].copy()
    for c in cols[1:]:
        out[c] = pd.to_numeric(out[c], errors="coerce")
    out["usable_pct"] = 100 * out["usable_share"]
    front = ranked.get("tradeoff_front", pd.Series(False, index=ranked.index))
    out["front"] = [
        "breaks a limit" if not bool(ok) else "on the trade-off front" if bool(v) else "dominated"
        for v, ok in zip(front, ranked["meets_limits"], strict=True)
    ]
    out["limits"] = [
        "ok" if ok else str(why)
        for ok, why in zip(ranked["meets_limits"], ranked["violations"], strict=True)
    ]
    return out.dropna(subset=["score", "usable_share", "loss_risk_per_year"])


def tradeoff_chart(points: pd.DataFrame, metric: str) -> alt.Chart:
    """Score against usable capacity, coloured by data-loss risk per year (the rebuild
    exposure), the trade-off front drawn as filled diamonds and the configurations that break
    a limit as red-outlined crosses. ``metric``: the class's, or its unit (IOPS, MB/s).

    ``points``: config_key, score, usable_pct, rebuild_h, loss_risk_per_year, front, limits
    (``tradeoff_points``).
    """
    # the risk as the CLI and the tables write it (1.1e-06): d3's format cannot
    points = points.assign(risk_text=points["loss_risk_per_year"].map(risk_text))
    # a log scale (the risks span decades: 7.8e-11 to 6.0e-06); a risk of nought is coloured
    # as the least one above it
    risk = points["loss_risk_per_year"].astype(float)
    least = risk[risk > 0].min() if (risk > 0).any() else 1e-12
    points = points.assign(risk_colour=risk.clip(lower=least))
    # no tick finer than the score's format writes: two ticks never read alike
    score_step = 10.0 ** -score_decimals(points["score"])
    return (
        alt.Chart(points)
        .mark_point(size=160, filled=True, opacity=0.9)
        .encode(
            # each tick as the tables write its figure (``1,870``, ``45.7``; ``87.5``): never
            # Vega's raw float (1,869.781405) where every configuration has the same value
            x=alt.X(
                "score:Q",
                title=f"score ({metric_unit(metric)})",
                scale=alt.Scale(zero=False),
                axis=alt.Axis(format=score_spec(points["score"]), tickMinStep=score_step),
            ),
            y=alt.Y(
                "usable_pct:Q",
                title="usable capacity (%)",
                scale=alt.Scale(zero=False),
                axis=alt.Axis(format=USABLE_PCT_FORMAT, tickMinStep=0.1),
            ),
            color=alt.Color(
                "risk_colour:Q",
                title="data-loss risk / year",
                scale=alt.Scale(type="log", scheme="orangered"),
                # below the plot, so that the plot keeps the page's width on a narrow window
                legend=alt.Legend(
                    labelExpr=RISK_LABEL, orient="bottom", direction="horizontal", titleOrient="top"
                ),
            ),
            shape=alt.Shape(
                "front:N",
                title=None,
                legend=alt.Legend(orient="bottom", direction="vertical"),
                scale=alt.Scale(
                    domain=["on the trade-off front", "dominated", "breaks a limit"],
                    range=["diamond", "circle", "cross"],
                ),
            ),
            stroke=alt.when(alt.datum.front == "breaks a limit")
            .then(alt.value("#d32f2f"))
            .when(alt.datum.front == "on the trade-off front")
            .then(alt.value("black"))
            .otherwise(alt.value(None)),
            strokeWidth=alt.value(2),
            tooltip=[
                alt.Tooltip("config_key:N", title="configuration"),
                alt.Tooltip("score:Q", format=",.1f"),
                alt.Tooltip("usable_pct:Q", title="usable %", format=".1f"),
                alt.Tooltip("rebuild_h:Q", title="rebuild h", format=".2f"),
                alt.Tooltip("risk_text:N", title="data-loss risk / year"),
                alt.Tooltip("front:N", title="trade-off"),
                alt.Tooltip("limits:N", title="limits (what broke)"),
            ],
        )
        .properties(height=TRADEOFF_PLOT_HEIGHT)
        .configure_legend(layout=_LEGENDS_STACKED)
    )
