"""Tables as Markdown with the figures spelled as the HTML report and the CLI spell them:
the same format per column, never scientific notation for a score, a dash for no figure."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from recommender.figures import INTERVAL_EXTRA_DECIMALS, figure, interval_text
from sweeper.untrusted import markdown_html_text

#: per column, how its figures are written (the HTML report's formats)
FIGURE_FORMATS: dict[str, str] = {
    "score": ",.0f",
    "score_lo": ",.0f",
    "score_hi": ",.0f",
    "score_off": ",.0f",
    "score_on": ",.0f",
    "key_value": ",.0f",
    "drives": ",.0f",
    "cv_pct": ".1f",
    "kept_pct": ".1f",
    "usable_tb": ",.1f",
    "usable_share": ".0%",
    "loss_risk_per_year": ".1e",
    "cost_per_unit": ",.2f",
    "ratio": ".3f",
    "contribution_pct": "+.0f",
    "weight": "g",
}


def risk_text(value: Any) -> str:
    """A data-loss risk per year as every surface writes it (``1.1e-06``; a dash if none)."""
    return figure(value, FIGURE_FORMATS["loss_risk_per_year"])


def share_text(value: Any) -> str:
    """An evidence share in percent as every surface writes it (``+85``, ``-3``, ``0``)."""
    return figure(value, FIGURE_FORMATS["contribution_pct"])


#: column headings as the HTML report words them (the CSV files keep the column names)
HEADINGS: dict[str, str] = {
    "config_key": "configuration",
    "score_lo": "95% CI low",
    "score_hi": "95% CI high",
    "cv_pct": "CV %",
    "repetitions": "reps",
    "usable_tb": "usable TB",
    "usable_share": "usable",
    "loss_risk_per_year": "loss risk / yr",
    "cost_per_unit": "cost / unit",
    "violations": "limits broken",
    "runner_up": "runner-up",
    "contribution_pct": "share %",
    "score_off": "score off",
    "score_on": "score on",
    "kept_pct": "kept %",
}


def markdown_table(
    frame: pd.DataFrame,
    text: Callable[[str], str] = markdown_html_text,
    *,
    headings: Mapping[str, str] | None = None,
    formats: Mapping[str, str] | None = None,
) -> str:
    """``frame`` as a Markdown table: figures by ``FIGURE_FORMATS``, text through ``text``
    (user text is never markup), columns headed by ``headings`` (a table's own: a score's
    unit), else ``HEADINGS``; ``formats`` a table's own figure formats (a class's score
    precision, ``recommender.figures.score_spec``) over ``FIGURE_FORMATS``."""
    if not len(frame):
        return "_none_"
    specs = {**FIGURE_FORMATS, **(formats or {})}
    shown = pd.DataFrame(
        {
            col: [
                text(v) if isinstance(v, str) else figure(v, specs.get(str(col)))
                for v in frame[col]
            ]
            for col in frame.columns
        }
    )
    heads = {**HEADINGS, **(headings or {})}
    shown.columns = [text(heads.get(str(c), str(c))) for c in frame.columns]
    align = [
        "right" if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool else "left"
        for c in frame.columns
    ]
    return shown.to_markdown(index=False, disable_numparse=True, colalign=align)


#: ``figure`` and ``interval_text`` live in ``recommender.figures``; here for the tables' users
__all__ = [
    "FIGURE_FORMATS",
    "HEADINGS",
    "INTERVAL_EXTRA_DECIMALS",
    "figure",
    "interval_text",
    "markdown_table",
    "risk_text",
    "share_text",
]
