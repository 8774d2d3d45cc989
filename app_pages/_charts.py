"""Altair charts of the app that the report does not draw: a clickable grid heatmap (any
columns, not only block sizes), and which cell a click chose."""

from __future__ import annotations

import json
import re
from typing import Any

import altair as alt
import pandas as pd

from recommender.views.shading import DARK_INK, LIGHT_INK, short_figure

CELL_SELECTION = "cell"
#: the width of a figure's character at the chart's 10 px font, a little generous
_CHAR_PX = 6.2
#: the least room between two column labels the axis draws, in pixels
_LABEL_GAP_PX = 2
#: a row label's room: at most 45% of a narrow window (a phone's), whole on a wide one
_NARROW_LABELS = alt.expr("clamp(containerSize()[0] * 0.45, 90, 460)")
#: a row label's font size, the width of its character (a little generous) and its line height
_ROW_FONT, _ROW_CHAR_PX, _ROW_LINE_PX = 11, 6.8, 13
#: a row label broken into lines holds at most this many characters a line (a part of the key
#: between two '/' is never split): 45% of a phone's window
_LINE_CHARS = 22
#: up to this many columns the grid is as wide as the page; more keep a square's own width
_FIT_COLUMNS = 16
#: the grid (the plot's ``width``) is wide enough for the colour bar's title beside a whole
#: bar (Vega's 200 px); on a narrower one the title goes above the bar and the bar is as long
#: as the grid (it ran off a phone's window)
_BAR_BESIDE = "width >= 360"
_BAR_TITLE = alt.expr(f"{_BAR_BESIDE} ? 'left' : 'top'")
_BAR_LENGTH = alt.expr(f"{_BAR_BESIDE} ? 200 : clamp(width - 10, 40, 200)")


def key_lines(key: str, limit: int = _LINE_CHARS) -> list[str]:
    """A configuration key in lines broken only after a '/' (``raid10/host_stripe/`` and
    ``ranks4/stripe16k/wb-ra``), each of at most ``limit`` characters where its parts allow:
    a part is never split, so every line reads as the key's own words."""
    lines: list[str] = []
    for part in re.split(r"(?<=/)", key):
        if lines and len(lines[-1]) + len(part) <= limit:
            lines[-1] += part
        elif part:
            lines.append(part)
    return lines or [key]


def _row_labels(
    rows: list[str], marks: dict[str, str]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each row's label whole (its key and mark) and in lines (``key_lines``, the mark after
    the last: on a phone's window a long mark is cut there, the key never is)."""
    whole, lines = {}, {}
    for key in rows:
        mark = marks.get(key, "")
        parts = key_lines(key)
        parts[-1] += mark
        whole[key], lines[key] = key + mark, parts
    return whole, lines


def grid_heatmap(
    frame: pd.DataFrame,
    order: list[str],
    *,
    x_title: str,
    metric_label: str,
    higher_is_better: bool = True,
    rows: list[str] | None = None,
    per_column: bool = False,
    row_marks: dict[str, str] | None = None,
    breakers: list[str] | None = None,
) -> alt.LayerChart:
    """Configuration × ``column`` coloured by ``value`` (or, ``per_column``, by its place
    within its column); a click selects one cell.

    ``frame`` has config_key, column, value, sd, n, and tone, ink, tied, label
    (``recommender.views.shade``). ``rows``: the configurations in the order shown;
    ``row_marks``: text after a row's key (its rank, a limit broken); ``breakers``: rows drawn
    in red. The selection is a point selection named CELL_SELECTION over (config_key,
    column), so the event names the cell whichever layer (square or its label) was clicked.
    """
    scheme = "viridis" if higher_is_better else "inferno"
    pick = alt.selection_point(
        name=CELL_SELECTION, fields=["config_key", "column"], on="click", clear="dblclick"
    )
    red = json.dumps(list(breakers or []))
    longest = max(map(len, order), default=0)
    shown_rows = rows or sorted(frame["config_key"].unique())
    whole, lines = _row_labels(shown_rows, row_marks or {})
    # the key whole where 45% of the window holds it, else broken after its '/' into lines
    label = (
        f"containerSize()[0] * 0.45 >= {_ROW_CHAR_PX} * length({json.dumps(whole)}[datum.value]"
        f" || datum.value) ? ({json.dumps(whole)}[datum.value] || datum.value)"
        f" : ({json.dumps(lines)}[datum.value] || datum.value)"
    )
    step = max(22, _ROW_LINE_PX * max((len(v) for v in lines.values()), default=1) + 8)
    frame = frame.assign(
        label=[
            ("=" if tied else "") + short_figure(v)
            for tied, v in zip(frame["tied"], frame["value"], strict=True)
        ]
    )
    base = alt.Chart(frame).encode(
        x=alt.X(
            "column:O",
            sort=order,
            title=x_title,
            axis=alt.Axis(
                # upright while they fit side by side, else standing; where a column is
                # narrower than a standing label's line (many columns on a narrow window: the
                # app fits the grid to the page) every other one is left out, then every
                # fourth ..., never two drawn over each other. Each square's tooltip names
                # its column whether or not its label is shown.
                labelAngle=alt.expr(f"bandwidth('x') >= {_CHAR_PX * longest + 6} ? 0 : -90"),
                labelLimit=200,
                labelOverlap="greedy",
                labelSeparation=_LABEL_GAP_PX,
            ),
        ),
        y=alt.Y(
            "config_key:N",
            title=None,  # the keys speak for themselves; a title would crowd long labels
            sort=shown_rows,
            axis=alt.Axis(
                labelLimit=_NARROW_LABELS,
                labelFontSize=_ROW_FONT,
                labelExpr=label,
                labelColor=alt.expr(f"indexof({red}, datum.value) >= 0 ? '#b71c1c' : '#222222'"),
            ),
        ),
    )
    # above the grid, not beside it: on a phone its width goes to the squares (and their figures)
    legend = alt.Legend(
        orient="top",
        direction="horizontal",
        titleOrient=_BAR_TITLE,
        gradientLength=_BAR_LENGTH,
    )
    if per_column:
        color = alt.Color(
            "tone:Q",
            title=["place in its column", "(1 = the column's best)"],
            scale=alt.Scale(scheme=scheme, domain=[0, 1]),
            legend=legend,
        )
    else:
        color = alt.Color(
            "value:Q",
            title=metric_label,
            scale=alt.Scale(scheme=scheme, reverse=not higher_is_better),
            legend=legend,
        )
    rect = (
        base.mark_rect(cursor="pointer")
        .encode(
            color=color,
            # The clicked cell keeps full colour, the others fade: the choice stays visible.
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.45)),
            # Outlined only once a cell is clicked (an empty selection selects every cell).
            stroke=alt.when(pick, empty=False).then(alt.value("black")).otherwise(alt.value(None)),
            strokeWidth=alt.value(2),
            tooltip=[
                alt.Tooltip("config_key:N", title="configuration"),
                alt.Tooltip("column:O", title=x_title),
                alt.Tooltip("value:Q", title=metric_label, format=",.5~g"),
                alt.Tooltip("interval:N", title="95% interval"),
                alt.Tooltip("n:Q", title="repetitions"),
                alt.Tooltip("tied_text:N", title="interval overlaps the column's best"),
            ],
        )
        .add_params(pick)
    )
    # The label's colour is chosen per cell for the colour under it (dark on light).
    # A figure is printed only where its square is wide enough for it (the chart fits its
    # column, so squares narrow with many columns or a narrow window): colour and tooltip
    # still carry it, never figures printed over each other.
    fits = f"bandwidth('x') >= {_CHAR_PX * 1.1} * length(datum.label) + 4 ? 1 : 0"
    text = base.mark_text(fontSize=11, cursor="pointer", opacity=alt.expr(fits)).encode(
        text=alt.Text("label:N"),
        color=alt.when(alt.datum.ink == DARK_INK)
        .then(alt.value(DARK_INK))
        .otherwise(alt.value(LIGHT_INK)),
    )
    # as wide as the page (``titled`` fits it) up to _FIT_COLUMNS columns; a square's own
    # width beyond, never narrower than its figure
    fitted = len(order) <= _FIT_COLUMNS
    return (rect + text).properties(
        height=alt.Step(step), width="container" if fitted else alt.Step(46)
    )


