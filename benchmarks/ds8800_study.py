"""The reference study's whole matrix (examples/ds8800-study.yaml, 945 runs) simulated end to
end on the simulated array: Ansible plays, model, fio JSON parsing and store writes
(goal: under 10 s on 2 cores), and the array time the same study would take. Then the
simulated array's own share: the load driver answering the same 945 runs from the model
alone, without Ansible or the store (goal: under 2 s).

Run: .venv/bin/python benchmarks/ds8800_study.py
"""

from __future__ import annotations

import time
from typing import Any

from sweep_timing import ROOT, time_sweep

from sweeper.configuration import enumerate_configurations
from sweeper.load import SimDriver
from sweeper.platforms.sim import checked_profile
from sweeper.sim import ArrayState
from sweeper.spec import load_spec

MODEL_GOAL_S = 2.0


def time_model(spec_file: str) -> None:
    """The load driver's answers to every run of the study, from the model alone."""
    spec, _ = load_spec(ROOT / "examples" / spec_file)
    profile = checked_profile(spec.platform_options.get("profile", "ds8800-like"))
    cells = list(spec.matrix.cells())
    runs = 0
    t0 = time.perf_counter()
    for config in enumerate_configurations(spec.config_space):
        raw: dict[str, Any] = config.params() | {"ranks": config.rank_count}
        state = ArrayState(
            config.raid_level, config.layout, config.rank_count, config.stripe_kib, "wb-ra"
        )
        driver = SimDriver(profile, spec.matrix, spec.study.seed, lambda r=raw, s=state: (r, s))
        driver.prepare()
        for cell in cells:
            for repetition in range(1, spec.matrix.repetitions + 1):
                driver.run(cell, repetition)
                runs += 1
    model_s = time.perf_counter() - t0
    print(f"  the model alone     {model_s:6.2f} s   ({runs} runs; goal < {MODEL_GOAL_S:.0f} s)")
    print("MODEL GOAL MET" if model_s < MODEL_GOAL_S else "MODEL GOAL MISSED")


if __name__ == "__main__":
    time_sweep(
        "ds8800-study.yaml",
        goal_s=10.0,
        array_note=" ({hours:.1f} array-hours; the study ran about 95 by hand)",
    )
    time_model("ds8800-study.yaml")
