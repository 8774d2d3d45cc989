"""Stopping by evidence: is the current pick of every class within a tolerance of the best
configuration of the whole space, with a stated probability?

Per class, a Gaussian process (scikit-learn) is fitted to the log class scores of the
configurations measured on all of the class's cells. Each configuration is encoded as numbers:
one-hot RAID level and layout, write cache and read-ahead on/off, log2 of the ranks, log2 of
the host stripe and of the pool extent (one column each: different things), snapshots and data
reduction; every column scaled to [0, 1]. The kernel is a constant times an anisotropic Matérn
5/2 plus white noise (run-to-run noise), its hyperparameters by maximum likelihood; the
measured spread of each score is added to the noise of its point.

The probability that some other configuration beats the pick by more than the tolerance is
taken from the process's *latent* (noise-free) posterior, as a Student-t over it (the
process's scale is itself estimated from the points, with as many degrees of freedom as
points beyond the encoded columns: a Gaussian tail over hundreds of unmeasured
configurations made a structureless near-tie look settled), jointly: samples of the pick and of
the most threatening others (by their own probability) together, so that correlations count;
the rest add their own probabilities (a union bound, never less than the truth). Configurations
measured but pruned, or breaking the class's limits, cannot be the best and are left out;
unmeasured ones are assumed to keep the limits (the cautious side).

No class is judged before the evidence covers the space: every value of every dimension
measured at least once, and more configurations than encoded columns. A class without enough
evidence counts as unsure, so a sweep never stops on two lucky points.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy.stats import t as student_t
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

from sweeper.configuration import Configuration
from sweeper.vocabulary import CONFIGURATION_COLUMNS, MULTI_RANK_LAYOUTS, OPTIONAL_COLUMNS

#: the others sampled jointly with the pick; the rest by their own probabilities
JOINT = 300
SAMPLES = 2000


@dataclass(frozen=True)
class ClassEvidence:
    """What the evidence says of one class's pick."""

    name: str
    pick: str | None
    #: probability that the best configuration beats the pick by more than the tolerance
    p_beaten: float
    #: 1 - p_beaten: how sure the sweep is that the pick is within the tolerance of the best
    confidence: float
    confident: bool
    #: configurations the surrogate was fitted on
    fitted: int
    #: the unmeasured configuration most likely to beat the pick (by its own chance), and that
    #: chance: what the sweep measures next
    threat: str | None = None
    p_threat: float = 0.0
    #: why the class could not be judged (too little evidence), or None
    unsure: str | None = None
    #: an unmeasured configuration the surrogate predicts above the pick ("predicted best,
    #: not measured"): the sweep measures it before it recommends the pick
    predicted_best: str | None = None


@dataclass(frozen=True)
class StopDecision:
    """After a configuration: stop the sweep, and how sure it is per class."""

    stop: bool
    within_pct: float
    confidence: float
    measured: int
    space: int
    classes: tuple[ClassEvidence, ...]

    def record(self) -> dict[str, Any]:
        """As kept in the sweep's progress record (JSON)."""
        return asdict(self) | {"classes": [asdict(c) for c in self.classes]}


