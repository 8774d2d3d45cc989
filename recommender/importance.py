"""What matters: per workload class, how much each dimension of the config space moves the score.

Computed from the ranked configurations alone (grid or optimize mode, any storage): each
configuration becomes a trial of an in-memory Optuna study whose value is its class score, and
Optuna's fANOVA evaluator (Hutter et al. 2014, Optuna's default) says how much of the score's
variance each dimension explains on its own. Conditional dimensions are given a value everywhere
(one rank, no stripe) so that every trial has them all; dimensions that always change together
in the sweep (e.g. layout and stripe, when each layout has one stripe) cannot be told apart and
are reported as one, named ``layout + stripe``. The dimensions a platform declares (chunk
size, drives per rank, a role's own variables) are read from the key like the built-in ones.
"""

from __future__ import annotations

import warnings

import optuna
import pandas as pd
from optuna.distributions import CategoricalDistribution
from optuna.importance import FanovaImportanceEvaluator, get_param_importances

from sweeper.configuration import Configuration
from sweeper.dimensions import value_text
from sweeper.vocabulary import CONFIGURATION_COLUMNS

optuna.logging.set_verbosity(optuna.logging.WARNING)  # no "study created" line per class
MIN_CONFIGURATIONS = 4  # fewer cannot separate a top share from the rest
#: the configuration's columns as the importances name them (the stripe without its unit)
DIMENSIONS = tuple("stripe" if c == "stripe_kib" else c for c in CONFIGURATION_COLUMNS)


def _dimensions(key: str) -> dict[str, str]:
    c = Configuration.from_key(key)
    return {
        "raid_level": c.raid_level,
        "layout": c.layout,
        "ranks": str(c.rank_count),
        "stripe": "none" if c.stripe_kib is None else f"{c.stripe_kib}k",
        "cache_policy": c.cache_policy,
        "snapshots": str(c.snapshots),
        "data_reduction": str(c.data_reduction),
    } | {name: value_text(value) for name, value in c.dimensions}


def _depends(a: str, b: str, dims: list[dict[str, str]]) -> bool:
    """Whether dimension ``a`` is a function of ``b`` in this sweep (b's value decides a's)."""
    seen: dict[str, str] = {}
    return all(
        seen.setdefault(x.get(b, "none"), x.get(a, "none")) == x.get(a, "none") for x in dims
    )


def _merge_confounded(dims: list[dict[str, str]]) -> list[dict[str, str]]:
    """Join a dimension into another whose value decides it: neither varies on its own.

    Dimensions that never vary are dropped first (they explain nothing).
    """
    names = [*DIMENSIONS, *sorted({n for x in dims for n in x} - set(DIMENSIONS))]
    groups = [[d] for d in names if len({x.get(d, "none") for x in dims}) > 1]
    merged = True
    while merged:
        merged = False
        for i, g in enumerate(groups):
            for j, h in enumerate(groups):
                if i != j and _depends(g[0], h[0], dims):
                    groups[j] = [n for n in names if n in g + h]
                    del groups[i]
                    merged = True
                    break
            if merged:
                break
    return [{" + ".join(g): "/".join(x.get(n, "none") for n in g) for g in groups} for x in dims]


def class_importances(ranked: pd.DataFrame) -> pd.DataFrame:
    """Rows of (class, dimension, importance) for every class with enough configurations.

    Dimensions that never vary in the sweep are left out; ones that always change together
    are one row (see ``_merge_confounded``).
    """
    rows = []
    for wclass, part in ranked.groupby("class", sort=False):
        part = part.dropna(subset=["score"])
        if len(part) < MIN_CONFIGURATIONS:
            continue
        dims = _merge_confounded([_dimensions(k) for k in part["config_key"]])
        varying = list(dims[0])
        if not varying:
            continue
        dists = {d: CategoricalDistribution(sorted({x[d] for x in dims})) for d in varying}
        study = optuna.create_study(direction="maximize")
        for values, score in zip(dims, part["score"], strict=True):
            study.add_trial(
                optuna.trial.create_trial(
                    params={d: values[d] for d in varying}, distributions=dists, value=score
                )
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PED-ANOVA is labelled experimental
            imp = get_param_importances(
                study, evaluator=FanovaImportanceEvaluator(seed=0), normalize=True
            )
        for dim in varying:
            rows.append({"class": wclass, "dimension": dim, "importance": imp.get(dim, 0.0)})
    return pd.DataFrame(rows, columns=["class", "dimension", "importance"])
