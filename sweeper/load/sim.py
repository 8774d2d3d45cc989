"""The simulated array's model as the load: each run's job file answered in fio's JSON."""

from __future__ import annotations

import configparser
import functools
import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sweeper.configuration import Configuration
from sweeper.errors import InputError
from sweeper.fio import parse_fio_output, render_job
from sweeper.fio.jobfile import RatePlan
from sweeper.load.base import LoadDriver, RunOutput
from sweeper.sim.composite import shared, sharing_factor
from sweeper.sim.model import ArrayState, Job, predict, simulate_fio
from sweeper.sim.profile import ArrayProfile
from sweeper.sim.rate import open_loop
from sweeper.sim.state import state_problems
from sweeper.units import parse_size
from sweeper.vocabulary import CONFIGURATION_COLUMNS, MULTI_RANK_COLUMNS
from sweeper.workload import DataProfile, WorkloadCell

SIM_TARGET = "/dev/raidsweep/test-volume"
#: where the simulated array's playbook records its state, as an error names it
STATE_FILE = "array.json (the simulated array's state)"
DEFAULT_WORKING_SET = 360 * 1024**3  # the reference study's working set

#: the storage as it now is: its own record (for the disclosure) and the model's state
StateReader = Callable[[], tuple[dict[str, Any], ArrayState]]


def read_job_file(text: str) -> tuple[dict[str, str], dict[str, str], str]:
    """(global options, job options, job name) of a single-job fio job file."""
    glob, opts, name = _parsed_job_file(text)
    return dict(glob), dict(opts), name


#: option pairs of a section, in the file's order
_Options = tuple[tuple[str, str], ...]


@functools.lru_cache(maxsize=1024)
def _parsed_job_file(text: str) -> tuple[_Options, _Options, str]:
    """The parse behind ``read_job_file``, kept per text: a cell's job file is read again for
    each of its repetitions, and the parse costs more than the model's answer."""
    parser = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    parser.optionxform = str  # fio option names are case-sensitive
    parser.read_string(text)
    sections = [s for s in parser.sections() if s != "global"]
    if len(sections) != 1:
        raise ValueError(f"the simulated array runs one job per file, got {len(sections)}")
    glob = dict(parser["global"]) if parser.has_section("global") else {}
    return (
        tuple((k, v or "") for k, v in glob.items()),
        tuple((k, v or "") for k, v in parser[sections[0]].items()),
        sections[0],
    )


SYNC_OPTIONS = (("fdatasync", "fdatasync"), ("fsync", "fsync"))
#: fio's mixed patterns (reads and writes in one job), sequential and random
MIXED_PATTERNS = ("rw", "readwrite", "randrw")
#: fio's trim patterns, which the model does not know
TRIM_PATTERNS = ("trim", "randtrim", "trimwrite", "randtrimwrite")


def job_from_options(options: dict[str, str], default_working_set: int) -> Job:
    """The model's job from a job file's options (global and job section merged).

    The working set is ``size``; a sequential multi-job cell gives each job its own region
    (per-job ``size`` with ``offset_increment``), so there it is ``size × numjobs``.
    """
    rw = options.get("rw") or options.get("readwrite") or "read"
    if rw in TRIM_PATTERNS:
        raise ValueError(f"rw={rw}: the simulated array does not model trim")
    if rw in MIXED_PATTERNS:
        # fio: rwmixread is the read share, else 100 − rwmixwrite, else half
        if "rwmixread" in options:
            read_fraction = int(options["rwmixread"]) / 100
        elif "rwmixwrite" in options:
            read_fraction = 1 - int(options["rwmixwrite"]) / 100
        else:
            read_fraction = 0.5
    elif rw in ("read", "randread"):
        read_fraction = 1.0
    elif rw in ("write", "randwrite"):
        read_fraction = 0.0
    else:
        raise ValueError(f"rw={rw}: not a pattern the simulated array knows")
    numjobs = int(options.get("numjobs", "1"))
    size = options.get("size")
    working_set = parse_size(size) if size else default_working_set
    if options.get("offset_increment"):
        working_set *= numjobs
    sync = next(
        (mode for opt, mode in SYNC_OPTIONS if options.get(opt, "0") not in ("", "0")), None
    )
    if options.get("sync") == "dsync":
        sync = "dsync"
    rate = options.get("rate_iops")
    rate_iops = sum(float(v) for v in rate.split(",") if v) * numjobs if rate else None
    compress = options.get("buffer_compress_percentage")
    dedupe = options.get("dedupe_percentage")
    return Job(
        rw="rw" if rw == "readwrite" else rw,
        read_fraction=read_fraction,
        block_size=parse_size(options["bs"]),
        iodepth=int(options.get("iodepth", "1")),
        numjobs=numjobs,
        engine=options.get("ioengine", "psync"),
        runtime_s=float(options.get("runtime", "60")),
        ramp_s=float(options.get("ramp_time", "0")),
        working_set=working_set,
        sync=sync,
        distribution=options.get("random_distribution") or None,
        data=DataProfile(int(compress or 0), int(dedupe or 0)) if compress or dedupe else None,
        rate_iops=rate_iops,
    )


