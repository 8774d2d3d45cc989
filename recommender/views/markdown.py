"""Tables as Markdown with the figures spelled as the HTML report and the CLI spell them:
the same format per column, never scientific notation for a score, a dash for no figure."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from sweeper.untrusted import markdown_html_text

#: per column, how its figures are written (the HTML report's formats)
FIGURE_FORMATS: dict[str, str] = {
    "score": ",.0f",
    "score_lo": ",.0f",
    "score_hi": ",.0f",
    "score_off": ",.0f",
    "score_on": ",.0f",
    "recommended": ",.0f",
    "runner_up": ",.0f",
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


def figure(value: Any, spec: str | None = None) -> str:
    """One figure: by ``spec``, else thousands grouped and at most four significant digits
    below 1,000; a dash for a missing or infinite one."""
    if value is None or value is pd.NA or value is pd.NaT:
        return "–"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if not math.isfinite(float(value)):
        return "–"
    text = format(value, spec if spec is not None else _plain_spec(value))
    # a share of -0.3% rounds to "-0" (and +0.2% to "+0"): no sign on a zero
    return text[1:] if text[:1] in "+-" and not text.strip("+-0.,%") else text


def _plain_spec(value: Any) -> str:
    return ",.0f" if abs(value) >= 1000 else ".4g"


#: how many decimals an interval may add to its larger end's precision to tell its ends apart
INTERVAL_EXTRA_DECIMALS = 2


def interval_text(lo: Any, hi: Any) -> str:
    """A 95% interval as every table writes it (``1,235–2,346``, ``0.5–950.3``, ``912–1,033``):
    both ends with one precision, never scientific notation, an en dash between them.

    The precision is the one the larger end's magnitude gets from ``figure``: thousands
    grouped and no decimals from 1,000, four significant digits below (912.3 to 1,033 reads
    ``912–1,033``, not ``912.3–1,033``; 87.04 to 112.96 reads ``87–113``). Distinct ends that
    would then read alike get a decimal more, up to ``INTERVAL_EXTRA_DECIMALS`` more
    (``3,304.2–3,304.4``); ends closer than that are equal to the precision shown and read
    alike. A trailing zero both ends have is dropped (``95–105``, ``1.5–2.0``), so both keep
    the same number of decimals. Rounding never swaps the ends: ``lo <= hi`` reads so. A
    missing or infinite end is a dash, the other end then written as ``figure`` writes it
    alone."""
    ends = [_finite(lo), _finite(hi)]
    if ends[0] is None or ends[1] is None:
        return f"{figure(lo)}–{figure(hi)}"
    a, b = ends
    decimals = _decimals(max(abs(a), abs(b)))
    texts = _fixed(a, b, decimals)
    for more in range(1, INTERVAL_EXTRA_DECIMALS + 1):
        if a == b or texts[0] != texts[1]:
            break
        texts = _fixed(a, b, decimals + more)
    return "–".join(_trim_zeros(texts))


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value) if math.isfinite(float(value)) else None


def _decimals(magnitude: float) -> int:
    """The decimals ``figure`` gives a number of this size: none from 1,000 (after
    rounding: 999.96 is 1,000), else four significant digits."""
    if magnitude == 0:
        return 0
    exponent = int(format(magnitude, ".3e").split("e")[1])  # of the rounded figure
    return max(0, 3 - exponent)


def _fixed(a: float, b: float, decimals: int) -> list[str]:
    # ``figure`` writes a zero that rounds from below ("-0.0") without its sign
    return [figure(v, f",.{decimals}f") for v in (a, b)]


def _trim_zeros(texts: list[str]) -> list[str]:
    """Drop the trailing zeros both ends have (and the point, with its last decimal)."""
    while all("." in t and t.endswith("0") for t in texts):
        texts = [t[:-1] for t in texts]
    if all(t.endswith(".") for t in texts):
        texts = [t[:-1] for t in texts]
    return texts


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
) -> str:
    """``frame`` as a Markdown table: figures by ``FIGURE_FORMATS``, text through ``text``
    (user text is never markup), columns headed by ``headings`` (a table's own: a score's
    unit), else ``HEADINGS``."""
    if not len(frame):
        return "_none_"
    shown = pd.DataFrame(
        {
            col: [
                text(v) if isinstance(v, str) else figure(v, FIGURE_FORMATS.get(str(col)))
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
