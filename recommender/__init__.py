"""Recommendations per workload class: pure functions over the results store's runs."""

from recommender.classes import (
    WorkloadClass,
    class_problems,
    load_class,
    load_classes,
    shipped_class_names,
)
from recommender.scoring import FORMULA, rank, rank_classes, score_class

__all__ = [
    "FORMULA",
    "WorkloadClass",
    "class_problems",
    "load_class",
    "load_classes",
    "rank",
    "rank_classes",
    "score_class",
    "shipped_class_names",
]
