"""The sweep spec: a YAML file validated into typed models before anything runs."""

from sweeper.spec.fields import ConcurrencyField, Duration, PatternField, Size
from sweeper.spec.load import (
    LAB_INVENTORY,
    PROJECT_ROOT,
    load_spec,
    resolve_inventory,
    seed_problems,
)
from sweeper.spec.matrix import CurveStop, Drift, DynamicRepetitions, Matrix, SteadyStateRule
from sweeper.spec.models import (
    Budget,
    ConfigSpace,
    GroupFacts,
    Hardware,
    Prices,
    RankList,
    StripeList,
    StudySettings,
    SweepSpec,
)
from sweeper.vocabulary import (
    CACHE_POLICIES,
    LAYOUTS,
    MULTI_RANK_LAYOUTS,
    RAID_LEVELS,
)

__all__ = [
    "CACHE_POLICIES",
    "LAB_INVENTORY",
    "LAYOUTS",
    "MULTI_RANK_LAYOUTS",
    "PROJECT_ROOT",
    "RAID_LEVELS",
    "Budget",
    "ConcurrencyField",
    "ConfigSpace",
    "CurveStop",
    "Drift",
    "Duration",
    "DynamicRepetitions",
    "GroupFacts",
    "Hardware",
    "Matrix",
    "PatternField",
    "Prices",
    "RankList",
    "Size",
    "SteadyStateRule",
    "StripeList",
    "StudySettings",
    "SweepSpec",
    "load_spec",
    "resolve_inventory",
    "seed_problems",
]
