"""The simulated array: raidsweep's embedded default platform."""

from sweeper.sim.model import ArrayState, Job, Prediction, predict, simulate_fio
from sweeper.sim.profile import ArrayProfile, list_profiles, load_profile

__all__ = [
    "ArrayProfile",
    "ArrayState",
    "Job",
    "Prediction",
    "list_profiles",
    "load_profile",
    "predict",
    "simulate_fio",
]
