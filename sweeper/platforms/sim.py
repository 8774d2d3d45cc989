"""The ``sim`` platform: Ansible records the configuration, a model answers in fio's JSON."""

from __future__ import annotations

import configparser
import functools
import json
import time
from pathlib import Path
from typing import Any

from sweeper.configuration import Configuration
from sweeper.errors import InputError
from sweeper.fio import render_job
from sweeper.platforms.base import Platform, RunOutput, WorkloadRunner
from sweeper.sim.model import ArrayState, Job, simulate_fio
from sweeper.sim.profile import PROFILE_DIR, ArrayProfile, list_profiles, load_profile
from sweeper.units import parse_size
from sweeper.vocabulary import (
    CACHE_POLICIES,
    CONFIGURATION_COLUMNS,
    LAYOUTS,
    MULTI_RANK_COLUMNS,
    RAID_LEVELS,
)
from sweeper.workload import WorkloadCell

SIM_TARGET = "/dev/raidsweep/test-volume"
DEFAULT_WORKING_SET = 360 * 1024**3  # the reference study's working set
HEALTH = ("optimal", "degraded", "rebuilding")
OPTION_KEYS = {"profile", "health"}


def _profile(options: dict[str, Any]) -> ArrayProfile:
    return checked_profile(options.get("profile", "ds8800-like"))


def checked_profile(name: str) -> ArrayProfile:
    """The profile ``name``, read once while its file is unchanged (validation checks a
    space's every configuration against it)."""
    path = PROFILE_DIR / f"{name}.yaml"
    try:
        st = path.stat()
    except OSError:
        return load_profile(name)  # refused by name there
    return _cached_profile(name, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _cached_profile(name: str, mtime_ns: int, size: int) -> ArrayProfile:
    return load_profile(name)


class SimPlatform(Platform):
    name = "sim"
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    # The profile decides which of these its hardware can build (configuration_problems).
    supported = {
        "raid_level": RAID_LEVELS,
        "layout": LAYOUTS,
        "cache_policy": CACHE_POLICIES,
    }

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.profile = _profile(options)
        self.health = options.get("health", "optimal")

    @classmethod
    def supported_values(cls, options: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        try:
            profile = _profile(options)
        except (InputError, TypeError):
            return cls.supported  # option_problems reports the profile itself
        levels = tuple(r for r in RAID_LEVELS if r in profile.raid_groups)
        return cls.supported | {"raid_level": levels}

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems: list[tuple[list[str | int], str]] = []
        for key in options:
            if key not in OPTION_KEYS:
                problems.append(
                    (
                        ["platform_options", key],
                        f"unknown key for platform 'sim' (known: {', '.join(sorted(OPTION_KEYS))})",
                    )
                )
        health = options.get("health", "optimal")
        if health not in HEALTH:
            problems.append(
                (["platform_options", "health"], f"{health!r} is not one of {', '.join(HEALTH)}")
            )
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
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        p = _profile(options)
        level = config.raid_level
        if level not in p.raid_groups:
            return [f"profile {p.name} has no {level} groups (it has {', '.join(p.raid_groups)})"]
        problems = []
        limit = p.max_ranks(level)
        if config.rank_count > limit:
            problems.append(
                f"{config.rank_count} ranks of {level} exceed the {limit} that profile "
                f"{p.name}'s {p.drives.count} drives in sites of {p.site_width} allow"
            )
        if config.layout == "pool_stripe" and config.stripe_kib is not None:
            if config.stripe_kib not in p.pool.extent_kib:
                sizes = ", ".join(str(e) for e in p.pool.extent_kib)
                problems.append(
                    f"pool_stripe spreads extents of {config.stripe_kib} KiB, but profile "
                    f"{p.name} offers extents of {sizes} KiB"
                )
            if p.full_stripe_kib(level) > config.stripe_kib:
                problems.append(
                    f"a {level} stripe of {p.full_stripe_kib(level)} KiB is larger than the "
                    f"{config.stripe_kib} KiB extent"
                )
        if config.snapshots and p.snapshots is None:
            problems.append(f"profile {p.name} has no snapshots")
        if config.data_reduction and p.data_reduction is None:
            problems.append(f"profile {p.name} has no data reduction")
        working_set = getattr(matrix, "working_set", None) or DEFAULT_WORKING_SET
        usable = p.usable_gb(level, config.rank_count) * 1e9
        if working_set > usable:
            problems.append(
                f"the working set ({working_set / 1e9:,.0f} GB) is larger than the "
                f"{usable / 1e9:,.0f} GB a {config.rank_count}-rank {level} volume holds"
            )
        return problems

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "sim",
            "sim_state_dir": str(self.state_dir),
            "sim_profile": self.profile.name,
            "sim_health": self.health,
            **config.params(),
        }

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "sim", "sim_state_dir": str(self.state_dir)}

    def runner(self, config: Configuration, matrix: Any, seed: int) -> WorkloadRunner:
        return SimRunner(self.profile, self.state_dir, matrix, seed)

    def hardware(self) -> dict[str, Any]:
        p = self.profile
        return {
            "media": "hdd" if p.drives.type == "hdd" else "flash",
            "drive_gb": p.drives.capacity_gb,
            "raid_groups": {
                level: {"data": g.data, "redundancy": g.redundancy}
                for level, g in p.raid_groups.items()
            },
            "rebuild_mib_s": p.timing.rebuild_mib_s,
        }

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        """What the array would need: formatting ranks dominates, as on real arrays."""
        t = self.profile.timing
        if (
            previous is None
            or previous.raid_level != new.raid_level
            or previous.rank_count != new.rank_count
        ):
            # Every drive of the new ranks formats at once, each at the drives' format rate.
            drive_bytes = self.profile.drives.capacity_gb * 1e9
            return drive_bytes / (t.rank_init_mib_s * 1024**2) + t.volume_create_s
        seconds = 0.0
        if (
            previous.layout != new.layout
            or previous.stripe_kib != new.stripe_kib
            or previous.data_reduction != new.data_reduction
        ):
            seconds += t.volume_create_s
        elif previous.cache_policy != new.cache_policy:
            seconds += t.cache_policy_change_s
        if new.snapshots and (seconds or not previous.snapshots) and self.profile.snapshots:
            seconds += self.profile.snapshots.create_s
        return seconds


