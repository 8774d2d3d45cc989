"""Render a plain fio job file for one workload cell (``fio FILE`` runs it by hand)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from sweeper.units import format_size
from sweeper.workload import ENGINES, SYNC_ENGINES, WorkloadCell

TEMPLATE_NAME = "job.fio.j2"
PERCENTILE_LIST = "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99"
#: the job option of each sync mode: a flush after every write, or writes opened O_DSYNC
SYNC_OPTIONS = {"fsync": "fsync=1", "fdatasync": "fdatasync=1", "dsync": "sync=dsync"}

# In a job file fio cuts a value at '#' or ';' (comments), expands '${VAR}' and '$ncpus'-style
# keywords, and strips surrounding blanks; a newline would start a new option or section.
_FILENAME_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f#;$\\]")
_JOB_NAME_RE = re.compile(r"[A-Za-z0-9_.+-]{1,64}")


@cache
def job_template() -> jinja2.Template:
    """The job-file template; any variable missing from the context raises ``UndefinedError``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # an ini file, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env.get_template(TEMPLATE_NAME)


def check_filename(filename: str) -> str:
    """Refuse what would change the job file's meaning; escape ':' (fio's file list separator)."""
    if not isinstance(filename, str) or not filename:
        raise ValueError("filename must be a non-empty string")
    if filename != filename.strip():
        raise ValueError(f"filename {filename!r} has leading or trailing blanks")
    if filename.startswith("="):
        raise ValueError(f"filename {filename!r} starts with '='")
    bad = _FILENAME_FORBIDDEN.search(filename)
    if bad:
        raise ValueError(
            f"filename {filename!r} contains {bad.group()!r}, which fio's job-file syntax "
            "would interpret (newline, comment, variable or escape character)"
        )
    return filename.replace(":", "\\:")


def _check_seconds(name: str, value: float, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number of seconds, not {value!r}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, not {value!r}")
    return max(minimum, round(value))


def render_job(
    cell: WorkloadCell,
    *,
    filename: str,
    engine: str,
    runtime_s: float,
    ramp_s: float,
    size: int,
    offset: int = 0,
    direct: bool = True,
    job_name: str | None = None,
    iops_log: str | None = None,
    steadystate: tuple[str, float, float] | None = None,
    own_regions: bool = True,
    rate: RatePlan | None = None,
) -> str:
    """The fio job file text for ``cell`` against ``filename``.

    Runtime and ramp are whole seconds (runtime at least 1). Synchronous engines (sync, psync)
    get ``iodepth=1``: fio caps them at 1 anyway and would otherwise print a notice on stdout.
    ``iops_log`` names the per-job IOPS interval logs (one-second averages, written beside the
    job file) from which steady state is judged. ``steadystate`` = (criterion, window seconds,
    ramp seconds) makes fio stop as soon as its own detector finds the job steady (``ss=``).

    A sequential cell with several jobs gives each job its own region of the working set
    (``own_regions``, the default): ``size`` / numjobs, rounded down to whole blocks, one after
    the other from ``offset`` (fio's per-job ``size`` and ``offset_increment``), so no stream
    reads or writes blocks another stream has just brought into a cache. Random cells keep
    every job over the whole working set. The cell's sync mode, random distribution and data
    profile become fio's own options (``fdatasync=1`` / ``fsync=1`` / ``sync=dsync``,
    ``random_distribution``, ``buffer_compress_percentage`` and ``dedupe_percentage`` with
    ``refill_buffers``). A rate cell needs its ``rate`` (what the maximum is and where it
    came from): fio's ``rate_iops`` per job and direction with ``rate_process=poisson``.
    """
    if iops_log is not None and not _JOB_NAME_RE.fullmatch(iops_log):
        raise ValueError(f"iops_log {iops_log!r} must be 1-64 of [A-Za-z0-9_.+-]")
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"size must be a positive number of bytes, not {size!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be a non-negative number of bytes, not {offset!r}")
    name = cell.key.replace("/", "_").replace("+", "_") if job_name is None else job_name
    if not _JOB_NAME_RE.fullmatch(name) or name == "global":
        raise ValueError(f"job name {name!r} must be 1-64 of [A-Za-z0-9_.+-] and not 'global'")
    if (cell.rate_pct is None) != (rate is None):
        raise ValueError(f"cell {cell.key} needs a rate plan exactly when it is a rate cell")
    streams = cell.streams
    names = [name] if len(streams) == 1 else [f"{name[:58]}-s{i}" for i in range(len(streams))]
    jobs = [
        {
            "name": job,
            "rw": s.pattern.rw,
            "rwmixread": s.pattern.read_pct or 50,
            "bs": format_size(s.block_size),
            "iodepth": 1 if engine in SYNC_ENGINES else s.concurrency.iodepth,
            "numjobs": s.concurrency.numjobs,
            "region": job_region(s, size) if own_regions else None,
            "sync": SYNC_OPTIONS[s.sync] if s.sync else None,
            "distribution": s.distribution.fio if s.distribution else None,
            "data": s.data,
            "rate": None if rate is None else rate.shown(s),
        }
        for job, s in zip(names, streams, strict=True)
    ]
    return job_template().render(
        cell_key=cell.key,
        engine=engine,
        direct=1 if direct else 0,
        runtime=_check_seconds("runtime_s", runtime_s, 1),
        ramp_time=_check_seconds("ramp_s", ramp_s, 0),
        size=size,
        offset=offset,
        percentile_list=PERCENTILE_LIST,
        filename=check_filename(filename),
        iops_log=iops_log,
        ss=None if steadystate is None else steadystate[0],
        ss_dur=None if steadystate is None else _check_seconds("ss_dur", steadystate[1], 1),
        ss_ramp=None if steadystate is None else _check_seconds("ss_ramp", steadystate[2], 0),
        jobs=jobs,
    )


