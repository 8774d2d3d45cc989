"""The ``sim`` platform: Ansible records the configuration, a model answers in fio's JSON."""

from __future__ import annotations

import configparser
import json
import time
from pathlib import Path
from typing import Any

from sweeper.configuration import Configuration
from sweeper.errors import InputError
from sweeper.fio import render_job
from sweeper.platforms.base import Platform, RunOutput, WorkloadRunner
from sweeper.sim.model import ArrayState, Job, simulate_fio
from sweeper.sim.profile import ArrayProfile, list_profiles, load_profile
from sweeper.spec import CACHE_POLICIES, LAYOUTS
from sweeper.units import parse_size
from sweeper.workload import WorkloadCell

SIM_TARGET = "/dev/raidsweep/test-volume"
DEFAULT_WORKING_SET = 360 * 1024**3  # the reference study's working set
OPTION_KEYS = {"profile"}


class SimPlatform(Platform):
    name = "sim"
    supported = {
        "raid_level": ("raid5", "raid6", "raid10"),
        "layout": LAYOUTS,
        "cache_policy": CACHE_POLICIES,
    }

    def __init__(self, options: dict[str, Any], state_dir: Path):
        super().__init__(options, state_dir)
        self.profile = load_profile(options.get("profile", "ds8800-like"))

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems: list[tuple[list[str | int], str]] = []
        for key in options:
            if key not in OPTION_KEYS:
                problems.append((["platform_options", key], "unknown key for platform 'sim'"))
        name = options.get("profile", "ds8800-like")
        if not isinstance(name, str) or name not in list_profiles():
            problems.append(
                (
                    ["platform_options", "profile"],
                    f"unknown array profile {name!r} (shipped: {', '.join(list_profiles())})",
                )
            )
        else:
            try:
                load_profile(name)
            except InputError as exc:
                problems.append((["platform_options", "profile"], exc.render()))
        return problems

    @classmethod
    def configuration_problems(cls, config: Configuration, options: dict[str, Any]) -> list[str]:
        profile = load_profile(options.get("profile", "ds8800-like"))
        if config.raid_level not in profile.raid_groups:
            return [f"profile {profile.name} has no {config.raid_level} groups"]
        limit = profile.max_ranks(config.raid_level)
        if config.rank_count > limit:
            return [
                f"{config.rank_count} ranks of {config.raid_level} exceed the {limit} "
                f"that profile {profile.name}'s drives allow"
            ]
        return []

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "sim",
            "sim_state_dir": str(self.state_dir),
            "sim_profile": self.profile.name,
            **config.params(),
        }

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "sim", "sim_state_dir": str(self.state_dir)}

    def runner(self, config: Configuration, matrix: Any, seed: int) -> WorkloadRunner:
        return SimRunner(self.profile, self.state_dir, matrix, seed)

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        p = self.profile
        rebuild = (
            previous is None
            or previous.raid_level != new.raid_level
            or previous.rank_count != new.rank_count
        )
        if rebuild:
            # Rank formats run in parallel, each at the drives' format rate.
            return p.drives.capacity_gb * 1e9 / (p.rank_init_mib_s * 1024**2) + p.volume_create_s
        if previous.layout != new.layout or previous.stripe_kib != new.stripe_kib:
            return p.volume_create_s
        if previous.cache_policy != new.cache_policy:
            return p.cache_policy_change_s
        return 0.0


def read_job_file(text: str) -> tuple[dict[str, str], dict[str, str], str]:
    """(global options, job options, job name) of a single-job fio job file."""
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    parser.optionxform = str  # fio option names are case-sensitive
    parser.read_string(text)
    sections = [s for s in parser.sections() if s != "global"]
    if len(sections) != 1:
        raise ValueError(f"the simulated array runs one job per file, got {len(sections)}")
    glob = dict(parser["global"]) if parser.has_section("global") else {}
    return ({k: v or "" for k, v in glob.items()},
            {k: v or "" for k, v in parser[sections[0]].items()}, sections[0])  # fmt: skip


def job_from_options(options: dict[str, str], default_working_set: int) -> Job:
    rw = options["rw"]
    if rw == "randrw":
        read_fraction = int(options.get("rwmixread", "50")) / 100
    else:
        read_fraction = 1.0 if rw in ("read", "randread") else 0.0
    size = options.get("size")
    return Job(
        rw=rw,
        read_fraction=read_fraction,
        block_size=parse_size(options["bs"]),
        iodepth=int(options.get("iodepth", "1")),
        numjobs=int(options.get("numjobs", "1")),
        engine=options.get("ioengine", "psync"),
        runtime_s=float(options.get("runtime", "60")),
        ramp_s=float(options.get("ramp_time", "0")),
        working_set=parse_size(size) if size else default_working_set,
    )


class SimRunner(WorkloadRunner):
    """Answers a job file with the model, for the configuration the array is recorded in."""

    def __init__(self, profile: ArrayProfile, state_dir: Path, matrix: Any, seed: int):
        self.profile = profile
        self.state_dir = state_dir
        self.matrix = matrix
        self.seed = seed
        self.state: ArrayState | None = None
        self.state_raw: dict[str, Any] = {}

    def prepare(self) -> None:
        # The array's own view, as the playbook left it, not what the sweeper intended.
        self.state_raw = json.loads((self.state_dir / "array.json").read_text())
        s = self.state_raw
        self.state = ArrayState(
            raid_level=s["raid_level"],
            layout=s["layout"],
            ranks=int(s["ranks"]),
            stripe_kib=int(s["stripe_kib"]) if s.get("stripe_kib") else None,
            cache_policy=s["cache_policy"],
        )

    def config_key(self) -> str:
        s = self.state_raw
        params = {k: s.get(k) for k in ("raid_level", "layout", "cache_policy")}
        if s["layout"] != "single_rank":
            params |= {"ranks": int(s["ranks"]), "stripe_kib": int(s["stripe_kib"])}
        return Configuration.from_params(params).key

    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        assert self.state is not None, "prepare() reads the array state first"
        m = self.matrix
        working_set = m.working_set or DEFAULT_WORKING_SET
        job_text = render_job(
            cell,
            filename=SIM_TARGET,
            engine=m.engine,
            runtime_s=m.runtime,
            ramp_s=m.ramp,
            size=working_set,
        )
        glob, opts, name = read_job_file(job_text)
        job = job_from_options(glob | opts, working_set)
        out = simulate_fio(
            self.profile,
            self.state,
            job,
            job_name=name,
            job_options=opts,
            global_options=glob,
            seed=(self.seed, self.config_key(), cell.key, repetition),
            timestamp=int(time.time()),
        )
        return RunOutput(
            stdout=json.dumps(out, indent=1),
            stderr="",
            exit_code=0,
            array_time_s=job.ramp_s + job.runtime_s,
            tool="raidsweep-sim",
            tool_version=f"profile {self.profile.name}",
            job_file=job_text,
            extra={"array_state": self.state_raw},
        )