def encode(configs: list[Configuration]) -> np.ndarray:
    """Configurations as rows of numbers in [0, 1] (see the module's docstring); columns
    that do not vary over ``configs`` are dropped."""
    levels = sorted({c.raid_level for c in configs})
    layouts = sorted({c.layout for c in configs})
    rows = []
    for c in configs:
        row = [float(c.raid_level == v) for v in levels]
        row += [float(c.layout == v) for v in layouts]
        row += [float(c.cache_policy.startswith("wb")), float(c.cache_policy.endswith("-ra"))]
        row.append(math.log2(c.rank_count))
        for layout in MULTI_RANK_LAYOUTS:
            on = c.layout == layout and c.stripe_kib is not None
            row.append(math.log2(c.stripe_kib) if on and c.stripe_kib else 0.0)
        row += [float(c.snapshots), float(c.data_reduction)]
        rows.append(row)
    x = np.asarray(rows, dtype=float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    varies = hi > lo
    return (x[:, varies] - lo[varies]) / (hi[varies] - lo[varies])


def missing_values(measured: Iterable[Configuration], space: list[Configuration]) -> list[str]:
    """The values of the space's dimensions no measured configuration has ("raid6", …)."""
    measured = list(measured)
    seen = [c.params() for c in measured]
    gaps = []
    for dim in (d for d in CONFIGURATION_COLUMNS if d not in OPTIONAL_COLUMNS):
        values = {p.get(dim) for p in (c.params() for c in space)} - {None}
        have = {p.get(dim) for p in seen}
        gaps += [f"{dim} {v}" for v in sorted(values - have, key=str)]
    for dim in ("snapshots", "data_reduction"):
        if (
            len({getattr(c, dim) for c in space}) > 1
            and len({getattr(c, dim) for c in measured}) < 2
        ):
            gaps.append(f"{dim} on and off")
    return gaps


class Surrogate:
    """A Gaussian process over the encoded space, fitted to measured log scores."""

    def __init__(self, space: list[Configuration], seed: int = 0) -> None:
        self.space = space
        self.index = {c.key: i for i, c in enumerate(space)}
        self.x = encode(space)
        self.seed = seed
        self.latent: GaussianProcessRegressor | None = None
        self.mean = 0.0
        self.scale = 1.0
        self.dof = 3.0

    def fit(self, keys: list[str], scores: np.ndarray, rel_se: np.ndarray) -> None:
        """Fit to the scores of ``keys`` (with their relative standard errors)."""
        y = np.log(np.clip(scores, 1e-9, None))
        self.mean, self.scale = float(y.mean()), float(y.std()) or 1.0
        yn = (y - self.mean) / self.scale
        x = self.x[[self.index[k] for k in keys]]
        # The measured spread of each score, in the normalised log units the process sees.
        alpha = (np.asarray(rel_se, dtype=float) / self.scale) ** 2 + 1e-8
        d = x.shape[1]
        kernel = ConstantKernel(1.0, (1e-2, 1e2)) * Matern(
            np.ones(d), (0.05, 20.0), nu=2.5
        ) + WhiteKernel(1e-3, (1e-6, 0.5))
        gp = GaussianProcessRegressor(
            kernel, alpha=alpha, n_restarts_optimizer=2, random_state=self.seed
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            gp.fit(x, yn)
        # The latent process: the fitted kernel without its white noise, the noise moved into
        # the points' own variance, so predictions are of the noise-free score.
        fitted = gp.kernel_
        noise = float(fitted.k2.noise_level)
        self.latent = GaussianProcessRegressor(fitted.k1, alpha=alpha + noise, optimizer=None)
        self.latent.fit(x, yn)
        #: degrees of freedom of the scale's estimate: points beyond the encoded columns
        self.dof = float(max(len(keys) - d, 3))

    def predict(self, keys: list[str], *, cov: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean of the log score and its standard deviation (or covariance)."""
        assert self.latent is not None, "fit first"
        x = self.x[[self.index[k] for k in keys]]
        if cov:
            m, c = self.latent.predict(x, return_cov=True)
            return self.mean + self.scale * m, c * self.scale**2
        m, s = self.latent.predict(x, return_std=True)
        return self.mean + self.scale * m, s * self.scale


def fitted_surrogate(
    table: pd.DataFrame, space: list[Configuration], seed: int = 0
) -> tuple[Surrogate | None, int, str | None]:
    """The surrogate fitted to one class's table (the configurations measured on all of its
    cells), how many it was fitted on, and why there is none (too little evidence)."""
    full = table[table["cells_measured"] == table["cells_measured"].max()]
    by_key = {c.key: c for c in space}
    full = full[full["config_key"].isin(list(by_key))]
    gaps = missing_values([by_key[k] for k in full["config_key"]], space)
    columns = encode(space).shape[1]
    if gaps:
        more = " …" if len(gaps) > 4 else ""
        return None, len(full), f"not yet measured: {', '.join(gaps[:4])}{more}"
    if len(full) <= columns:
        return None, len(full), f"{len(full)} configurations measured, more than {columns} needed"
    surrogate = Surrogate(space, seed)
    reps = full["repetitions"].clip(lower=1).to_numpy()
    rel_se = full["cv_pct"].fillna(0).to_numpy() / 100 / np.sqrt(reps)
    surrogate.fit(list(full["config_key"]), full["score"].to_numpy(dtype=float), rel_se)
    return surrogate, len(full), None


def class_evidence(
    table: pd.DataFrame,
    space: list[Configuration],
    excluded: set[str],
    *,
    within_pct: float,
    confidence: float,
    seed: int = 0,
) -> ClassEvidence:
    """The evidence for one class from its ranked table (``rank_classes`` rows of the class).

    ``excluded``: configurations that cannot be the class's best (measured and pruned).
    """
    name = str(table["class"].iloc[0]) if len(table) else ""
    if table.empty:
        return ClassEvidence(name, None, 1.0, 0.0, False, 0, unsure="nothing measured yet")
    pick = str(table.iloc[0]["config_key"])
    surrogate, fitted, unsure = fitted_surrogate(table, space, seed)
    if surrogate is None:
        return ClassEvidence(name, pick, 1.0, 0.0, False, fitted, unsure=unsure)
    breakers = set(table.loc[~table["meets_limits"].astype(bool), "config_key"])
    if pick in breakers:
        breakers = set()  # nothing keeps the limits: the pick stands against every score
    others = [c.key for c in space if c.key not in excluded | breakers | {pick}]
    measured = set(table["config_key"])
    p, threat, p_threat = beaten(surrogate, pick, others, within_pct, seed, measured)
    best = predicted_best(surrogate, pick, [k for k in others if k not in measured])
    sure = p < 1.0 - confidence
    return ClassEvidence(name, pick, p, 1.0 - p, sure, fitted, threat, p_threat, None, best)


def predicted_best(surrogate: Surrogate, pick: str, unmeasured: list[str]) -> str | None:
    """The unmeasured configuration with the highest predicted score, if that prediction is
    above the pick's own (its posterior mean), else None."""
    if not unmeasured:
        return None
    m_pick, _ = surrogate.predict([pick])
    m, _ = surrogate.predict(unmeasured)
    top = int(np.argmax(m))
    return unmeasured[top] if m[top] > m_pick[0] else None


def beaten(
    surrogate: Surrogate,
    pick: str,
    others: list[str],
    within_pct: float,
    seed: int = 0,
    measured: set[str] | None = None,
) -> tuple[float, str | None, float]:
    """Probability that the best of ``others`` beats ``pick`` by more than ``within_pct`` (the
    pick below (1 - within) of it), with the most threatening of ``others`` not ``measured``
    and its own probability."""
    if not others:
        return 0.0, None, 0.0
    margin = -math.log(1.0 - within_pct / 100.0)
    m_pick, s_pick = surrogate.predict([pick])
    m, s = surrogate.predict(others)
    # Each other's own probability (its covariance with the pick left out: the cautious side).
    z = (m - m_pick[0] - margin) / np.sqrt(s**2 + s_pick[0] ** 2 + 1e-12)
    dof = surrogate.dof
    own = student_t.sf(-z, dof)
    order = np.argsort(-own)
    top = [others[i] for i in order[:JOINT]]
    rest = float(own[order[JOINT:]].sum())
    mean, cov = surrogate.predict([pick, *top], cov=True)
    rng = np.random.default_rng(seed)
    draws = rng.multivariate_normal(mean, cov, size=SAMPLES, method="eigh")
    # The process's scale is estimated from the points: a Student-t over it (multivariate t
    # draws), so a few points do not make the far tail of an unmeasured one look thin.
    draws = mean + (draws - mean) * np.sqrt(dof / rng.chisquare(dof, size=(SAMPLES, 1)))
    joint = float(np.mean(draws[:, 1:].max(axis=1) - draws[:, 0] > margin))
    fresh = [int(i) for i in order if others[i] not in (measured or set())]
    if not fresh:
        return min(1.0, joint + rest), None, 0.0
    return min(1.0, joint + rest), others[fresh[0]], float(own[fresh[0]])


def judge(
    ranked: pd.DataFrame,
    space: list[Configuration],
    excluded: set[str],
    classes: list[str],
    *,
    measured: int,
    within_pct: float,
    confidence: float,
    seed: int = 0,
) -> StopDecision:
    """The decision after a configuration: stop when every class is confident."""
    evidence = []
    for name in classes:
        table = ranked[ranked["class"] == name] if len(ranked) else ranked
        if table.empty:
            evidence.append(ClassEvidence(name, None, 1.0, 0.0, False, 0, unsure="not measured"))
            continue
        ev = class_evidence(
            table, space, excluded, within_pct=within_pct, confidence=confidence, seed=seed
        )
        evidence.append(ev)
    stop = bool(evidence) and all(e.confident for e in evidence)
    return StopDecision(stop, within_pct, confidence, measured, len(space), tuple(evidence))


def predictions(
    ranked: pd.DataFrame,
    space: list[Configuration],
    classes: list[str],
    *,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """The surrogate's predicted score of every configuration not measured on all of a class's
    cells, per class, with a ``level`` interval: columns class, config_key, predicted,
    predicted_lo, predicted_hi, and ``kind`` = "predicted" (never a measurement). Empty for
    a class without enough evidence to fit (see the module's docstring)."""
    rows = []
    zq = float(norm.ppf(0.5 + level / 2))
    for name in classes:
        table = ranked[ranked["class"] == name]
        if table.empty:
            continue
        surrogate, _, _ = fitted_surrogate(table, space, seed)
        if surrogate is None:
            continue
        measured = set(
            table.loc[table["cells_measured"] == table["cells_measured"].max(), "config_key"]
        )
        unmeasured = [c.key for c in space if c.key not in measured]
        if not unmeasured:
            continue
        m, s = surrogate.predict(unmeasured)
        for key, mu, sd in zip(unmeasured, m, s, strict=True):
            rows.append((name, key, math.exp(mu), math.exp(mu - zq * sd), math.exp(mu + zq * sd)))
    out = pd.DataFrame(
        rows, columns=["class", "config_key", "predicted", "predicted_lo", "predicted_hi"]
    )
    return out.assign(kind="predicted")