def share_bars(frame: pd.DataFrame, title: str) -> alt.Chart:
    """One bar per ``dimension``, its ``share`` in percent (0–100) on a titled axis, the
    largest first; a name takes at most 45% of a narrow window and is whole on a wide one."""
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("share:Q", title=title, scale=alt.Scale(domain=[0, 100])),
            y=alt.Y(
                "dimension:N",
                title=None,
                sort="-x",
                axis=alt.Axis(labelLimit=_NARROW_LABELS),
            ),
            tooltip=[alt.Tooltip("dimension:N"), alt.Tooltip("share:Q", title=title, format=".1f")],
        )
        .properties(height=alt.Step(30))
    )


#: a title longer than this is shown in two lines
_TITLE_CHARS = 44
#: the page's width for the plot, its own height kept: title, axes and legend are added to it
_FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")


def titled(chart: alt.TopLevelMixin, title: str) -> alt.TopLevelMixin:
    """``chart`` with ``title`` above it (Vega names the figure by it: its title's
    aria-label, what a screen reader says of it), as wide as the page.

    Streamlit fits a chart that says nothing of its sizing into its declared height (Vega's
    ``fit``): a title and a legend below then take that height from the plot (the curves'
    plot was squeezed to a sixth of it, its title under the page's choices, the trade-off's
    legend cut off). Only the width is fitted here; a chart laid out in steps (a heatmap's
    cells) keeps Vega's own sizing."""
    # a long title in two lines, after its ': ' (what it plots, then where): a phone's window
    # holds each, where one line ran off its edge
    head, sep, tail = title.partition(": ")
    text: str | list[str] = [head + ":", tail] if sep and len(title) > _TITLE_CHARS else title
    chart = chart.properties(title=alt.TitleParams(text, anchor="start", fontSize=14, limit=0))
    if isinstance(getattr(chart, "width", None), alt.Step):
        return chart
    return chart.properties(autosize=_FIT_WIDTH)


CELL_SEP = " · "


def cell_label(config_key: str, column: str) -> str:
    return f"{config_key}{CELL_SEP}{column}"


def parse_cell_label(label: str) -> tuple[str, str]:
    config_key, _, column = label.rpartition(CELL_SEP)
    return config_key, column


def clicked_cell(selection: Any, name: str = "cell") -> tuple[str, str] | None:
    """The (configuration, column) of a point selection on a grid heatmap, or None.

    ``selection`` is the chart's event state as ``st.altair_chart(on_select=...)`` keeps it:
    ``{"selection": {name: [{"config_key": ..., "column": ...}]}}``.
    """
    try:
        points = selection["selection"][name]
    except (KeyError, TypeError):
        return None
    if not isinstance(points, list | tuple) or not points:
        return None
    point = points[-1]  # shift-click adds points: the newest is the one just clicked
    if not isinstance(point, dict) or "config_key" not in point or "column" not in point:
        return None
    return str(point["config_key"]), str(point["column"])
