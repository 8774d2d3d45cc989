"""The Pareto set across workload classes: configurations no other beats in every class.

With several classes there is rarely one best configuration; the Pareto set is the honest
short list (one configuration per workload, or one compromise from this list). Computed from
the class scores of the ranking; a configuration missing a class's score is left out. A
configuration that breaks a service-level limit of a class serves that class with nothing: its
score there counts as zero and is shown as none (NaN), so that a fast limit breaker never keeps
a place on the front by a score it may not use.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def pareto_set(ranked: pd.DataFrame) -> pd.DataFrame:
    """Configurations (index) with their score per class (columns), non-dominated only."""
    scores = ranked.pivot_table(index="config_key", columns="class", values="score").dropna()
    if scores.empty or scores.shape[1] < 2:
        return scores.iloc[0:0]
    if "meets_limits" in ranked:
        keeps = ranked.pivot_table(
            index="config_key", columns="class", values="meets_limits", aggfunc="all"
        ).reindex_like(scores)
        scores = scores.where(keeps.fillna(False).astype(bool))
    values = scores.fillna(0.0).to_numpy()
    keep = [
        not np.any(np.all(values >= row, axis=1) & np.any(values > row, axis=1)) for row in values
    ]
    front = scores[np.array(keep)]
    order = front.fillna(0.0).sort_values(list(front.columns), ascending=False).index
    return front.loc[order]