def read_job_file(text: str) -> tuple[dict[str, str], dict[str, str], str]:
    """(global options, job options, job name) of a single-job fio job file."""
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    parser.optionxform = str  # fio option names are case-sensitive
    parser.read_string(text)
    sections = [s for s in parser.sections() if s != "global"]
    if len(sections) != 1:
        raise ValueError(f"the simulated array runs one job per file, got {len(sections)}")
    glob = dict(parser["global"]) if parser.has_section("global") else {}
    return (
        {k: v or "" for k, v in glob.items()},
        {k: v or "" for k, v in parser[sections[0]].items()},
        sections[0],
    )


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
            snapshots=bool(s.get("snapshots", False)),
            data_reduction=bool(s.get("data_reduction", False)),
            health=s.get("health", "optimal"),
        )

    def config_key(self) -> str:
        s = self.state_raw
        params = {k: s.get(k) for k in CONFIGURATION_COLUMNS if k not in MULTI_RANK_COLUMNS}
        if s["layout"] != "single_rank":
            params |= {k: int(s[k]) for k in MULTI_RANK_COLUMNS}
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
            size=cell.active_bytes(working_set),
        )
        glob, opts, name = read_job_file(job_text)
        job = job_from_options(glob | opts, cell.active_bytes(working_set))
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
        explain = out.pop("raidsweep_model")
        return RunOutput(
            stdout=json.dumps(out),
            stderr="",
            exit_code=0,
            array_time_s=job.ramp_s + job.runtime_s,
            tool="raidsweep-sim",
            tool_version=f"profile {self.profile.name}",
            job_file=job_text,
            extra={"array_state": self.state_raw, "model": explain},
        )