@dataclass(frozen=True)
class RatePlan:
    """A rate cell's arrivals: the maximum IOPS of its closed loop and where it came from
    (``curve``: the configuration's concurrency curve; ``saturating run``: a run first)."""

    max_iops: float
    max_from: str

    def target_iops(self, cell: WorkloadCell) -> float:
        assert cell.rate_pct is not None
        return self.max_iops * cell.rate_pct / 100

    def option(self, cell: WorkloadCell) -> str:
        """fio's ``rate_iops``: per job, reads[,writes] (one value caps either direction)."""
        per_job = self.target_iops(cell) / cell.concurrency.numjobs
        if cell.pattern.rw != "randrw":
            return str(max(1, round(per_job)))
        reads = per_job * cell.pattern.read_fraction
        return f"{max(1, round(reads))},{max(1, round(per_job - reads))}"

    def record(self, cell: WorkloadCell) -> dict[str, Any]:
        """What the run's disclosure and columns keep of the arrivals."""
        return {
            "rate_pct": cell.rate_pct,
            "max_iops": self.max_iops,
            "max_from": self.max_from,
            "target_iops": self.target_iops(cell),
            "process": "poisson",
        }

    def shown(self, cell: WorkloadCell) -> dict[str, Any]:
        if not (math.isfinite(self.max_iops) and self.max_iops > 0):
            raise ValueError(f"a rate needs a positive maximum IOPS, not {self.max_iops!r}")
        if self.max_from not in RATE_SOURCES:
            raise ValueError(f"{self.max_from!r} is not one of {', '.join(RATE_SOURCES)}")
        return {
            "pct": cell.rate_pct,
            "max_iops": f"{self.max_iops:.0f}",
            "max_from": self.max_from,
            "target_iops": f"{self.target_iops(cell):.0f}",
            "option": self.option(cell),
        }


#: where a rate cell's maximum came from
RATE_SOURCES = ("curve", "saturating run")


def job_region(cell: WorkloadCell, size: int) -> int | None:
    """Bytes of the working set each job of a sequential multi-job cell runs over (whole
    blocks); None when every job runs over all of it (one job, or random access)."""
    jobs = cell.concurrency.numjobs
    if jobs == 1 or cell.pattern.random:
        return None
    region = size // jobs
    region -= region % cell.block_size
    if region == 0:
        raise ValueError(
            f"a working set of {size} bytes cannot give each of {jobs} sequential jobs a "
            f"region of at least one {cell.block_size}-byte block"
        )
    return region