class SimDriver(LoadDriver):
    """Answers each cell's job file with the model, in the configuration the storage side
    reads back (``read_state``), not the one the sweeper asked for."""

    def __init__(self, profile: ArrayProfile, matrix: Any, seed: int, read_state: StateReader):
        self.profile = profile
        self.matrix = matrix
        self.seed = seed
        self.read_state = read_state
        self.state: ArrayState | None = None
        self.state_raw: dict[str, Any] = {}
        #: the matrix's cells in their order, which decides the run before each one
        self.order: list[WorkloadCell] = []

    def prepare(self) -> None:
        """Read the array's state as its playbook recorded it, refusing a record the model
        cannot answer for (a field missing or mistyped, a configuration the profile cannot
        build) with the file and the problem named."""
        try:
            raw, state = self.read_state()
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            problem = f"{exc.args[0]!r} is missing" if isinstance(exc, KeyError) else str(exc)
            raise InputError(STATE_FILE, [problem]) from exc
        if problems := state_problems(self.profile, state):
            raise InputError(STATE_FILE, problems)
        self.state_raw, self.state = raw, state

    def config_key(self) -> str:
        s = self.state_raw
        params = {k: s.get(k) for k in CONFIGURATION_COLUMNS if k not in MULTI_RANK_COLUMNS}
        if s["layout"] != "single_rank":
            params |= {k: int(s[k]) for k in MULTI_RANK_COLUMNS}
        return Configuration.from_params(params).key

    def _job(self, cell: WorkloadCell) -> tuple[str, dict[str, str], dict[str, str], str, Job]:
        """The cell's job file as fio would get it, and the job the model reads from it."""
        job_text = self._job_text(cell, rate=self._rate_plan(cell))
        glob, opts, name = read_job_file(job_text)
        return (job_text, glob, opts, name, job_from_options(glob | opts, self._size(cell)))

    def _size(self, cell: WorkloadCell) -> int:
        """The bytes the cell's I/O spans of the simulated volume."""
        return cell.active_bytes(self.matrix.working_set or DEFAULT_WORKING_SET)

    def _job_text(self, cell: WorkloadCell, rate: RatePlan | None = None) -> str:
        """The cell's job file as fio would get it on the simulated target."""
        m = self.matrix
        return render_job(
            cell,
            filename=SIM_TARGET,
            engine=m.engine,
            runtime_s=m.runtime,
            ramp_s=m.ramp,
            size=self._size(cell),
            rate=rate,
        )

    def _output(self, stdout: str, job_text: str, array_time_s: float, **rest: Any) -> RunOutput:
        """A simulated run's output: what every run of the model shares, and ``rest``."""
        return RunOutput(
            stdout=stdout,
            stderr="",
            exit_code=0,
            array_time_s=array_time_s,
            tool="raidsweep-sim",
            tool_version=f"profile {self.profile.name}",
            job_file=job_text,
            array_state=self.state_raw,
            **rest,
        )

    def _rate_plan(self, cell: WorkloadCell) -> RatePlan | None:
        """A rate cell's maximum: the model's highest IOPS (without noise) over its closed
        loop's concurrency curve in the matrix, or over the closed-loop cell alone."""
        if cell.rate_pct is None:
            return None
        assert self.state is not None, "prepare() reads the array state first"
        closed = cell.closed
        curve = [c for c in self.matrix.cells() if c.rate_pct is None and c.curve == closed.curve]
        best = max(
            predict(self.profile, self.state, self._job(c)[-1]).iops for c in curve or [closed]
        )
        return RatePlan(best, "curve" if curve else "saturating run")

    def dirty_before(self, cell: WorkloadCell, repetition: int) -> float:
        """The write cache's dirty share as the run before this one leaves it, from the run
        order alone, so that a resumed sweep answers every run as the uninterrupted one
        would: the previous repetition of the cell, or for a first repetition the cell before
        it in the matrix, each as it runs from a clean cache; the first run starts clean."""
        assert self.state is not None, "prepare() reads the array state first"
        if repetition > 1:
            previous: WorkloadCell | None = cell
        else:
            if not self.order:
                self.order = list(self.matrix.cells())
            keys = [c.key for c in self.order]
            at = keys.index(cell.key) if cell.key in keys else 0
            previous = self.order[at - 1] if at > 0 else None
        if previous is None:
            return 0.0
        *_, job = self._job(previous.streams[0])
        return float(predict(self.profile, self.state, job, dirty_start=0.0).dirty_end)

    def _composite(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        """The streams of a composite cell, each simulated while it shares the array with
        the others (``sweeper.sim.composite``), as one fio output of one job group each."""
        assert self.state is not None, "prepare() reads the array state first"
        m = self.matrix
        job_text = self._job_text(cell)
        dirty_start = self.dirty_before(cell, repetition)
        parts = [self._job(s) for s in cell.streams]
        alone = [predict(self.profile, self.state, p[-1], dirty_start=dirty_start) for p in parts]
        factor = sharing_factor(alone)
        key = self.config_key()
        jobs, model = [], {}
        for i, ((_, glob, opts, name, job), pred) in enumerate(zip(parts, alone, strict=True)):
            out = simulate_fio(
                self.profile,
                self.state,
                job,
                job_name=f"{name}-s{i}",
                job_options=opts,
                global_options=glob,
                seed=(self.seed, key, cell.key, repetition, i),
                timestamp=int(time.time()),
                dirty_start=dirty_start,
                prediction=shared(pred, factor),
            )
            model[cell.streams[i].key] = out.pop("raidsweep_model")
            jobs += [j | {"groupid": i} for j in out["jobs"]]
        stdout = json.dumps(out | {"jobs": jobs})
        return self._output(
            stdout,
            job_text,
            m.ramp + m.runtime,
            model={"streams": model, "sharing_factor": round(factor, 4)},
            result=parse_fio_output(stdout, concurrent_groups=True),
        )

    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        assert self.state is not None, "prepare() reads the array state first"
        if cell.others:
            return self._composite(cell, repetition)
        job_text, glob, opts, name, job = self._job(cell)
        key = self.config_key()
        dirty_start = self.dirty_before(cell, repetition)
        plan = self._rate_plan(cell)
        prediction = None
        if plan is not None and job.rate_iops is not None:
            closed = predict(self.profile, self.state, job, dirty_start=dirty_start)
            single = replace(job, iodepth=1, numjobs=1, rate_iops=None)
            prediction = open_loop(closed, predict(self.profile, self.state, single), job.rate_iops)
        out = simulate_fio(
            self.profile,
            self.state,
            job,
            job_name=name,
            job_options=opts,
            global_options=glob,
            seed=(self.seed, key, cell.key, repetition),
            timestamp=int(time.time()),
            dirty_start=dirty_start,
            prediction=prediction,
        )
        explain = out.pop("raidsweep_model")
        explain["write_cache_dirty_at_start"] = round(dirty_start, 4)
        return self._output(
            json.dumps(out),
            job_text,
            job.ramp_s + job.runtime_s,
            model=explain,
            rate={} if plan is None else plan.record(cell),
        )
