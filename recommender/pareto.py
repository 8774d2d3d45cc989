"""The Pareto set across workload classes: configurations no other beats in every class.

With several classes there is rarely one best configuration; the Pareto set is the honest
short list (one configuration per workload, or one compromise from this list). Computed from
the class scores of the ranking; a configuration missing a class's score is left out.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def pareto_set(ranked: pd.DataFrame) -> pd.DataFrame:
    """Configurations (index) with their score per class (columns), non-dominated only."""
    scores = ranked.pivot_table(index="config_key", columns="class", values="score").dropna()
    if scores.empty or scores.shape[1] < 2:
        return scores.iloc[0:0]
    values = scores.to_numpy()
    keep = [
        not np.any(np.all(values >= row, axis=1) & np.any(values > row, axis=1)) for row in values
    ]
    return scores[np.array(keep)].sort_values(list(scores.columns), ascending=False)
